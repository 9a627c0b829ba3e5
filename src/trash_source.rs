//! What a family whose items go through the trash offers it: a [`TrashSource`]
//! per family, handed to the trash as app data (`api::trash_sources`), so the
//! trash imports no family and the families (the content engine among them)
//! import no trash. The trash's handlers are in `trash`.

use chrono::{DateTime, Utc};
use futures_util::future::BoxFuture;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::Principal;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;

/// One entry of the trash, whatever table it lives in.
#[derive(Serialize, ToSchema)]
pub struct TrashItem {
    /// The item's id.
    pub id: Uuid,
    /// What it is (`blog`, `page`, `media`, …).
    pub entity_type: String,
    /// Its title or name.
    pub title: String,
    /// Its slug; for media the filename, for documents the type, for menu items the URL.
    pub slug: String,
    /// When it was deleted; null when not recorded.
    pub deleted_at: Option<DateTime<Utc>>,
}

/// For a restore: TRASH_ALREADY_RESTORED unless the item is in the trash.
pub fn ensure_in_trash(is_deleted: bool) -> ApiResult<()> {
    if is_deleted {
        Ok(())
    } else {
        Err(ApiError::new(ErrorCode::TrashAlreadyRestored, "the item is not in the trash"))
    }
}

/// For a permanent delete: TRASH_NOT_DELETED unless the item is in the trash.
pub fn ensure_purgeable(is_deleted: bool) -> ApiResult<()> {
    if is_deleted {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::TrashNotDeleted,
            "only items in the trash can be deleted for good; delete it first",
        ))
    }
}

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
