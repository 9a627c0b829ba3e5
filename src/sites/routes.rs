//! Site endpoints.

use actix_web::{web, HttpResponse};
use plinth_entities::site;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

use super::model::{CreateSite, SiteResponse, UpdateSite};
use super::service;
use crate::app::AppState;
use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult};

/// Sites the caller may see, live or deleted.
async fn visible_sites(state: &AppState, principal: &Principal, deleted: bool) -> ApiResult<Vec<site::Model>> {
    let mut query = site::Entity::find().order_by_asc(site::Column::CreatedAt).order_by_asc(site::Column::Id);
    query = if deleted {
        query.filter(site::Column::DeletedAt.is_not_null())
    } else {
        query.filter(site::Column::DeletedAt.is_null())
    };
    if let Some(ids) = principal.visible_site_ids(state).await? {
        query = query.filter(site::Column::Id.is_in(ids));
    }
    Ok(query.all(&state.db).await?)
}

#[utoipa::path(get, path = "/sites", tag = "Sites",
    responses((status = 200, body = Vec<SiteResponse>, description = "Sites the caller may see: a key's scope, a user's memberships, all for system admins"),
        (status = "4XX", body = crate::error::Problem)),
    security(("api_key" = []), ("bearer" = [])))]
pub async fn list_sites(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let sites = visible_sites(&state, &principal, false).await?;
    Ok(HttpResponse::Ok().json(sites.iter().map(SiteResponse::active).collect::<Vec<_>>()))
}

#[utoipa::path(get, path = "/sites/deleted", tag = "Sites",
    responses((status = 200, body = Vec<SiteResponse>, description = "Soft-deleted sites the caller may see, each with deleted_at"),
        (status = "4XX", body = crate::error::Problem)),
    security(("api_key" = []), ("bearer" = [])))]
pub async fn list_deleted_sites(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let sites = visible_sites(&state, &principal, true).await?;
    Ok(HttpResponse::Ok().json(sites.iter().map(SiteResponse::deleted).collect::<Vec<_>>()))
}

#[utoipa::path(post, path = "/sites", tag = "Sites", request_body = CreateSite,
    responses((status = 201, body = SiteResponse), (status = "4XX", body = crate::error::Problem,
        description = "SITE_CREATE_SCOPED_KEY, SITE_CREATE_REQUIRES_ADMIN, SITE_CREATE_INVALID_LOCALES, ENTITY_SLUG_TAKEN, VALIDATION_ERROR")),
    security(("api_key" = []), ("bearer" = [])))]
pub async fn create_site(
    state: web::Data<AppState>,
    principal: Principal,
    body: web::Json<CreateSite>,
) -> ApiResult<HttpResponse> {
    let created = service::create(&state.db, &principal, body.into_inner()).await?;
    Ok(HttpResponse::Created().json(SiteResponse::active(&created)))
}

#[utoipa::path(get, path = "/sites/{id}", tag = "Sites", params(("id" = Uuid, Path)),
    responses((status = 200, body = SiteResponse), (status = "4XX", body = crate::error::Problem)),
    security(("api_key" = []), ("bearer" = [])))]
pub async fn get_site(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    principal.require(&state, id, Capability::Read).await?;
    let site = state.site_state(id).await?;
    Ok(HttpResponse::Ok().json(SiteResponse::active(&site.site)))
}

#[utoipa::path(get, path = "/sites/by-slug/{slug}", tag = "Sites", params(("slug" = String, Path)),
    responses((status = 200, body = SiteResponse), (status = "4XX", body = crate::error::Problem)),
    security(("api_key" = []), ("bearer" = [])))]
pub async fn get_site_by_slug(
    state: web::Data<AppState>,
    principal: Principal,
    slug: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let slug = slug.into_inner();
    let found = site::Entity::find()
        .filter(site::Column::Slug.eq(slug.as_str()))
        .filter(site::Column::DeletedAt.is_null())
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found("site", &slug))?;
    principal.require(&state, found.id, Capability::Read).await?;
    Ok(HttpResponse::Ok().json(SiteResponse::active(&found)))
}

#[utoipa::path(put, path = "/sites/{id}", tag = "Sites", params(("id" = Uuid, Path)), request_body = UpdateSite,
    responses((status = 200, body = SiteResponse), (status = "4XX", body = crate::error::Problem)),
    security(("api_key" = []), ("bearer" = [])))]
pub async fn update_site(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: web::Json<UpdateSite>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    principal.require(&state, id, Capability::AdministerSite).await?;
    let updated = service::update(&state.db, &principal.actor_id(), id, body.into_inner()).await?;
    state.invalidate_site(id);
    Ok(HttpResponse::Ok().json(SiteResponse::active(&updated)))
}

#[utoipa::path(delete, path = "/sites/{id}", tag = "Sites", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Soft-deleted; restorable for 30 days"), (status = "4XX", body = crate::error::Problem)),
    security(("api_key" = []), ("bearer" = [])))]
pub async fn delete_site(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    principal.require(&state, id, Capability::OwnSite).await?;
    service::soft_delete(&state.db, &principal.actor_id(), id).await?;
    state.invalidate_site(id);
    Ok(HttpResponse::NoContent().finish())
}
