//! What a family whose items go through the trash offers it: a [`TrashSource`]
//! per family, handed to the trash as app data (`api::trash_sources`), so the
//! trash imports no family and the families (the content engine among them)
//! import no trash. The trash's handlers are in `trash`.

use chrono::{DateTime, Utc};
use futures_util::future::BoxFuture;
use sea_orm::sea_query::{Asterisk, Expr, ExprTrait, SelectStatement, SimpleExpr};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbErr, EntityTrait, FromQueryResult, QueryFilter, QuerySelect, QueryTrait, Select,
};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::audit::Actor;
use crate::auth::SitesGrant;
use crate::db::WriteTxn;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::events::DomainEvent;
use crate::state::AppState;

/// One entry of the trash, whatever table it lives in.
#[derive(Serialize, ToSchema, FromQueryResult)]
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

    /// Queries of the site's deleted items, each selecting the columns of a
    /// [`TrashItem`] ([`trash_rows`]) newest-deleted first, at most `limit`
    /// rows, as an index range scan in that order. The trash runs every
    /// source's queries as one.
    fn deleted(&self, site_id: Uuid, limit: u64) -> Vec<SelectStatement>;

    /// Queries of one count each ([`count_of`]), whose sum is how many of the
    /// site's items are in the trash.
    fn counts(&self, site_id: Uuid) -> Vec<SelectStatement>;

    /// The item `id` of `entity_type`, in the trash or not, with the sites it
    /// lives on; the source's not-found error when there is none. Nothing is
    /// checked of the caller: the trash's handler checks its standing on those
    /// sites and hands the grant to [`Trashed::restore`] or [`Trashed::purge`].
    fn find<'a>(
        &'a self,
        state: &'a AppState,
        entity_type: &'a str,
        id: Uuid,
    ) -> BoxFuture<'a, ApiResult<Box<dyn Trashed>>>;

    /// Moves every live item of the site to the trash, inside `txn`: a
    /// site's reset (`POST /sites/{id}/reset-content`), which records the
    /// one audit entry. A family with a trash source is reset by having one.
    fn trash_site<'a>(
        &'a self,
        txn: &'a WriteTxn,
        now: DateTime<Utc>,
        actor: &'a Actor,
        site_id: Uuid,
    ) -> BoxFuture<'a, ApiResult<SiteReset>>;
}

/// What one source's part of a site's reset moved to the trash.
#[derive(Default)]
pub struct SiteReset {
    /// How many items of each of its types.
    pub trashed: Vec<(&'static str, u64)>,
    /// The events the change announces.
    pub events: Vec<DomainEvent>,
}

impl SiteReset {
    pub fn of(trashed: Vec<(&'static str, u64)>) -> Self {
        Self { trashed, events: Vec::new() }
    }
}

/// A site-scoped table whose rows go to the trash with a flag and a time.
pub trait SiteTrashTable: EntityTrait {
    /// The site id, the deleted flag and the deletion time.
    const COLUMNS: [Self::Column; 3];
}

/// Soft-deletes every live row of one table on the site; answers how many.
pub async fn trash_all<E: SiteTrashTable>(
    db: &impl ConnectionTrait,
    now: DateTime<Utc>,
    site_id: Uuid,
) -> Result<u64, DbErr> {
    let [site, is_deleted, deleted_at] = E::COLUMNS;
    Ok(E::update_many()
        .col_expr(is_deleted, Expr::value(true))
        .col_expr(deleted_at, Expr::value(now))
        .filter(site.eq(site_id))
        .filter(is_deleted.eq(false))
        .exec(db)
        .await?
        .rows_affected)
}

/// An item a [`TrashSource`] found, waiting for the caller's grant on its sites.
pub trait Trashed: Send {
    /// The sites the item lives on, in the order the caller's rights on them
    /// are checked.
    fn site_ids(&self) -> &[Uuid];

    /// Takes the item out of the trash (TRASH_ALREADY_RESTORED when it is not
    /// in it) and answers with it in its own shape. `grant` is the caller's
    /// standing on [`Trashed::site_ids`], checked by the trash.
    fn restore<'a>(self: Box<Self>, state: &'a AppState, grant: &'a SitesGrant) -> BoxFuture<'a, ApiResult<Value>>;

    /// Removes the item for good (TRASH_NOT_DELETED when it is not in the
    /// trash). `grant` is the caller's standing on [`Trashed::site_ids`],
    /// checked by the trash.
    fn purge<'a>(self: Box<Self>, state: &'a AppState, grant: &'a SitesGrant) -> BoxFuture<'a, ApiResult<()>>;
}

/// The sources the trash handlers read, given to them as app data.
#[derive(Clone)]
pub struct TrashSources(pub Vec<&'static dyn TrashSource>);

impl TrashSources {
    pub fn for_type(&self, entity_type: &str) -> Option<&'static dyn TrashSource> {
        self.0.iter().copied().find(|s| s.entity_types().contains(&entity_type))
    }

    /// Every `entity_type` a source answers for, in the sources' order: the
    /// types the trash knows.
    pub fn entity_types(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0.iter().flat_map(|s| s.entity_types().iter().copied())
    }
}

/// What a trash query selects, named as [`TrashItem`]'s fields.
pub struct TrashColumns {
    pub id: SimpleExpr,
    pub entity_type: &'static str,
    pub title: SimpleExpr,
    pub slug: SimpleExpr,
    pub deleted_at: SimpleExpr,
}

/// `select` (filtered, ordered and limited by the source) reading `columns`.
pub fn trash_rows<E: EntityTrait>(select: Select<E>, columns: TrashColumns) -> SelectStatement {
    select
        .select_only()
        .column_as(columns.id, "id")
        .column_as(Expr::val(columns.entity_type), "entity_type")
        .column_as(columns.title, "title")
        .column_as(columns.slug, "slug")
        .column_as(columns.deleted_at, "deleted_at")
        .into_query()
}

/// How many rows `select` finds (its order, if any, dropped).
pub fn count_of<E: EntityTrait>(select: Select<E>) -> SelectStatement {
    let mut count = select.select_only().expr(Expr::col(Asterisk).count()).into_query();
    count.clear_order_by();
    count
}
