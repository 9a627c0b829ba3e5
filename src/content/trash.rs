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
use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::trash_source::{count_of, trash_rows, TrashColumns, TrashSource};

/// Every kind of the content engine in the trash.
pub struct ContentTrash;

/// The kinds' trash names (`ContentKind::as_str`); a test keeps them in step.
const CONTENT_TYPES: [&str; 6] = ["blog", "page", "project", "cv_entry", "skill", "legal"];

/// The item (deleted or not) with its sites, after checking the caller
/// administers all of them.
async fn find_item(
    state: &AppState,
    principal: &Principal,
    kind: Option<ContentKind>,
    id: Uuid,
    entity_type: &str,
) -> ApiResult<(content::Model, Vec<Uuid>)> {
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
    for site_id in &sites {
        principal.require(state, *site_id, Capability::AdministerSite).await?;
    }
    Ok((item, sites))
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

    fn restore<'a>(
        &'a self,
        state: &'a AppState,
        principal: &'a Principal,
        entity_type: &'a str,
        id: Uuid,
    ) -> BoxFuture<'a, ApiResult<Value>> {
        Box::pin(async move {
            let kind = ContentKind::parse(entity_type);
            let (item, sites) = find_item(state, principal, kind, id, entity_type).await?;
            crate::trash_source::ensure_in_trash(item.is_deleted)?;
            let announced = audit::write(&state.db, async |txn| {
                let kind = kind.ok_or_else(|| ApiError::internal("restored a kind without content"))?;
                let mut row: content::ActiveModel = item.into();
                row.is_deleted = Set(false);
                row.deleted_at = Set(None);
                let restored_row = row.update(txn).await?;
                let actor = principal.actor();
                let entry = AuditEntry {
                    actor: &actor,
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
                    crate::content::events::events_for(kind, "updated", &announced, state.clock.now()),
                )
                .await?;
                Ok(announced)
            })
            .await?;
            serde_json::to_value(announced).map_err(|e| ApiError::internal(format!("restored item: {e}")))
        })
    }

    fn purge<'a>(
        &'a self,
        state: &'a AppState,
        principal: &'a Principal,
        entity_type: &'a str,
        id: Uuid,
    ) -> BoxFuture<'a, ApiResult<()>> {
        Box::pin(async move {
            let kind = ContentKind::parse(entity_type);
            let (item, sites) = find_item(state, principal, kind, id, entity_type).await?;
            crate::trash_source::ensure_purgeable(item.is_deleted)?;
            audit::write(&state.db, async |txn| {
                // Sites, localizations and taxonomy links cascade with the row.
                content::Entity::delete_by_id(id).exec(txn).await?;
                let actor = principal.actor();
                let entry = AuditEntry {
                    actor: &actor,
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
