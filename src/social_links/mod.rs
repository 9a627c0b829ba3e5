//! Social links of a site, ordered by `display_order`. Deleting one moves it to
//! the trash (`entity_type=social`). Served at Plinth's paths (`/social-links`)
//! and at the origin service admin's (`/social`, see [`origin`]).

mod lease;
mod model;
mod origin;
mod service;
pub mod trash;

pub use model::*;

use actix_web::web::{self};
use actix_web::HttpResponse;
use uuid::Uuid;

use crate::auth::{Capability, Principal};
use crate::error::ApiResult;
use crate::routes::Routes;
use crate::site_rows;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_social_links, create_social_link, update_social_link, delete_social_link],
        origin => [list_site_social, create_site_social, get_social, update_social, delete_social, reorder_social],
        lease => [take_social_link_lease, release_social_link_lease]);
}

/// List a site's social links
///
/// Read role or higher on the site.
#[utoipa::path(get, path = "/sites/{site_id}/social-links", tag = "Social links", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<SocialLinkResponse>, description = "Ordered by display_order")))]
pub async fn list_social_links(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    Ok(HttpResponse::Ok().json(service::list(&state, site_id).await?))
}

/// Create a social link
///
/// Editor role or higher on the site. Errors: VALIDATION_ERROR.
#[utoipa::path(
    post,
    path = "/sites/{site_id}/social-links",
    tag = "Social links",
    params(("site_id" = Uuid, Path)),
    request_body = CreateSocialLink,
    responses((status = 201, body = SocialLinkResponse))
)]
pub async fn create_social_link(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<CreateSocialLink>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::EditAnyContent).await?;
    let now = state.clock.now();
    let created = service::create(&state, &principal.actor(), now, site_id, body.into_inner()).await?;
    Ok(HttpResponse::Created().json(created))
}

/// Change a social link
///
/// Editor role or higher on the link's site. Errors: ENTITY_NOT_FOUND, VALIDATION_ERROR.
#[utoipa::path(
    put,
    path = "/social-links/{id}",
    tag = "Social links",
    params(("id" = Uuid, Path)),
    request_body = UpdateSocialLink,
    responses((status = 200, body = SocialLinkResponse))
)]
pub async fn update_social_link(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateSocialLink>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = site_rows::find(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    let updated = service::update(&state, &principal.actor(), now, current, body.into_inner()).await?;
    Ok(HttpResponse::Ok().json(updated))
}

/// Delete a social link
///
/// Editor role or higher on the link's site. Soft delete. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(delete, path = "/social-links/{id}", tag = "Social links", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Moved to the trash")))]
pub async fn delete_social_link(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = site_rows::find(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    service::delete(&state, &principal.actor(), now, current).await?;
    Ok(HttpResponse::NoContent().finish())
}
