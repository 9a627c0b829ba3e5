//! Public site files, no authentication. `sitemap.xml` lists the published
//! pages, posts and legal documents of a site, built once into the site's cache
//! (dropped on any content change) and served with `max-age=3600`.

mod service;
mod site_files;

pub use service::{sitemap_entries, SitemapEntry};

use actix_web::web::{self};
use actix_web::{HttpRequest, HttpResponse};
use site_files::SiteFile;

use crate::state::CachedBody;

use crate::error::{ApiResult, Problem};
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, public: self => [sitemap, sitemap_child, robots_txt, web_manifest, browserconfig]);
}

/// A built public file: `max-age=3600`, its ETag, 304 when the caller holds it.
fn respond(request: &HttpRequest, file: &CachedBody) -> HttpResponse {
    let held = crate::http_cache::holds(request.headers(), &file.etag);
    let mut response = if held { HttpResponse::NotModified() } else { HttpResponse::Ok() };
    response.insert_header(("Cache-Control", "public, max-age=3600")).insert_header(("ETag", file.etag.clone()));
    if held {
        response.finish()
    } else {
        response.content_type(file.content_type).body(file.body.clone())
    }
}

/// Read a site's sitemap
///
/// Public. Only published content; cached for an hour. Errors: RESOURCE_NOT_FOUND (unknown site, or no Site URL set).
#[utoipa::path(
    get,
    path = "/sites/{slug}/sitemap.xml",
    tag = "Public site files",
    params(("slug" = String, Path)),
    responses(
        (status = 200, content_type = "application/xml", body = String, description = "Published pages (0.8, monthly), posts (0.6, weekly) and legal documents (0.4, yearly); past 50,000 URLs (or 50 MB) a sitemap index of `sitemap-{n}.xml` files; Cache-Control: public, max-age=3600"),
        (status = 404, body = Problem, description = "Unknown site, or no Site URL (base_url) set")
    ),
    security(())
)]
pub async fn sitemap(
    state: web::Data<AppState>,
    request: HttpRequest,
    slug: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let file = service::sitemap(&state, &slug).await?;
    Ok(respond(&request, &file))
}

/// Read one part of a site's sitemap
///
/// Public. Errors: RESOURCE_NOT_FOUND.
#[utoipa::path(
    get,
    path = "/sites/{slug}/sitemap-{number}.xml",
    tag = "Public site files",
    params(("slug" = String, Path), ("number" = u64, Path, minimum = 1, description = "From 1, as the sitemap index lists them")),
    responses(
        (status = 200, content_type = "application/xml", body = String, description = "One file of a big site's sitemap index: a slice of one kind, newest first; Cache-Control: public, max-age=3600"),
        (status = 304, description = "The copy held is current"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "Unknown site, no base_url, a number past the index, or a site whose sitemap is one file")
    ),
    security(())
)]
pub async fn sitemap_child(
    state: web::Data<AppState>,
    request: HttpRequest,
    path: web::Path<(String, u64)>,
) -> ApiResult<HttpResponse> {
    let (slug, number) = path.into_inner();
    let file = service::sitemap_child(&state, &slug, number).await?;
    Ok(respond(&request, &file))
}

/// Read a site's robots.txt
///
/// Public. Rendered from the site's `robots_txt_rules`. Errors: RESOURCE_NOT_FOUND.
#[utoipa::path(get, path = "/sites/{slug}/robots.txt", tag = "Public site files", params(("slug" = String, Path)),
    responses(
        (status = 200, content_type = "text/plain", body = String, description = "From robots_txt_rules, with a Sitemap: line when base_url is set; Cache-Control: public, max-age=3600; ETag"),
        (status = 304, description = "The copy held is current"),
        (status = 404, body = Problem, content_type = "application/problem+json")
    ),
    security(()))]
pub async fn robots_txt(
    state: web::Data<AppState>,
    request: HttpRequest,
    slug: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let file = site_files::site_file(&state, &slug, SiteFile::Robots).await?;
    Ok(respond(&request, &file))
}

/// Read a site's web manifest
///
/// Public. Errors: RESOURCE_NOT_FOUND.
#[utoipa::path(get, path = "/sites/{slug}/site.webmanifest", tag = "Public site files", params(("slug" = String, Path)),
    responses(
        (status = 200, content_type = "application/manifest+json", body = Object, description = "name, short_name, icons (after a favicon upload), theme_color, background_color, display"),
        (status = 304, description = "The copy held is current"),
        (status = 404, body = Problem, content_type = "application/problem+json")
    ),
    security(()))]
pub async fn web_manifest(
    state: web::Data<AppState>,
    request: HttpRequest,
    slug: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let file = site_files::site_file(&state, &slug, SiteFile::Manifest).await?;
    Ok(respond(&request, &file))
}

/// Read a site's browserconfig.xml
///
/// Public. Errors: RESOURCE_NOT_FOUND.
#[utoipa::path(get, path = "/sites/{slug}/browserconfig.xml", tag = "Public site files", params(("slug" = String, Path)),
    responses(
        (status = 200, content_type = "application/xml", body = String, description = "The Windows tile: the 192px icon and theme_color"),
        (status = 304, description = "The copy held is current"),
        (status = 404, body = Problem, content_type = "application/problem+json")
    ),
    security(()))]
pub async fn browserconfig(
    state: web::Data<AppState>,
    request: HttpRequest,
    slug: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let file = site_files::site_file(&state, &slug, SiteFile::BrowserConfig).await?;
    Ok(respond(&request, &file))
}
