//! Blog endpoints: the content engine's shared endpoints for the `blog` kind,
//! plus what only blogs have (featured, similar, samples).

mod feed;
mod samples;
mod service;

use actix_web::web::{self};
use actix_web::HttpResponse;
use uuid::Uuid;

use crate::auth::Principal;
use crate::content::model::ContentListItem;
use crate::content::queries::{IncludeQuery, LimitQuery, LocaleQuery};
use crate::content::{access, http, read, ContentKind};
use crate::error::ApiResult;
use crate::routes::Routes;
use crate::state::AppState;

const BLOG: ContentKind = ContentKind::Blog;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_featured_blogs], samples => [seed_blogs, delete_sample_blogs], self => [similar_blogs],
        feed => [blog_feed]);
    http::kind_routes(r, BLOG, "blogs");
}

/// List a site's featured posts
///
/// Read role or higher on the site. Errors: MODULE_NOT_ENABLED, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(
    get,
    path = "/sites/{site_id}/blogs/featured",
    tag = "Blogs",
    params(("site_id" = Uuid, Path), LimitQuery, LocaleQuery, IncludeQuery),
    responses(
        (status = 200, body = Vec<ContentListItem>, description = "Featured published posts, newest first; limit default 10, max 100")
    )
)]
pub async fn list_featured_blogs(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<LimitQuery>,
    locale: web::Query<LocaleQuery>,
    include: web::Query<IncludeQuery>,
) -> ApiResult<HttpResponse> {
    let site = access::site_read(&state, &principal, BLOG, site_id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(read::featured(&state, &site, BLOG, query.limit_or(10)?, (&locale, &include)).await?))
}

/// List posts similar to a post
///
/// Read role or higher on the site. Published posts that share tags, categories or the author, best score first; empty
/// when none. Errors: ENTITY_NOT_FOUND, MODULE_NOT_ENABLED.
#[utoipa::path(
    get,
    path = "/sites/{site_id}/blogs/{id}/similar",
    tag = "Blogs",
    params(("site_id" = Uuid, Path), ("id" = Uuid, Path), LimitQuery),
    responses(
        (status = 200, body = Vec<ContentListItem>, description = "Published posts scored +3 per shared tag, +2 per shared category, +3 same primary category, +1 same author; limit default 3, max 10")
    )
)]
pub async fn similar_blogs(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, Uuid)>,
    query: web::Query<LimitQuery>,
) -> ApiResult<HttpResponse> {
    let (site_id, id) = path.into_inner();
    let limit = query.limit_or(read::SIMILAR_DEFAULT)?;
    let site = access::site_read(&state, &principal, BLOG, site_id).await?;
    Ok(HttpResponse::Ok().json(read::similar(&state, &site, BLOG, id, limit).await?))
}
