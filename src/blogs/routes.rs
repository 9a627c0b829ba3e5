//! Each handler extracts, calls the engine with [`ContentKind::Blog`], answers.

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use crate::app::AppState;
use crate::auth::Principal;
use crate::content::model::{
    BulkRequest, BulkResult, ContentDetail, ContentListItem, ContentResponse, CreateContent, LimitQuery,
    LocalizationInput, LocalizationResponse, PublishedQuery, ReviewRequest, UpdateContent,
};
use crate::content::{localizations, read, write, ContentKind};
use crate::error::{ApiResult, Problem};
use crate::pagination::{PageParams, Paginated};

const BLOG: ContentKind = ContentKind::Blog;

#[utoipa::path(get, path = "/sites/{site_id}/blogs", tag = "Blogs", params(("site_id" = Uuid, Path), PageParams),
    responses((status = 200, body = Paginated<ContentListItem>), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn list_blogs(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    page: web::Query<PageParams>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(read::list(&state, &principal, BLOG, site_id.into_inner(), page.resolve()).await?))
}

#[utoipa::path(get, path = "/sites/{site_id}/blogs/published", tag = "Blogs", params(("site_id" = Uuid, Path), PublishedQuery),
    responses((status = 200, body = Paginated<ContentListItem>), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn list_published_blogs(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<PublishedQuery>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok()
        .json(read::list_published(&state, &principal, BLOG, site_id.into_inner(), query.into_inner()).await?))
}

#[utoipa::path(get, path = "/sites/{site_id}/blogs/featured", tag = "Blogs", params(("site_id" = Uuid, Path), LimitQuery),
    responses((status = 200, body = Vec<ContentListItem>, description = "Featured published posts, newest first; limit default 10, max 100"),
        (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn list_featured_blogs(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<LimitQuery>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok()
        .json(read::featured(&state, &principal, BLOG, site_id.into_inner(), query.limit.unwrap_or(10)).await?))
}

#[utoipa::path(get, path = "/sites/{site_id}/blogs/{id}/similar", tag = "Blogs", params(("site_id" = Uuid, Path), ("id" = Uuid, Path), LimitQuery),
    responses((status = 200, body = Vec<ContentListItem>, description = "Published posts scored +3 per shared tag, +2 per shared category, +3 same primary category, +1 same author; limit default 3, max 10"),
        (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn similar_blogs(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, Uuid)>,
    query: web::Query<LimitQuery>,
) -> ApiResult<HttpResponse> {
    let (site_id, id) = path.into_inner();
    let limit = query.limit.unwrap_or(read::SIMILAR_DEFAULT);
    Ok(HttpResponse::Ok().json(read::similar(&state, &principal, BLOG, site_id, id, limit).await?))
}

#[utoipa::path(get, path = "/sites/{site_id}/blogs/by-slug/{slug}", tag = "Blogs", params(("site_id" = Uuid, Path), ("slug" = String, Path)),
    responses((status = 200, body = ContentResponse), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn get_blog_by_slug(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, String)>,
) -> ApiResult<HttpResponse> {
    let (site_id, slug) = path.into_inner();
    Ok(HttpResponse::Ok().json(read::by_slug(&state, &principal, BLOG, site_id, &slug).await?))
}

#[utoipa::path(get, path = "/blogs/{id}", tag = "Blogs", params(("id" = Uuid, Path)),
    responses((status = 200, body = ContentResponse), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn get_blog(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(read::get(&state, &principal, BLOG, id.into_inner()).await?))
}

#[utoipa::path(get, path = "/blogs/{id}/detail", tag = "Blogs", params(("id" = Uuid, Path)),
    responses((status = 200, body = ContentDetail), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn get_blog_detail(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(read::detail(&state, &principal, BLOG, id.into_inner()).await?))
}

#[utoipa::path(post, path = "/blogs", tag = "Blogs", request_body = CreateContent,
    responses((status = 201, body = ContentResponse), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn create_blog(
    state: web::Data<AppState>,
    principal: Principal,
    body: web::Json<CreateContent>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Created().json(write::create(&state, &principal, BLOG, body.into_inner()).await?))
}

#[utoipa::path(put, path = "/blogs/{id}", tag = "Blogs", params(("id" = Uuid, Path)), request_body = UpdateContent,
    responses((status = 200, body = ContentResponse), (status = "4XX", body = Problem,
        description = "CONTENT_INVALID_STATUS, CONTENT_PUBLISH_DATE_INVALID, WORKFLOW_*, ENTITY_SLUG_TAKEN, MODULE_NOT_ENABLED, AUTH_*")),
    security(("api_key" = []), ("bearer" = [])))]
pub async fn update_blog(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: web::Json<UpdateContent>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(write::update(&state, &principal, BLOG, id.into_inner(), body.into_inner()).await?))
}

#[utoipa::path(delete, path = "/blogs/{id}", tag = "Blogs", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Soft-deleted: moved to the trash"), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn delete_blog(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    write::delete(&state, &principal, BLOG, id.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(post, path = "/blogs/{id}/clone", tag = "Blogs", params(("id" = Uuid, Path)),
    responses((status = 201, body = ContentResponse, description = "A new Draft copy"), (status = "4XX", body = Problem,
        description = "CONTENT_SLUG_GENERATION_FAILED when no free slug is left")), security(("api_key" = []), ("bearer" = [])))]
pub async fn clone_blog(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Created().json(write::clone(&state, &principal, BLOG, id.into_inner()).await?))
}

#[utoipa::path(post, path = "/blogs/{id}/review", tag = "Blogs", params(("id" = Uuid, Path)), request_body = ReviewRequest,
    responses((status = 200, body = ContentResponse, description = "Approve publishes (or schedules when publish_start is ahead); RequestChanges returns to Draft"),
        (status = "4XX", body = Problem, description = "CONTENT_REVIEW_INVALID_STATUS when not InReview")), security(("api_key" = []), ("bearer" = [])))]
pub async fn review_blog(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: web::Json<ReviewRequest>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(write::review(&state, &principal, BLOG, id.into_inner(), body.into_inner()).await?))
}

#[utoipa::path(post, path = "/sites/{site_id}/blogs/bulk", tag = "Blogs", params(("site_id" = Uuid, Path)), request_body = BulkRequest,
    responses((status = 200, body = BulkResult), (status = "4XX", body = Problem, description = "BLOG_BULK_STATUS_REQUIRED; all or nothing")),
    security(("api_key" = []), ("bearer" = [])))]
pub async fn bulk_blogs(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: web::Json<BulkRequest>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(write::bulk(&state, &principal, BLOG, site_id.into_inner(), body.into_inner()).await?))
}

#[utoipa::path(get, path = "/blogs/{id}/localizations", tag = "Blogs", params(("id" = Uuid, Path)),
    responses((status = 200, body = Vec<LocalizationResponse>), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn list_blog_localizations(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(localizations::list(&state, &principal, BLOG, id.into_inner()).await?))
}

#[utoipa::path(post, path = "/blogs/{id}/localizations", tag = "Blogs", params(("id" = Uuid, Path)), request_body = LocalizationInput,
    responses((status = 201, body = LocalizationResponse), (status = "4XX", body = Problem, description = "ENTITY_LOCALIZATION_EXISTS")),
    security(("api_key" = []), ("bearer" = [])))]
pub async fn create_blog_localization(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: web::Json<LocalizationInput>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Created()
        .json(localizations::create(&state, &principal, BLOG, id.into_inner(), body.into_inner()).await?))
}

#[utoipa::path(put, path = "/blogs/localizations/{loc_id}", tag = "Blogs", params(("loc_id" = Uuid, Path)), request_body = crate::content::model::UpdateLocalization,
    responses((status = 200, body = LocalizationResponse), (status = "4XX", body = Problem, description = "ENTITY_LOCALIZATION_NOT_FOUND")),
    security(("api_key" = []), ("bearer" = [])))]
pub async fn update_blog_localization(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: web::Json<crate::content::model::UpdateLocalization>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok()
        .json(localizations::update(&state, &principal, BLOG, id.into_inner(), body.into_inner()).await?))
}

#[utoipa::path(delete, path = "/blogs/localizations/{loc_id}", tag = "Blogs", params(("loc_id" = Uuid, Path)),
    responses((status = 204), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn delete_blog_localization(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    localizations::delete(&state, &principal, BLOG, id.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}
