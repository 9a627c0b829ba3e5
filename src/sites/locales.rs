//! Locales assigned to a site: add, update, remove (never the last), set default.

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::model::{SiteLocaleInput, UpdateSiteLocale};
use super::service::locales as service;
use crate::auth::{Capability, Principal};
use crate::error::ApiResult;
use crate::state::AppState;

pub use crate::state::SiteLocaleResponse;

/// List a site's locales
///
/// Read role or higher on the site.
#[utoipa::path(get, path = "/sites/{site_id}/locales", tag = "Site locales",
    params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<SiteLocaleResponse>)))]
pub async fn list_site_locales(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    Ok(HttpResponse::Ok().json(&state.site_state(site_id).await?.locales))
}

/// Add a locale to a site
///
/// Admin role or higher on the site. Errors: ENTITY_NOT_FOUND (locale), CONFLICT (already assigned),
/// VALIDATION_INVALID_FORMAT.
#[utoipa::path(post, path = "/sites/{site_id}/locales", tag = "Site locales",
    params(("site_id" = Uuid, Path)), request_body = SiteLocaleInput,
    responses((status = 201, body = SiteLocaleResponse)))]
pub async fn add_site_locale(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<SiteLocaleInput>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    let added = service::add(&state, &principal.actor(), now, site_id, body.into_inner()).await?;
    Ok(HttpResponse::Created().json(added))
}

/// Change a site's locale
///
/// Admin role or higher on the site. Errors: ENTITY_NOT_FOUND, VALIDATION_INVALID_FORMAT.
#[utoipa::path(put, path = "/sites/{site_id}/locales/{locale_id}", tag = "Site locales",
    params(("site_id" = Uuid, Path), ("locale_id" = Uuid, Path)), request_body = UpdateSiteLocale,
    responses((status = 200, body = SiteLocaleResponse)))]
pub async fn update_site_locale(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, Uuid)>,
    body: crate::body::Json<UpdateSiteLocale>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let (site_id, locale_id) = path.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    let updated = service::update(&state, &principal.actor(), now, (site_id, locale_id), body.into_inner()).await?;
    Ok(HttpResponse::Ok().json(updated))
}

/// Remove a locale from a site
///
/// Admin role or higher on the site. Errors: ENTITY_NOT_FOUND, SITE_LOCALE_LAST_LANGUAGE.
#[utoipa::path(
    delete,
    path = "/sites/{site_id}/locales/{locale_id}",
    tag = "Site locales",
    params(("site_id" = Uuid, Path), ("locale_id" = Uuid, Path)),
    responses(
        (status = 204, description = "Removed; when it was the default, the oldest remaining locale becomes the default"),
        (status = 409, body = crate::error::Problem, description = "SITE_LOCALE_LAST_LANGUAGE")
    )
)]
pub async fn delete_site_locale(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, Uuid)>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let (site_id, locale_id) = path.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    service::remove(&state, &principal.actor(), now, (site_id, locale_id)).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Make a locale the site's default
///
/// Admin role or higher on the site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(put, path = "/sites/{site_id}/locales/{locale_id}/default", tag = "Site locales",
    params(("site_id" = Uuid, Path), ("locale_id" = Uuid, Path)),
    responses((status = 200, body = SiteLocaleResponse)))]
pub async fn set_default_site_locale(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, Uuid)>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let (site_id, locale_id) = path.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    let updated = service::set_default(&state, &principal.actor(), now, (site_id, locale_id)).await?;
    Ok(HttpResponse::Ok().json(updated))
}
