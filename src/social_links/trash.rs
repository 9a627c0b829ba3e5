//! Social links in the trash (`social`).

use futures_util::future::BoxFuture;
use plinth_entities::social_link;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect,
};
use serde_json::{json, Value};
use uuid::Uuid;

use super::SocialLinkResponse;
use crate::audit::{self, Action, AuditEntry};
use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;
use crate::trash::{TrashItem, TrashSource};

pub struct SocialTrash;

fn deleted_social_links(site_id: Uuid) -> sea_orm::Select<social_link::Entity> {
    social_link::Entity::find()
        .filter(social_link::Column::SiteId.eq(site_id))
        .filter(social_link::Column::IsDeleted.eq(true))
}

/// A social link (deleted or not), after checking the caller administers its site.
async fn find_social_link(state: &AppState, principal: &Principal, id: Uuid) -> ApiResult<social_link::Model> {
    let link =
        social_link::Entity::find_by_id(id).one(&state.db).await?.ok_or_else(|| ApiError::not_found("social", id))?;
    principal.require(state, link.site_id, Capability::AdministerSite).await?;
    Ok(link)
}

impl TrashSource for SocialTrash {
    fn entity_types(&self) -> &'static [&'static str] {
        &["social"]
    }

    fn list<'a>(&'a self, state: &'a AppState, site_id: Uuid, limit: u64) -> BoxFuture<'a, ApiResult<Vec<TrashItem>>> {
        Box::pin(async move {
            Ok(deleted_social_links(site_id)
                .order_by_desc(social_link::Column::DeletedAt)
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
            let link = find_social_link(state, principal, id).await?;
            if !link.is_deleted {
                return Err(ApiError::new(ErrorCode::TrashAlreadyRestored, "the item is not in the trash"));
            }
            let site_id = link.site_id;
            let mut row: social_link::ActiveModel = link.into();
            row.is_deleted = Set(false);
            row.deleted_at = Set(None);
            let txn = crate::db::begin_write(&state.db).await?;
            let restored = row.update(&txn).await?;
            let actor = principal.actor_id();
            let entry = AuditEntry {
                actor: &actor,
                action: Action::Restore,
                entity_type: "social",
                entity_id: id.to_string(),
                site_id: Some(site_id),
            };
            audit::record(&txn, state.clock.now(), entry, &json!({"is_deleted": true}), &json!({"is_deleted": false}))
                .await?;
            txn.commit().await?;
            serde_json::to_value(SocialLinkResponse::from(&restored))
                .map_err(|e| ApiError::internal(format!("restored link: {e}")))
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
            let link = find_social_link(state, principal, id).await?;
            if !link.is_deleted {
                return Err(ApiError::new(
                    ErrorCode::TrashNotDeleted,
                    "only items in the trash can be deleted for good; delete it first",
                ));
            }
            let txn = crate::db::begin_write(&state.db).await?;
            social_link::Entity::delete_by_id(id).exec(&txn).await?;
            let actor = principal.actor_id();
            let entry = AuditEntry {
                actor: &actor,
                action: Action::Purge,
                entity_type: "social",
                entity_id: id.to_string(),
                site_id: Some(link.site_id),
            };
            audit::record(&txn, state.clock.now(), entry, &json!({"label": link.label, "url": link.url}), &()).await?;
            txn.commit().await?;
            Ok(())
        })
    }
}
