//! Public site files, no authentication. `sitemap.xml` lists the published
//! pages, posts and legal documents of a site, built once into the site's cache
//! (dropped on any content change) and served with `max-age=3600`.

mod service;

pub use service::{sitemap_entries, SitemapEntry};

use actix_web::web::{self};
use actix_web::HttpResponse;

use crate::error::{ApiResult, Problem};
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [sitemap]);
}

#[utoipa::path(
    get,
    path = "/sites/{slug}/sitemap.xml",
    tag = "Public site files",
    params(("slug" = String, Path)),
    responses(
        (status = 200, content_type = "application/xml", body = String, description = "Published pages (0.8, monthly), posts (0.6, weekly) and legal documents (0.4, yearly); Cache-Control: public, max-age=3600"),
        (status = 404, body = Problem, description = "Unknown site, or no Site URL (base_url) set")
    ),
    security(())
)]
pub async fn sitemap(state: web::Data<AppState>, slug: web::Path<String>) -> ApiResult<HttpResponse> {
    let body = service::sitemap(&state, &slug).await?;
    Ok(HttpResponse::Ok()
        .content_type(body.content_type)
        .insert_header(("Cache-Control", "public, max-age=3600"))
        .body(body.body.clone()))
}
