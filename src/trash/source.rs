//! What the trash asks of each family whose items it holds. The trash knows no
//! family: `app.rs` hands it the list of sources (`api::trash_sources`).

use futures_util::future::BoxFuture;
use serde_json::Value;
use uuid::Uuid;

use super::TrashItem;
use crate::auth::Principal;
use crate::error::ApiResult;
use crate::state::AppState;

pub trait TrashSource: Send + Sync {
    /// The `entity_type` values this source answers for (`social`, `menu`, …).
    fn entity_types(&self) -> &'static [&'static str];

    /// The newest `limit` deleted items of the site, newest-deleted first.
    fn list<'a>(&'a self, state: &'a AppState, site_id: Uuid, limit: u64) -> BoxFuture<'a, ApiResult<Vec<TrashItem>>>;

    /// How many of the site's items are in the trash.
    fn count<'a>(&'a self, state: &'a AppState, site_id: Uuid) -> BoxFuture<'a, ApiResult<u64>>;

    /// Takes an item out of the trash (TRASH_ALREADY_RESTORED when it is not in
    /// it) and answers with it in its own shape. The source checks permissions.
    fn restore<'a>(
        &'a self,
        state: &'a AppState,
        principal: &'a Principal,
        entity_type: &'a str,
        id: Uuid,
    ) -> BoxFuture<'a, ApiResult<Value>>;

    /// Removes a trashed item for good (TRASH_NOT_DELETED when it is not in the
    /// trash). The source checks permissions.
    fn purge<'a>(
        &'a self,
        state: &'a AppState,
        principal: &'a Principal,
        entity_type: &'a str,
        id: Uuid,
    ) -> BoxFuture<'a, ApiResult<()>>;
}

/// The sources the trash handlers read, given to them as app data.
#[derive(Clone)]
pub struct TrashSources(pub Vec<&'static dyn TrashSource>);

impl TrashSources {
    pub fn for_type(&self, entity_type: &str) -> Option<&'static dyn TrashSource> {
        self.0.iter().copied().find(|s| s.entity_types().contains(&entity_type))
    }
}
