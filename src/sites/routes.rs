//! Site endpoints.

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::model::{CreateSite, SiteContext, SiteResponse, UpdateSite};
use super::{access, service};
use crate::auth::{Capability, Principal};
use crate::error::{ApiResult, Problem};
use crate::state::AppState;

/// List the sites the caller can see
///
/// Any authenticated caller: JWT users see their membership sites (system admins all), keys the sites in their scope.
#[utoipa::path(
    get,
    path = "/sites",
    tag = "Sites",
    responses(
        (status = 200, body = Vec<SiteResponse>, description = "Sites the caller may see: a key's scope, a user's memberships, all for system admins")
    )
)]
pub async fn list_sites(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let sites = service::visible(&state, &principal.visibility(), false).await?;
    Ok(HttpResponse::Ok().json(sites.iter().map(SiteResponse::active).collect::<Vec<_>>()))
}

/// List deleted sites
///
/// Any authenticated caller; only the sites the caller may access, each with `deleted_at`.
#[utoipa::path(
    get,
    path = "/sites/deleted",
    tag = "Sites",
    responses(
        (status = 200, body = Vec<SiteResponse>, description = "Soft-deleted sites the caller may see, each with deleted_at")
    )
)]
pub async fn list_deleted_sites(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let sites = service::visible(&state, &principal.visibility(), true).await?;
    Ok(HttpResponse::Ok().json(sites.iter().map(SiteResponse::deleted).collect::<Vec<_>>()))
}

/// Create a site
///
/// An API key with Admin permission that is not site-scoped, or any JWT user (who becomes owner). The optional
/// `locales` must name exactly one default locale and no locale twice (else SITE_CREATE_INVALID_LOCALES); without
/// `locales` the site gets `en` as its default. Errors:
/// SITE_CREATE_SCOPED_KEY, SITE_CREATE_REQUIRES_ADMIN, SITE_CREATE_INVALID_LOCALES, ENTITY_SLUG_TAKEN,
/// VALIDATION_REQUIRED_FIELD, VALIDATION_INVALID_FORMAT, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(
    post,
    path = "/sites",
    tag = "Sites",
    request_body = CreateSite,
    responses(
        (status = 201, body = SiteResponse),
        (status = "4XX", body = crate::error::Problem, description = "SITE_CREATE_SCOPED_KEY, SITE_CREATE_REQUIRES_ADMIN, SITE_CREATE_INVALID_LOCALES, ENTITY_SLUG_TAKEN, VALIDATION_ERROR")
    )
)]
pub async fn create_site(
    state: web::Data<AppState>,
    principal: Principal,
    body: crate::body::Json<CreateSite>,
) -> ApiResult<HttpResponse> {
    let creator = access::creator(&principal)?;
    let created = service::create(&state.db, state.clock.now(), &creator, body.into_inner()).await?;
    Ok(HttpResponse::Created().json(SiteResponse::active(&created)))
}

/// Show a site
///
/// Read role or higher on the site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/sites/{id}", tag = "Sites", params(("id" = Uuid, Path)),
    responses((status = 200, body = SiteResponse)))]
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

/// Find a site by slug
///
/// Read role or higher on the site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/sites/by-slug/{slug}", tag = "Sites", params(("slug" = String, Path)),
    responses((status = 200, body = SiteResponse)))]
pub async fn get_site_by_slug(
    state: web::Data<AppState>,
    principal: Principal,
    slug: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let slug = slug.into_inner();
    // The remembered slug and the cached site, as public paths find it: no
    // query once the slug is known.
    let found = state.live_site_by_slug(&slug).await?;
    principal.require(&state, found.site.id, Capability::Read).await?;
    Ok(HttpResponse::Ok().json(SiteResponse::active(&found.site)))
}

/// Change a site
///
/// Admin role or higher on the site. Only the fields sent change. Errors: ENTITY_SLUG_TAKEN, VALIDATION_INVALID_FORMAT,
/// VALIDATION_OUT_OF_RANGE.
#[utoipa::path(put, path = "/sites/{id}", tag = "Sites", params(("id" = Uuid, Path)), request_body = UpdateSite,
    responses((status = 200, body = SiteResponse)))]
pub async fn update_site(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateSite>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    principal.require(&state, id, Capability::AdministerSite).await?;
    let updated = service::update(&state.db, state.clock.now(), &principal.actor(), id, body.into_inner()).await?;
    Ok(HttpResponse::Ok().json(SiteResponse::active(&updated)))
}

/// Delete a site
///
/// Owner role on the site. Restorable for 30 days.
#[utoipa::path(delete, path = "/sites/{id}", tag = "Sites", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Soft-deleted; restorable for 30 days")))]
pub async fn delete_site(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    principal.require(&state, id, Capability::OwnSite).await?;
    service::soft_delete(&state.db, &principal.actor(), id, state.clock.now()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Restore a deleted site
///
/// Owner role on the site (system admins any). Errors: ENTITY_NOT_FOUND, SITE_RESTORE_EXPIRED.
#[utoipa::path(
    post,
    path = "/sites/{id}/restore",
    tag = "Sites",
    params(("id" = Uuid, Path)),
    responses(
        (status = 200, body = SiteResponse, description = "Restored with its content, settings, members and locales"),
        (status = 404, body = Problem, description = "No deleted site with this id"),
        (status = 410, body = Problem, description = "SITE_RESTORE_EXPIRED: deleted more than 30 days ago")
    )
)]
pub async fn restore_site(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    principal.require(&state, id, Capability::OwnSite).await?;
    let restored = service::restore(&state.db, &principal.actor(), id, state.clock.now()).await?;
    Ok(HttpResponse::Ok().json(SiteResponse::active(&restored)))
}

/// Show a site's context for the caller
///
/// Read role or higher on the site: member count, the caller's role, features and modules.
#[utoipa::path(get, path = "/sites/{id}/context", tag = "Sites", params(("id" = Uuid, Path)),
    responses((status = 200, body = SiteContext)))]
pub async fn site_context(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let role = principal.require(&state, id, Capability::Read).await?.role();
    Ok(HttpResponse::Ok().json(service::context(&state, id, role).await?))
}
