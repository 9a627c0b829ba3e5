//! The trash: soft-deleted items of a site across entity types, restore and
//! permanent delete.

use actix_web::web::{self, delete, get, post, resource};
use actix_web::HttpResponse;
use chrono::{DateTime, Utc};
use plinth_entities::{content, content_site};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect,
};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::app::AppState;
use crate::audit::{self, Action, AuditEntry};
use crate::auth::{Capability, Principal};
use crate::content::{read, write, ContentKind};
use crate::error::{ApiError, ApiResult, ErrorCode, Problem};
use crate::pagination::MAX_PER_PAGE;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(resource("/sites/{site_id}/trash").route(get().to(list_trash)))
        .service(resource("/sites/{site_id}/trash/count").route(get().to(count_trash)))
        .service(resource("/trash/{id}/restore").route(post().to(restore_from_trash)))
        .service(resource("/trash/{id}").route(delete().to(delete_from_trash)));
}

/// Every `entity_type` the trash knows. Kinds not built yet have no items, so
/// their ids are simply not found.
const ENTITY_TYPES: [&str; 11] =
    ["blog", "page", "project", "cv_entry", "skill", "media", "document", "legal", "social", "menu", "menu_item"];

fn content_kind(entity_type: &str) -> ApiResult<Option<ContentKind>> {
    if !ENTITY_TYPES.contains(&entity_type) {
        return Err(ApiError::new(
            ErrorCode::ContentUnknownEntityType,
            format!("unknown entity_type '{entity_type}'; expected one of {}", ENTITY_TYPES.join(", ")),
        ));
    }
    Ok(ContentKind::parse(entity_type))
}

#[derive(Serialize, ToSchema)]
pub struct TrashItem {
    pub id: Uuid,
    pub entity_type: String,
    pub title: String,
    pub slug: String,
    pub deleted_at: Option<DateTime<Utc>>,
}

#[derive(Serialize, ToSchema)]
pub struct TrashPage {
    pub items: Vec<TrashItem>,
    /// All soft-deleted items of the site, across entity types.
    pub total: u64,
}

#[derive(Serialize, ToSchema)]
pub struct TrashCount {
    pub count: u64,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TrashQuery {
    /// From 1 (default 1).
    pub page: Option<u64>,
    /// Default 10, at most 100.
    pub page_size: Option<u64>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EntityTypeQuery {
    /// blog, page, project, cv_entry, skill, media, document, legal, social, menu, menu_item
    pub entity_type: String,
}

/// Soft-deleted content of the site (every kind of the content engine).
fn trashed_on(site_id: Uuid) -> sea_orm::Select<content::Entity> {
    read::on_site_only(content::Entity::find().filter(content::Column::IsDeleted.eq(true)), site_id)
}

#[utoipa::path(get, path = "/sites/{site_id}/trash", tag = "Trash", params(("site_id" = Uuid, Path), TrashQuery),
    responses((status = 200, body = TrashPage, description = "Newest-deleted first"), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn list_trash(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<TrashQuery>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    let page = query.page.unwrap_or(1).max(1);
    let size = query.page_size.unwrap_or(10).clamp(1, MAX_PER_PAGE);
    let total = trashed_on(site_id).count(&state.db).await?;
    let items = trashed_on(site_id)
        .order_by_desc(content::Column::DeletedAt)
        .order_by_asc(content::Column::Id)
        .offset((page - 1) * size)
        .limit(size)
        .all(&state.db)
        .await?
        .into_iter()
        .map(|m| TrashItem { id: m.id, entity_type: m.kind, title: m.title, slug: m.slug, deleted_at: m.deleted_at })
        .collect();
    Ok(HttpResponse::Ok().json(TrashPage { items, total }))
}

#[utoipa::path(get, path = "/sites/{site_id}/trash/count", tag = "Trash", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = TrashCount), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn count_trash(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    Ok(HttpResponse::Ok().json(TrashCount { count: trashed_on(site_id).count(&state.db).await? }))
}

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

#[utoipa::path(post, path = "/trash/{id}/restore", tag = "Trash", params(("id" = Uuid, Path), EntityTypeQuery),
    responses((status = 200, body = crate::content::model::ContentResponse, description = "The restored item"),
        (status = "4XX", body = Problem, description = "TRASH_ALREADY_RESTORED, CONTENT_UNKNOWN_ENTITY_TYPE")),
    security(("api_key" = []), ("bearer" = [])))]
pub async fn restore_from_trash(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    query: web::Query<EntityTypeQuery>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let kind = content_kind(&query.entity_type)?;
    let (item, sites) = find_item(&state, &principal, kind, id, &query.entity_type).await?;
    if !item.is_deleted {
        return Err(ApiError::new(ErrorCode::TrashAlreadyRestored, "the item is not in the trash"));
    }
    let txn = crate::db::begin_write(&state.db).await?;
    let kind = kind.ok_or_else(|| ApiError::internal("restored a kind without content"))?;
    let mut row: content::ActiveModel = item.into();
    row.is_deleted = Set(false);
    row.deleted_at = Set(None);
    let restored_row = row.update(&txn).await?;
    let actor = principal.actor_id();
    let entry = AuditEntry {
        actor: &actor,
        action: Action::Restore,
        entity_type: &query.entity_type,
        entity_id: id.to_string(),
        site_id: sites.first().copied(),
    };
    audit::record(&txn, entry, &json!({"is_deleted": true}), &json!({"is_deleted": false})).await?;
    let announced = read::response_of(&txn, &restored_row).await?;
    write::commit_with_events(&state, txn, write::events_for(kind, "updated", &announced)).await?;
    Ok(HttpResponse::Ok().json(announced))
}

#[utoipa::path(delete, path = "/trash/{id}", tag = "Trash", params(("id" = Uuid, Path), EntityTypeQuery),
    responses((status = 204, description = "Removed for good"), (status = "4XX", body = Problem, description = "TRASH_NOT_DELETED, CONTENT_UNKNOWN_ENTITY_TYPE")),
    security(("api_key" = []), ("bearer" = [])))]
pub async fn delete_from_trash(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    query: web::Query<EntityTypeQuery>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let kind = content_kind(&query.entity_type)?;
    let (item, sites) = find_item(&state, &principal, kind, id, &query.entity_type).await?;
    if !item.is_deleted {
        return Err(ApiError::new(
            ErrorCode::TrashNotDeleted,
            "only items in the trash can be deleted for good; delete it first",
        ));
    }
    let txn = crate::db::begin_write(&state.db).await?;
    // Sites, localizations and taxonomy links cascade with the row.
    content::Entity::delete_by_id(id).exec(&txn).await?;
    let actor = principal.actor_id();
    let entry = AuditEntry {
        actor: &actor,
        action: Action::Purge,
        entity_type: &query.entity_type,
        entity_id: id.to_string(),
        site_id: sites.first().copied(),
    };
    audit::record(&txn, entry, &json!({"title": item.title, "slug": item.slug}), &()).await?;
    txn.commit().await?;
    Ok(HttpResponse::NoContent().finish())
}
