//! A site's favicon package, generated from one picture and kept outside the
//! media library.

pub mod service;

use actix_multipart::Multipart;
use actix_web::web::{self};
use actix_web::HttpResponse;
use uuid::Uuid;

use crate::auth::{Capability, Principal};
use crate::error::{ApiResult, Problem};
use crate::media::model::{FaviconPackage, UploadFaviconForm};
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [generate_favicon, get_favicon]);
}

/// Generate a site's favicons
///
/// Admin role or higher on the site. Multipart `file` (PNG, JPEG, GIF or WebP). Errors: MEDIA_UPLOAD_NO_DATA,
/// MEDIA_UPLOAD_EMPTY, MEDIA_UPLOAD_INVALID_TYPE, MEDIA_UPLOAD_TOO_LARGE, STORAGE_ERROR.
#[utoipa::path(
    post,
    path = "/sites/{site_id}/favicon",
    tag = "Media",
    params(("site_id" = Uuid, Path)),
    request_body(content = UploadFaviconForm, content_type = "multipart/form-data"),
    responses(
        (status = 200, body = FaviconPackage, description = "favicon.ico (16, 32, 48), 16 and 32 PNGs, apple-touch 180, android-chrome 192 and 512; the site's favicon_url becomes the 32x32 PNG"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "MEDIA_UPLOAD_NO_DATA, MEDIA_UPLOAD_EMPTY, MEDIA_UPLOAD_INVALID_TYPE (PNG, JPEG, GIF or WebP only), MEDIA_UPLOAD_TOO_LARGE (10 MB)"),
        (status = 503, body = Problem, content_type = "application/problem+json", description = "Every image worker busy; Retry-After says when to try again")
    )
)]
pub async fn generate_favicon(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    multipart: Multipart,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    let source = service::read_source(multipart).await?;
    Ok(HttpResponse::Ok().json(service::generate(&state, &principal.actor(), site_id, source).await?))
}

/// Show a site's favicon package
///
/// Read role or higher on the site. Errors: RESOURCE_NOT_FOUND (none generated).
#[utoipa::path(get, path = "/sites/{site_id}/favicon", tag = "Media", params(("site_id" = Uuid, Path)),
    responses(
        (status = 200, body = FaviconPackage),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "None generated yet")
    ))]
pub async fn get_favicon(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    Ok(HttpResponse::Ok().json(service::get(&state, site_id).await?))
}
