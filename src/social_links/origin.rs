//! Social links at the paths the origin service's admin calls
//! (`/sites/{id}/social`, `/social/{id}`), with its reordering. Each answers
//! what Plinth's own path answers and goes through the same service, so the
//! checks, audit entries and cache drops are theirs.

use actix_web::web;
use actix_web::HttpResponse;
use uuid::Uuid;

use super::{service, CreateSocialLink, ReorderSocialLinks, SocialLinkResponse, UpdateSocialLink};
use crate::auth::{Capability, Principal};
use crate::error::{ApiResult, Problem};
use crate::site_rows;
use crate::state::AppState;

/// List a site's social links (the origin service's path)
///
/// `GET /sites/{site_id}/social-links` under the origin admin's path. Read role or higher on the site.
#[utoipa::path(get, path = "/sites/{site_id}/social", tag = "Social links", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<SocialLinkResponse>, description = "Ordered by display_order")))]
pub async fn list_site_social(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    super::list_social_links(state, principal, site_id).await
}

/// Create a social link (the origin service's path)
///
/// `POST /sites/{site_id}/social-links` under the origin admin's path, with its body
/// (`title`, `icon`, `alt_text`, `display_order`, `site_id`). Editor role or higher on the site.
#[utoipa::path(
    post,
    path = "/sites/{site_id}/social",
    tag = "Social links",
    params(("site_id" = Uuid, Path)),
    request_body = CreateSocialLink,
    responses((status = 201, body = SocialLinkResponse), (status = "4XX", body = Problem, description = "VALIDATION_ERROR"))
)]
pub async fn create_site_social(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<CreateSocialLink>,
) -> ApiResult<HttpResponse> {
    super::create_social_link(state, principal, site_id, body).await
}

/// Get a social link
///
/// Read role or higher on the link's site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/social/{id}", tag = "Social links", params(("id" = Uuid, Path)),
    responses((status = 200, body = SocialLinkResponse), (status = "4XX", body = Problem, description = "ENTITY_NOT_FOUND")))]
pub async fn get_social(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let link: plinth_entities::social_link::Model =
        site_rows::find(&state, &principal, id.into_inner(), Capability::Read).await?;
    Ok(HttpResponse::Ok().json(SocialLinkResponse::from(&link)))
}

/// Change a social link (the origin service's path)
///
/// `PUT /social-links/{id}` under the origin admin's path. Editor role or higher on the link's site.
#[utoipa::path(
    put,
    path = "/social/{id}",
    tag = "Social links",
    params(("id" = Uuid, Path)),
    request_body = UpdateSocialLink,
    responses((status = 200, body = SocialLinkResponse), (status = "4XX", body = Problem, description = "ENTITY_NOT_FOUND, VALIDATION_ERROR"))
)]
pub async fn update_social(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateSocialLink>,
) -> ApiResult<HttpResponse> {
    super::update_social_link(state, principal, id, body).await
}

/// Delete a social link (the origin service's path)
///
/// `DELETE /social-links/{id}` under the origin admin's path: to the trash. Editor role or higher.
#[utoipa::path(delete, path = "/social/{id}", tag = "Social links", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Moved to the trash"), (status = "4XX", body = Problem, description = "ENTITY_NOT_FOUND")))]
pub async fn delete_social(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    super::delete_social_link(state, principal, id).await
}

/// Reorder a site's social links
///
/// Editor role or higher on the site. Each named link takes its new
/// `display_order`; the others keep theirs. All or nothing: a link not live on
/// the site is ENTITY_NOT_FOUND and none moves. Errors: VALIDATION_ERROR (more
/// than 1,000 items, a link named twice).
#[utoipa::path(
    post,
    path = "/sites/{site_id}/social/reorder",
    tag = "Social links",
    params(("site_id" = Uuid, Path)),
    request_body = ReorderSocialLinks,
    responses((status = 204, description = "Reordered"), (status = "4XX", body = Problem, description = "ENTITY_NOT_FOUND, VALIDATION_ERROR"))
)]
pub async fn reorder_social(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<ReorderSocialLinks>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::EditAnyContent).await?;
    let now = state.clock.now();
    service::reorder(&state, &principal.actor(), now, site_id, body.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}
