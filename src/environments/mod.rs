//! Environments: a site's deployment targets (`production` by default, `staging`),
//! each with a base URL that content preview links are built on.

mod model;
mod service;

pub use model::*;
pub use service::seed;

use actix_web::web::{self};
use actix_web::HttpResponse;
use uuid::Uuid;

use crate::auth::{Capability, Principal};
use crate::error::{ApiResult, Problem};
use crate::routes::Routes;
use crate::site_rows;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_environments, create_environment, get_default_environment, update_environment,
        delete_environment, list_my_environments]);
}

/// List the environments of every site the caller may see
///
/// The origin service's admin's system overview: a key's site, a user's sites, every site for an unscoped key or a
/// system admin; by site, then name; at most 500.
#[utoipa::path(get, path = "/environments", tag = "Environments",
    responses((status = 200, body = Vec<EnvironmentResponse>)))]
pub async fn list_my_environments(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(service::list_visible(&state, &principal.visibility()).await?))
}

/// List a site's environments
///
/// Read role or higher on the site.
#[utoipa::path(get, path = "/sites/{site_id}/environments", tag = "Environments", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<EnvironmentResponse>)))]
pub async fn list_environments(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    Ok(HttpResponse::Ok().json(service::list(&state, site_id).await?))
}

/// Show a site's default environment
///
/// Read role or higher on the site. Errors: ENVIRONMENT_NO_DEFAULT.
#[utoipa::path(
    get,
    path = "/sites/{site_id}/environments/default",
    tag = "Environments",
    params(("site_id" = Uuid, Path)),
    responses(
        (status = 200, body = EnvironmentResponse),
        (status = 404, body = Problem, description = "ENVIRONMENT_NO_DEFAULT")
    )
)]
pub async fn get_default_environment(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    Ok(HttpResponse::Ok().json(service::require_default(&state, site_id).await?))
}

/// Create an environment
///
/// Admin role or higher on the site. Errors: CONFLICT, VALIDATION_ERROR.
#[utoipa::path(
    post,
    path = "/sites/{site_id}/environments",
    tag = "Environments",
    params(("site_id" = Uuid, Path)),
    request_body = CreateEnvironment,
    responses((status = 201, body = EnvironmentResponse))
)]
pub async fn create_environment(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<CreateEnvironment>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    let now = state.clock.now();
    let created = service::create(&state, &principal.actor(), now, site_id, body.into_inner()).await?;
    Ok(HttpResponse::Created().json(created))
}

/// Change an environment
///
/// Admin role or higher on the environment's site. Errors: ENTITY_NOT_FOUND, CONFLICT.
#[utoipa::path(
    put,
    path = "/environments/{id}",
    tag = "Environments",
    params(("id" = Uuid, Path)),
    request_body = UpdateEnvironment,
    responses((status = 200, body = EnvironmentResponse))
)]
pub async fn update_environment(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateEnvironment>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = site_rows::find(&state, &principal, id.into_inner(), Capability::AdministerSite).await?;
    let updated = service::update(&state, &principal.actor(), now, current, body.into_inner()).await?;
    Ok(HttpResponse::Ok().json(updated))
}

/// Delete an environment
///
/// Admin role or higher on the environment's site. Errors: ENTITY_NOT_FOUND, CONFLICT.
#[utoipa::path(
    delete,
    path = "/environments/{id}",
    tag = "Environments",
    params(("id" = Uuid, Path)),
    responses(
        (status = 204, description = "Removed; removing the default leaves the site without one until another is made default")
    )
)]
pub async fn delete_environment(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = site_rows::find(&state, &principal, id.into_inner(), Capability::AdministerSite).await?;
    service::delete(&state, &principal.actor(), now, current).await?;
    Ok(HttpResponse::NoContent().finish())
}
