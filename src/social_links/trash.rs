//! Social links in the trash (`social`).

use futures_util::future::BoxFuture;
use plinth_entities::social_link;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect};
use serde_json::{json, Value};
use uuid::Uuid;

use super::SocialLinkResponse;
use crate::audit::{self, Action};
use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult};
use crate::site_rows::{self, SiteRow};
use crate::state::AppState;
use crate::trash_source::{TrashItem, TrashSource};

pub struct SocialTrash;

fn deleted_social_links(site_id: Uuid) -> sea_orm::Select<social_link::Entity> {
    social_link::Entity::find()
        .filter(social_link::Column::SiteId.eq(site_id))
        .filter(social_link::Column::IsDeleted.eq(true))
}

impl TrashSource for SocialTrash {
    fn entity_types(&self) -> &'static [&'static str] {
        &["social"]
    }

    fn list<'a>(&'a self, state: &'a AppState, site_id: Uuid, limit: u64) -> BoxFuture<'a, ApiResult<Vec<TrashItem>>> {
        Box::pin(async move {
            Ok(deleted_social_links(site_id)
                .order_by_desc(social_link::Column::DeletedAt)
                .order_by_desc(social_link::Column::Id)
                .limit(limit)
                .all(&state.db)
                .await?
                .into_iter()
                .map(|m| TrashItem {
                    id: m.id,
                    entity_type: "social".into(),
                    title: m.label,
                    slug: m.platform,
                    deleted_at: m.deleted_at,
                })
                .collect())
        })
    }

    fn count<'a>(&'a self, state: &'a AppState, site_id: Uuid) -> BoxFuture<'a, ApiResult<u64>> {
        Box::pin(async move { Ok(deleted_social_links(site_id).count(&state.db).await?) })
    }

    fn restore<'a>(
        &'a self,
        state: &'a AppState,
        principal: &'a Principal,
        _entity_type: &'a str,
        id: Uuid,
    ) -> BoxFuture<'a, ApiResult<Value>> {
        Box::pin(async move {
            let link: social_link::Model =
                site_rows::find_with_trashed(state, principal, id, Capability::AdministerSite).await?;
            crate::trash_source::ensure_in_trash(link.is_deleted)?;
            let mut row: social_link::ActiveModel = link.into();
            row.is_deleted = Set(false);
            row.deleted_at = Set(None);
            let actor = principal.actor_id();
            let restored = audit::Write {
                after: Some(json!({"is_deleted": false})),
                ..site_rows::audited_write(
                    &state.db,
                    state.clock.now(),
                    &actor,
                    Action::Restore,
                    json!({"is_deleted": true}),
                )
            }
            .run(row, |m| SocialLinkResponse::from(m), ApiError::from)
            .await?;
            serde_json::to_value(restored).map_err(|e| ApiError::internal(format!("restored link: {e}")))
        })
    }

    fn purge<'a>(
        &'a self,
        state: &'a AppState,
        principal: &'a Principal,
        _entity_type: &'a str,
        id: Uuid,
    ) -> BoxFuture<'a, ApiResult<()>> {
        Box::pin(async move {
            let link: social_link::Model =
                site_rows::find_with_trashed(state, principal, id, Capability::AdministerSite).await?;
            crate::trash_source::ensure_purgeable(link.is_deleted)?;
            let txn = crate::db::begin_write(&state.db).await?;
            social_link::Entity::delete_by_id(id).exec(&txn).await?;
            let actor = principal.actor_id();
            let entry = link.audit_entry(&actor, Action::Purge);
            audit::record(&txn, state.clock.now(), entry, &json!({"label": link.label, "url": link.url}), &()).await?;
            txn.commit().await?;
            Ok(())
        })
    }
}
