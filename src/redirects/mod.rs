//! Redirects of a site: `source_path` → `destination` (a path on the site or an
//! absolute URL) with 301, 302, 307 or 308. A redirect to itself is refused
//! (REDIRECT_SAME_PATH), and so is one that would close a loop through others.

mod lease;
mod model;
mod service;

pub use model::*;

use actix_web::web::{self};
use actix_web::HttpResponse;
use plinth_entities::redirect;
use uuid::Uuid;

use crate::auth::{Capability, Principal};
use crate::error::{ApiResult, Problem};
use crate::pagination::{PageParams, Paginated};
use crate::routes::Routes;
use crate::site_rows;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_redirects, create_redirect, resolve_redirect, get_redirect, update_redirect,
        delete_redirect], lease => [take_redirect_lease, release_redirect_lease]);
}

/// List a site's redirects
///
/// Read role or higher on the site.
#[utoipa::path(
    get,
    path = "/sites/{site_id}/redirects",
    tag = "Redirects",
    params(("site_id" = Uuid, Path), PageParams),
    responses((status = 200, body = Paginated<RedirectResponse>))
)]
pub async fn list_redirects(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    page: web::Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    Ok(HttpResponse::Ok().json(service::list(&state, site_id, page.resolve()).await?))
}

/// Resolve a path through a site's redirects
///
/// Read role or higher on the site. Errors: RESOURCE_NOT_FOUND (no active redirect).
#[utoipa::path(
    get,
    path = "/sites/{site_id}/redirects/resolve",
    tag = "Redirects",
    params(("site_id" = Uuid, Path), ResolveQuery),
    responses(
        (status = 200, body = ResolvedRedirect),
        (status = 404, body = Problem, description = "No active redirect from this path")
    )
)]
pub async fn resolve_redirect(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<ResolveQuery>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    Ok(HttpResponse::Ok().json(service::resolve(&state, site_id, &query.path).await?))
}

/// Show a redirect
///
/// Read role or higher on the redirect's site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/redirects/{id}", tag = "Redirects", params(("id" = Uuid, Path)),
    responses((status = 200, body = RedirectResponse)))]
pub async fn get_redirect(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let found: redirect::Model = site_rows::find(&state, &principal, id.into_inner(), Capability::Read).await?;
    Ok(HttpResponse::Ok().json(RedirectResponse::from(&found)))
}

/// Create a redirect
///
/// Editor role or higher on the site. Errors: REDIRECT_SAME_PATH, CONFLICT (duplicate source or a loop),
/// VALIDATION_INVALID_FORMAT, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(
    post,
    path = "/sites/{site_id}/redirects",
    tag = "Redirects",
    params(("site_id" = Uuid, Path)),
    request_body = CreateRedirect,
    responses(
        (status = 201, body = RedirectResponse),
        (status = "4XX", body = Problem, description = "REDIRECT_SAME_PATH; 409 for a taken source or a loop")
    )
)]
pub async fn create_redirect(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<CreateRedirect>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::EditAnyContent).await?;
    let now = state.clock.now();
    let created = service::create(&state, &principal.actor(), now, site_id, body.into_inner()).await?;
    Ok(HttpResponse::Created().json(created))
}

/// Change a redirect
///
/// Editor role or higher on the redirect's site. Errors: ENTITY_NOT_FOUND, REDIRECT_SAME_PATH, CONFLICT,
/// VALIDATION_INVALID_FORMAT, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(
    put,
    path = "/redirects/{id}",
    tag = "Redirects",
    params(("id" = Uuid, Path)),
    request_body = UpdateRedirect,
    responses((status = 200, body = RedirectResponse))
)]
pub async fn update_redirect(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateRedirect>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = site_rows::find(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    let updated = service::update(&state, &principal.actor(), now, current, body.into_inner()).await?;
    Ok(HttpResponse::Ok().json(updated))
}

/// Delete a redirect
///
/// Editor role or higher on the redirect's site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(delete, path = "/redirects/{id}", tag = "Redirects", params(("id" = Uuid, Path)),
    responses((status = 204)))]
pub async fn delete_redirect(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = site_rows::find(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    service::delete(&state, &principal.actor(), now, current).await?;
    Ok(HttpResponse::NoContent().finish())
}
