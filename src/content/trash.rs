//! Content in the trash: every kind of the content engine, as one trash source.

use futures_util::future::BoxFuture;
use plinth_entities::{content, content_listing, content_site};
use sea_orm::sea_query::{Expr, SelectStatement};
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryTrait};
use serde_json::{json, Value};
use uuid::Uuid;

use super::listing::{self, Filter, Sort};
use super::{read, ContentKind};
use crate::audit::{self, Action, AuditEntry};
use crate::auth::SitesGrant;
use crate::error::{ApiError, ApiResult};
use crate::events::EventAction;
use crate::state::AppState;
use crate::trash_source::{count_of, trash_rows, SiteReset, TrashColumns, TrashSource, Trashed};

/// Every kind of the content engine in the trash.
pub struct ContentTrash;

/// The kinds' trash names (`ContentKind::as_str`); a test keeps them in step.
const CONTENT_TYPES: [&str; 6] = ["blog", "page", "project", "cv_entry", "skill", "legal"];

/// A content item found for the trash, with its sites.
struct TrashedContent {
    kind: ContentKind,
    item: content::Model,
    sites: Vec<Uuid>,
}

/// The item (deleted or not) with its sites; nothing of the caller checked.
async fn find_item(
    state: &AppState,
    kind: Option<ContentKind>,
    id: Uuid,
    entity_type: &str,
) -> ApiResult<TrashedContent> {
    let not_found = || ApiError::not_found(entity_type, id);
    let kind = kind.ok_or_else(not_found)?;
    let item = content::Entity::find_by_id(id)
        .filter(content::Column::Kind.eq(kind.as_str()))
        .one(&state.db)
        .await?
        .ok_or_else(not_found)?;
    let sites: Vec<Uuid> = content_site::Entity::find()
        .filter(content_site::Column::ContentId.eq(id))
        .all(&state.db)
        .await?
        .into_iter()
        .map(|r| r.site_id)
        .collect();
    Ok(TrashedContent { kind, item, sites })
}

impl TrashSource for ContentTrash {
    fn entity_types(&self) -> &'static [&'static str] {
        &CONTENT_TYPES
    }

    fn deleted(&self, site_id: Uuid, limit: u64) -> Vec<SelectStatement> {
        // The newest `limit` of each kind, each an index range scan in its
        // order (`ix_content_sites_trash`), read from the site rows' copies of
        // title and deletion time, never the items.
        let column = |column: content_listing::Column| Expr::col((content_listing::Entity, column));
        ContentKind::ALL
            .into_iter()
            .map(|kind| {
                let rows = listing::page_rows(&Filter::trashed(site_id, Some(kind)), Sort::LATEST_DELETED, limit, 0);
                let columns = TrashColumns {
                    id: column(content_listing::Column::ContentId),
                    entity_type: kind.as_str(),
                    title: column(content_listing::Column::Title),
                    slug: column(content_listing::Column::Slug),
                    deleted_at: column(content_listing::Column::DeletedAt),
                };
                trash_rows(rows, columns)
            })
            .collect()
    }

    fn counts(&self, site_id: Uuid) -> Vec<SelectStatement> {
        // From the counters (one row per kind and status) when they hold it.
        let trashed = Filter::trashed(site_id, None);
        let count = listing::counted(&trashed).map(QueryTrait::into_query);
        vec![count.unwrap_or_else(|| count_of(listing::rows(&trashed)))]
    }

    fn find<'a>(
        &'a self,
        state: &'a AppState,
        entity_type: &'a str,
        id: Uuid,
    ) -> BoxFuture<'a, ApiResult<Box<dyn Trashed>>> {
        Box::pin(async move {
            let found = find_item(state, ContentKind::parse(entity_type), id, entity_type).await?;
            Ok(Box::new(found) as Box<dyn Trashed>)
        })
    }

    fn trash_site<'a>(
        &'a self,
        txn: &'a crate::db::WriteTxn,
        now: chrono::DateTime<chrono::Utc>,
        actor: &'a crate::audit::Actor,
        site_id: Uuid,
    ) -> BoxFuture<'a, ApiResult<SiteReset>> {
        Box::pin(async move {
            let items =
                read::on_site_only(content::Entity::find().filter(content::Column::IsDeleted.eq(false)), site_id)
                    .all(txn)
                    .await?;
            let mut reset = SiteReset::default();
            for kind in ContentKind::ALL {
                let ids: Vec<Uuid> = items.iter().filter(|i| i.kind == kind).map(|i| i.id).collect();
                let deleted = match ids.is_empty() {
                    true => Vec::new(),
                    false => super::write::soft_delete_many(txn, now, actor, kind, &ids).await?,
                };
                reset.trashed.push((kind.as_str(), deleted.len() as u64));
                let announced =
                    deleted.iter().flat_map(|item| super::events::events_for(kind, EventAction::Deleted, item, now));
                reset.events.extend(announced);
            }
            Ok(reset)
        })
    }
}

impl Trashed for TrashedContent {
    fn site_ids(&self) -> &[Uuid] {
        &self.sites
    }

    fn restore<'a>(self: Box<Self>, state: &'a AppState, grant: &'a SitesGrant) -> BoxFuture<'a, ApiResult<Value>> {
        Box::pin(async move {
            let TrashedContent { kind, item, sites } = *self;
            let entity_type = kind.as_str();
            let id = item.id;
            crate::trash_source::ensure_in_trash(item.is_deleted)?;
            let announced = audit::write(&state.db, async |txn| {
                let mut row: content::ActiveModel = item.into();
                row.is_deleted = Set(false);
                row.deleted_at = Set(None);
                let restored_row = row.update(txn).await?;
                let entry = AuditEntry {
                    actor: grant.actor(),
                    action: Action::Restore,
                    entity_type,
                    entity_id: id.to_string(),
                    site_id: sites.first().copied(),
                };
                audit::record_on_sites(
                    txn,
                    state.clock.now(),
                    entry,
                    &sites,
                    &json!({"is_deleted": true}),
                    &json!({"is_deleted": false}),
                )
                .await?;
                let announced = read::response_of(txn, &restored_row).await?;
                crate::content::events::store_events(
                    state,
                    txn,
                    crate::content::events::events_for(kind, EventAction::Updated, &announced, state.clock.now()),
                )
                .await?;
                Ok(announced)
            })
            .await?;
            serde_json::to_value(announced).map_err(|e| ApiError::internal(format!("restored item: {e}")))
        })
    }

    fn purge<'a>(self: Box<Self>, state: &'a AppState, grant: &'a SitesGrant) -> BoxFuture<'a, ApiResult<()>> {
        Box::pin(async move {
            let TrashedContent { kind, item, sites } = *self;
            let entity_type = kind.as_str();
            let id = item.id;
            crate::trash_source::ensure_purgeable(item.is_deleted)?;
            audit::write(&state.db, async |txn| {
                // Sites, localizations and taxonomy links cascade with the row.
                content::Entity::delete_by_id(id).exec(txn).await?;
                let entry = AuditEntry {
                    actor: grant.actor(),
                    action: Action::Purge,
                    entity_type,
                    entity_id: id.to_string(),
                    site_id: sites.first().copied(),
                };
                audit::record_on_sites(
                    txn,
                    state.clock.now(),
                    entry,
                    &sites,
                    &json!({"title": item.title, "slug": item.slug}),
                    &(),
                )
                .await?;
                Ok(())
            })
            .await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_content_kind_goes_through_the_trash() {
        let mut kinds: Vec<&str> = ContentKind::ALL.iter().map(|k| k.as_str()).collect();
        let mut listed = CONTENT_TYPES.to_vec();
        kinds.sort_unstable();
        listed.sort_unstable();
        assert_eq!(kinds, listed);
    }
}
