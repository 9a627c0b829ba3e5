//! HTTP handlers shared by every content kind. Each resource is registered once
//! per kind with that kind as resource data ([`configure_kind`]); the OpenAPI
//! document describes them under the blog paths and derives the other kinds'
//! entries from those (see `openapi.rs`).

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::listing::Sort;
use super::model::{
    BulkRequest, BulkResult, ContentDetail, ContentListItem, ContentResponse, CreateContent, LocalizationInput,
    LocalizationResponse, ReviewRequest, UpdateContent,
};
use super::moves::ReviewAnswer;
use super::queries::{IncludeQuery, ItemQuery, ListQuery, LocaleQuery, PreviewLink, PreviewQuery, PublishedQuery};
use super::KindRules;
use super::{access, copy, lease_http, localizations, moves, read, write, ContentKind};
use crate::auth::Principal;
use crate::error::{ApiResult, Problem};
use crate::pagination::{PageParams, Paginated};
use crate::routes::Routes;
use crate::state::AppState;

/// Mounts the endpoints every content kind shares at `/{plural}/…` with `kind`
/// as the handlers' data (documented once, as blogs).
pub fn kind_routes(r: &mut Routes, kind: ContentKind, plural: &str) {
    r.variant("blogs", plural, kind, |r| {
        crate::mount!(r, self => [list_items, list_published, bulk_items, get_by_slug, create_item,
            update_localization, delete_localization, get_item, update_item, delete_item, get_detail, clone_item,
            review_item, preview_item, list_localizations, create_localization], lease_http => [take_lease,
            release_lease]);
    });
}

/// List a site's items of the kind
///
/// Read role or higher on the site; the kind's module must be on (MODULE_NOT_ENABLED). Errors: MODULE_NOT_ENABLED,
/// VALIDATION_INVALID_FORMAT, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(
    get,
    path = "/sites/{site_id}/blogs",
    tag = "Blogs",
    operation_id = "list_blogs",
    params(("site_id" = Uuid, Path), ListQuery),
    responses((status = 200, body = Paginated<ContentListItem>))
)]
pub async fn list_items(
    kind: web::Data<ContentKind>,
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<ListQuery>,
) -> ApiResult<HttpResponse> {
    let query = query.into_inner();
    let page = PageParams { page: query.page, per_page: query.per_page }.resolve_with_default(kind.default_per_page());
    let options = read::ListOptions {
        entry_type: query.entry_type,
        status: query.status,
        sort: Some(Sort::from_query(query.sort.as_deref(), Sort::NEWEST)?),
        search: query.search,
        document_type: None,
    };
    let site = access::site_read(&state, &principal, **kind, site_id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(read::list(&state, &site, **kind, page, options).await?))
}

/// List a site's published items of the kind
///
/// Read role or higher on the site. `locale_id` keeps the items with a localization in that locale; `locale` answers
/// each item in that locale, a field it lacks taken from `fallback` (a front end's page in one request). Errors:
/// MODULE_NOT_ENABLED, VALIDATION_INVALID_FORMAT.
#[utoipa::path(
    get,
    path = "/sites/{site_id}/blogs/published",
    tag = "Blogs",
    operation_id = "list_published_blogs",
    params(("site_id" = Uuid, Path), PublishedQuery, LocaleQuery, IncludeQuery),
    responses((status = 200, body = Paginated<ContentListItem>))
)]
pub async fn list_published(
    kind: web::Data<ContentKind>,
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<PublishedQuery>,
    locale: web::Query<LocaleQuery>,
    include: web::Query<IncludeQuery>,
) -> ApiResult<HttpResponse> {
    let site = access::site_read(&state, &principal, **kind, site_id.into_inner()).await?;
    let cached = read::list_published(&state, &site, **kind, query.into_inner(), (&locale, &include)).await?;
    Ok(HttpResponse::Ok().content_type(cached.content_type).body(cached.body.clone()))
}

/// Find an item of the kind by slug
///
/// Read role or higher on the site. `status=published` answers 404 for an item not published (a front end's
/// `/blog/{slug}` page); `locale` answers it in that locale. Errors: ENTITY_NOT_FOUND, MODULE_NOT_ENABLED,
/// VALIDATION_INVALID_FORMAT.
#[utoipa::path(
    get,
    path = "/sites/{site_id}/blogs/by-slug/{slug}",
    tag = "Blogs",
    operation_id = "get_blog_by_slug",
    params(("site_id" = Uuid, Path), ("slug" = String, Path), ItemQuery, LocaleQuery, IncludeQuery),
    responses((status = 200, body = ContentResponse))
)]
pub async fn get_by_slug(
    kind: web::Data<ContentKind>,
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, String)>,
    query: web::Query<ItemQuery>,
    locale: web::Query<LocaleQuery>,
    include: web::Query<IncludeQuery>,
) -> ApiResult<HttpResponse> {
    let (site_id, slug) = path.into_inner();
    let site = access::site_read(&state, &principal, **kind, site_id).await?;
    let item = read::by_slug(&state, &site, **kind, &slug).await?;
    query.admits(&item, **kind, &slug)?;
    Ok(HttpResponse::Ok().json(read::rendered(&state, site_id, (&locale, &include), item).await?))
}

/// Show an item of the kind
///
/// Read role or higher on one of the item's sites. `status=published` answers 404 for an item not published;
/// `locale` answers it in that locale. Errors: ENTITY_NOT_FOUND, MODULE_NOT_ENABLED, VALIDATION_INVALID_FORMAT.
#[utoipa::path(get, path = "/blogs/{id}", tag = "Blogs", operation_id = "get_blog",
    params(("id" = Uuid, Path), ItemQuery, LocaleQuery, IncludeQuery), responses((status = 200, body = ContentResponse)))]
pub async fn get_item(
    kind: web::Data<ContentKind>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    query: web::Query<ItemQuery>,
    locale: web::Query<LocaleQuery>,
    include: web::Query<IncludeQuery>,
) -> ApiResult<HttpResponse> {
    let access = access::readable(&state, &principal, **kind, id.into_inner()).await?;
    let item = access.response();
    query.admits(&item, **kind, item.id)?;
    // The locales of a site the caller reads it on (its sites share the item's text).
    let site_id = access.grant.site_ids().first().copied().unwrap_or_default();
    Ok(HttpResponse::Ok().json(read::rendered(&state, site_id, (&locale, &include), item).await?))
}

/// Show an item of the kind with its localizations
///
/// Read role or higher on one of the item's sites. Errors: ENTITY_NOT_FOUND, MODULE_NOT_ENABLED.
#[utoipa::path(
    get,
    path = "/blogs/{id}/detail",
    tag = "Blogs",
    operation_id = "get_blog_detail",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = ContentDetail))
)]
pub async fn get_detail(
    kind: web::Data<ContentKind>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let item = access::readable(&state, &principal, **kind, id.into_inner()).await?;
    // The spec gives CV entries' detail the same shape as the plain item.
    if **kind == ContentKind::CvEntry {
        return Ok(HttpResponse::Ok().json(item.response()));
    }
    Ok(HttpResponse::Ok().json(read::detail(&state, item).await?))
}

/// Create an item of the kind
///
/// Author role or higher on every site in `site_ids`; publishing needs Editor, or Reviewer with the editorial workflow.
/// Errors: ENTITY_SLUG_TAKEN, CONTENT_INVALID_STATUS, CONTENT_PUBLISH_DATE_INVALID, CONTENT_NO_DEFAULT_ENVIRONMENT,
/// WORKFLOW_NO_PERMISSION, MODULE_NOT_ENABLED, VALIDATION_REQUIRED_FIELD, VALIDATION_INVALID_FORMAT,
/// VALIDATION_OUT_OF_RANGE.
#[utoipa::path(post, path = "/blogs", tag = "Blogs", operation_id = "create_blog", request_body = CreateContent,
    responses((status = 201, body = ContentResponse)))]
pub async fn create_item(
    kind: web::Data<ContentKind>,
    state: web::Data<AppState>,
    principal: Principal,
    body: crate::body::Json<CreateContent>,
) -> ApiResult<HttpResponse> {
    let body = body.into_inner();
    let grant = access::new_item(&state, &principal, &body.site_ids).await?;
    Ok(HttpResponse::Created().json(write::create(&state, &grant, **kind, body).await?))
}

/// Change an item of the kind
///
/// Authors change only their own unpublished items; Editor role or higher changes any. Errors: ENTITY_NOT_FOUND,
/// ENTITY_SLUG_TAKEN, AUTH_INSUFFICIENT_ROLE, CONTENT_INVALID_STATUS, CONTENT_PUBLISH_DATE_INVALID,
/// WORKFLOW_INVALID_STATUS, WORKFLOW_NO_PERMISSION, WORKFLOW_REVIEW_REQUIRED, MODULE_NOT_ENABLED,
/// VALIDATION_INVALID_FORMAT, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(
    put,
    path = "/blogs/{id}",
    tag = "Blogs",
    operation_id = "update_blog",
    params(("id" = Uuid, Path)),
    request_body = UpdateContent,
    responses(
        (status = 200, body = ContentResponse),
        (status = "4XX", body = Problem, description = "CONTENT_INVALID_STATUS, CONTENT_PUBLISH_DATE_INVALID, WORKFLOW_*, ENTITY_SLUG_TAKEN, MODULE_NOT_ENABLED, AUTH_*")
    )
)]
pub async fn update_item(
    kind: web::Data<ContentKind>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateContent>,
) -> ApiResult<HttpResponse> {
    let body = body.into_inner();
    let item = access::for_update(&state, &principal, **kind, id.into_inner(), body.site_ids.as_deref()).await?;
    Ok(HttpResponse::Ok().json(write::update(&state, item, body).await?))
}

/// Delete an item of the kind
///
/// Authors delete only their own items; Editor role or higher deletes any. Soft delete: the item goes to the trash.
/// Errors: ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE, MODULE_NOT_ENABLED.
#[utoipa::path(delete, path = "/blogs/{id}", tag = "Blogs", operation_id = "delete_blog", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Soft-deleted: moved to the trash")))]
pub async fn delete_item(
    kind: web::Data<ContentKind>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let item = access::on_all_sites(&state, &principal, **kind, id.into_inner(), true).await?;
    write::delete(&state, item).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Copy an item of the kind
///
/// Author role or higher on the item's sites. The copy is a Draft with a fresh slug. Errors: ENTITY_NOT_FOUND,
/// CONTENT_SLUG_GENERATION_FAILED, CONTENT_ROUTE_GENERATION_FAILED, MODULE_NOT_ENABLED.
#[utoipa::path(
    post,
    path = "/blogs/{id}/clone",
    tag = "Blogs",
    operation_id = "clone_blog",
    params(("id" = Uuid, Path)),
    responses(
        (status = 201, body = ContentResponse, description = "A new Draft copy"),
        (status = "4XX", body = Problem, description = "CONTENT_SLUG_GENERATION_FAILED when no free slug is left")
    )
)]
pub async fn clone_item(
    kind: web::Data<ContentKind>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let source = access::on_all_sites(&state, &principal, **kind, id.into_inner(), true).await?;
    Ok(HttpResponse::Created().json(copy::clone(&state, source).await?))
}

/// Review an item of the kind
///
/// Reviewer role or higher on the item's sites; the item must be InReview. Errors: ENTITY_NOT_FOUND,
/// CONTENT_REVIEW_INVALID_STATUS, AUTH_INSUFFICIENT_ROLE, MODULE_NOT_ENABLED.
#[utoipa::path(
    post,
    path = "/blogs/{id}/review",
    tag = "Blogs",
    operation_id = "review_blog",
    params(("id" = Uuid, Path)),
    request_body = ReviewRequest,
    responses(
        (status = 200, body = ReviewAnswer, description = "Approve publishes (or schedules when publish_start is ahead); RequestChanges returns to Draft"),
        (status = "4XX", body = Problem, description = "CONTENT_REVIEW_INVALID_STATUS when not InReview")
    )
)]
pub async fn review_item(
    kind: web::Data<ContentKind>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<ReviewRequest>,
) -> ApiResult<HttpResponse> {
    let item = access::on_all_sites(&state, &principal, **kind, id.into_inner(), true).await?;
    let reviewed = moves::review(&state, item, body.into_inner()).await?;
    Ok(HttpResponse::Ok().json(ReviewAnswer::new(reviewed)))
}

/// Change or delete many items of the kind
///
/// `Delete` needs the Editor role or higher on the site, `UpdateStatus` the Author role (authors only their own items)
/// and a `status`. Errors: the kind's `*_BULK_STATUS_REQUIRED`, CONTENT_INVALID_STATUS, AUTH_INSUFFICIENT_ROLE,
/// MODULE_NOT_ENABLED, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(
    post,
    path = "/sites/{site_id}/blogs/bulk",
    tag = "Blogs",
    operation_id = "bulk_blogs",
    params(("site_id" = Uuid, Path)),
    request_body = BulkRequest,
    responses(
        (status = 200, body = BulkResult),
        (status = "4XX", body = Problem, description = "BLOG_BULK_STATUS_REQUIRED; all or nothing")
    )
)]
pub async fn bulk_items(
    kind: web::Data<ContentKind>,
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<BulkRequest>,
) -> ApiResult<HttpResponse> {
    let site = principal.standing(&state, site_id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(moves::bulk(&state, &site, **kind, body.into_inner()).await?))
}

/// List the localizations of an item of the kind
///
/// Read role or higher on one of the item's sites. Errors: ENTITY_NOT_FOUND, MODULE_NOT_ENABLED.
#[utoipa::path(
    get,
    path = "/blogs/{id}/localizations",
    tag = "Blogs",
    operation_id = "list_blog_localizations",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = Vec<LocalizationResponse>))
)]
pub async fn list_localizations(
    kind: web::Data<ContentKind>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let item = access::readable_with(&state, &principal, **kind, id.into_inner(), false).await?;
    Ok(HttpResponse::Ok().json(localizations::list(&state, &item).await?))
}

/// Add a localization to an item of the kind
///
/// Author role or higher (authors only on their own items). Errors: ENTITY_NOT_FOUND, ENTITY_LOCALIZATION_EXISTS,
/// AUTH_INSUFFICIENT_ROLE, MODULE_NOT_ENABLED, VALIDATION_INVALID_FORMAT.
#[utoipa::path(
    post,
    path = "/blogs/{id}/localizations",
    tag = "Blogs",
    operation_id = "create_blog_localization",
    params(("id" = Uuid, Path)),
    request_body = LocalizationInput,
    responses(
        (status = 201, body = LocalizationResponse),
        (status = "4XX", body = Problem, description = "ENTITY_LOCALIZATION_EXISTS")
    )
)]
pub async fn create_localization(
    kind: web::Data<ContentKind>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<LocalizationInput>,
) -> ApiResult<HttpResponse> {
    let item = access::editable(&state, &principal, **kind, id.into_inner(), false).await?;
    Ok(HttpResponse::Created().json(localizations::create(&state, item, body.into_inner()).await?))
}

/// Change a localization of an item of the kind
///
/// Author role or higher (authors only on their own items). Errors: ENTITY_LOCALIZATION_NOT_FOUND,
/// AUTH_INSUFFICIENT_ROLE, MODULE_NOT_ENABLED, VALIDATION_INVALID_FORMAT.
#[utoipa::path(
    put,
    path = "/blogs/localizations/{loc_id}",
    tag = "Blogs",
    operation_id = "update_blog_localization",
    params(("loc_id" = Uuid, Path)),
    request_body = crate::content::model::UpdateLocalization,
    responses(
        (status = 200, body = LocalizationResponse),
        (status = "4XX", body = Problem, description = "ENTITY_LOCALIZATION_NOT_FOUND")
    )
)]
pub async fn update_localization(
    kind: web::Data<ContentKind>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<crate::content::model::UpdateLocalization>,
) -> ApiResult<HttpResponse> {
    let current = localizations::find(&state, **kind, id.into_inner()).await?;
    let item = access::editable(&state, &principal, **kind, current.content_id, false).await?;
    Ok(HttpResponse::Ok().json(localizations::update(&state, item, current, body.into_inner()).await?))
}

/// Delete a localization of an item of the kind
///
/// Author role or higher (authors only on their own items). Errors: ENTITY_LOCALIZATION_NOT_FOUND,
/// AUTH_INSUFFICIENT_ROLE, MODULE_NOT_ENABLED.
#[utoipa::path(
    delete,
    path = "/blogs/localizations/{loc_id}",
    tag = "Blogs",
    operation_id = "delete_blog_localization",
    params(("loc_id" = Uuid, Path)),
    responses((status = 204))
)]
pub async fn delete_localization(
    kind: web::Data<ContentKind>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let current = localizations::find(&state, **kind, id.into_inner()).await?;
    let item = access::editable(&state, &principal, **kind, current.content_id, false).await?;
    localizations::delete(&state, item, current).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Preview an item of the kind
///
/// Read role or higher on one of the item's sites: the item as it would be published, drafts included. Errors:
/// ENTITY_NOT_FOUND, MODULE_NOT_ENABLED.
#[utoipa::path(
    get,
    path = "/blogs/{id}/preview",
    tag = "Blogs",
    operation_id = "preview_blog",
    params(("id" = Uuid, Path), PreviewQuery),
    responses(
        (status = 200, body = PreviewLink),
        (status = "4XX", body = Problem, description = "CONTENT_NO_DEFAULT_ENVIRONMENT when no environment is given and the sites have no default")
    )
)]
pub async fn preview_item(
    kind: web::Data<ContentKind>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    query: web::Query<PreviewQuery>,
) -> ApiResult<HttpResponse> {
    let item = access::readable(&state, &principal, **kind, id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(read::preview(&state, &item, query.environment_id).await?))
}
