//! Sample posts for a fresh site: three Drafts in the site's default locale.

use actix_web::{web, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::service;
use crate::auth::{Capability, Principal};
use crate::content::model::ContentResponse;
use crate::error::{ApiResult, Problem};
use crate::state::AppState;

#[derive(Serialize, ToSchema)]
pub struct DeletedSamples {
    /// How many sample items were deleted.
    pub deleted: u64,
}

/// Create sample posts
///
/// Author role or higher on the site. Three Draft posts. Errors: BLOG_SAMPLE_EXISTS, BLOG_NO_DEFAULT_LOCALE,
/// MODULE_NOT_ENABLED.
#[utoipa::path(post, path = "/sites/{site_id}/blogs/seed", tag = "Blogs", params(("site_id" = Uuid, Path)),
    responses((status = 201, body = Vec<ContentResponse>, description = "Three sample Draft posts"),
        (status = "4XX", body = Problem, description = "BLOG_SAMPLE_EXISTS, BLOG_NO_DEFAULT_LOCALE")))]
pub async fn seed_blogs(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let site_id = site_id.into_inner();
    let site = principal.require(&state, site_id, Capability::CreateContent).await?;
    let created = service::seed(&state, &site, now).await?;
    Ok(HttpResponse::Created().json(created))
}

/// Delete the sample posts
///
/// Editor role or higher on the site. Errors: MODULE_NOT_ENABLED.
#[utoipa::path(delete, path = "/sites/{site_id}/blogs/samples", tag = "Blogs", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = DeletedSamples)))]
pub async fn delete_sample_blogs(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let site_id = site_id.into_inner();
    let site = principal.require(&state, site_id, Capability::EditAnyContent).await?;
    let deleted = service::delete_samples(&state, &site, now).await?;
    Ok(HttpResponse::Ok().json(DeletedSamples { deleted }))
}
