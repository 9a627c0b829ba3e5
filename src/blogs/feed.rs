//! `GET /sites/{site_id}/feed.rss`: RSS 2.0 of the last 50 published posts,
//! built once and kept in the site's cache for an hour (dropped on any change).

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::service;
use crate::auth::Principal;
use crate::content::queries::LocaleQuery;
use crate::content::{access, ContentKind};
use crate::error::ApiResult;
use crate::state::AppState;

/// Read a site's RSS feed
///
/// Read role or higher on the site. RSS 2.0 of the last 50 published posts, cached for an hour; with `locale`, in that
/// locale (titles with its fallback, links under its path prefix). Errors: MODULE_NOT_ENABLED, VALIDATION_INVALID_FORMAT.
#[utoipa::path(
    get,
    path = "/sites/{site_id}/feed.rss",
    tag = "Blogs",
    params(("site_id" = Uuid, Path), LocaleQuery),
    responses(
        (status = 200, content_type = "application/rss+xml", body = String, description = "RSS 2.0, the last 50 published posts; cached for an hour")
    )
)]
pub async fn blog_feed(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    locale: web::Query<LocaleQuery>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    access::site_read(&state, &principal, ContentKind::Blog, site_id).await?;
    let feed = service::feed(&state, site_id, &locale).await?;
    Ok(HttpResponse::Ok()
        .content_type(feed.content_type)
        .insert_header(("Cache-Control", "public, max-age=3600"))
        .body(feed.body.clone()))
}
