//! What the origin service's admin asks of categories and tags beyond the
//! site-scoped endpoints: a term created with its site in the body, the
//! categories with their blog counts, and one category put on or taken off an
//! item. Each goes through the same service as the site-scoped endpoints
//! (terms) or the one content write (an item's categories), so the checks,
//! audit entries, events and cache drops are theirs.

use actix_web::{web, HttpResponse};
use plinth_entities::{content, content_category, content_listing};
use sea_orm::sea_query::{Expr, ExprTrait, Func};
use sea_orm::{EntityTrait, QuerySelect, QueryTrait};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::{create, create_term_schema, list_query, CreateTerm, Taxonomy, TermResponse};
use crate::auth::{Capability, Principal};
use crate::content::listing::{self, Filter};
use crate::content::model::UpdateContent;
use crate::content::KindRules;
use crate::content::{access, write, ContentKind};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError, Problem};
use crate::state::AppState;

/// A term with the site it belongs to in the body, as the origin service's
/// admin creates one (`POST /tags`, `POST /categories`).
#[derive(Clone, Debug, Deserialize)]
pub struct CreateTermWithSite {
    pub site_id: Option<Uuid>,
    #[serde(flatten)]
    pub term: CreateTerm,
}

impl utoipa::PartialSchema for CreateTermWithSite {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::RefOr::T(utoipa::openapi::schema::Schema::AnyOf(create_term_schema(true)))
    }
}

impl ToSchema for CreateTermWithSite {}

/// Create a category on the site named in the body
///
/// Editor role or higher on that site; the origin service's form of `POST /sites/{site_id}/categories`.
/// Errors: VALIDATION_REQUIRED_FIELD (`site_id`), ENTITY_SLUG_TAKEN, VALIDATION_INVALID_FORMAT, AUTH_*.
#[utoipa::path(
    post,
    path = "/categories",
    tag = "Taxonomy",
    operation_id = "create_category_with_site",
    request_body = CreateTermWithSite,
    responses(
        (status = 201, body = TermResponse),
        (status = "4XX", body = Problem, description = "VALIDATION_REQUIRED_FIELD without `site_id`")
    )
)]
pub async fn create_term_with_site(
    taxonomy: web::Data<Taxonomy>,
    state: web::Data<AppState>,
    principal: Principal,
    body: crate::body::Json<CreateTermWithSite>,
) -> ApiResult<HttpResponse> {
    let CreateTermWithSite { site_id, term } = body.into_inner();
    let Some(site_id) = site_id else {
        let missing = FieldError::new("site_id", ErrorCode::ValidationRequiredField, "the site the term belongs to");
        return Err(ApiError::validation(vec![missing]));
    };
    let site = principal.require(&state, site_id, Capability::EditAnyContent).await?;
    Ok(HttpResponse::Created().json(create(&state, &site, **taxonomy, term).await?))
}

/// A category and how many of the site's live blogs are in it.
#[derive(Serialize, ToSchema)]
pub struct CategoryWithCount {
    #[serde(flatten)]
    pub category: TermResponse,
    /// Live (not deleted) blogs of the site in the category.
    pub blog_count: u64,
}

/// The most categories the counts answer, by name (a site's categories are
/// a handful; this bounds the answer whatever a site holds).
const MAX_COUNTED_CATEGORIES: u64 = 1_000;

/// List a site's categories with their blog counts
///
/// Read role or higher on the site. Every category of the site by name (at most 1,000), each with the number of
/// the site's live blogs in it, as the origin service's admin shows them. Errors: MODULE_NOT_ENABLED (the blog
/// module is off), AUTH_*.
#[utoipa::path(
    get,
    path = "/sites/{site_id}/categories/blog-counts",
    tag = "Taxonomy",
    operation_id = "list_category_blog_counts",
    params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<CategoryWithCount>))
)]
pub async fn category_blog_counts(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    // Counts of blogs: read only where the blogs themselves may be.
    if !ContentKind::Blog.module_enabled(&state.site_state(site_id).await?.settings) {
        return Err(ApiError::new(ErrorCode::ModuleNotEnabled, "the blog module is not enabled for this site"));
    }
    let categories = list_query(site_id, Taxonomy::Category).limit(MAX_COUNTED_CATEGORIES).all(&state.db).await?;
    let counts = blog_counts_query(site_id).into_tuple::<(Uuid, i64)>().all(&state.db).await?;
    let counts: std::collections::HashMap<Uuid, i64> = counts.into_iter().collect();
    let answer: Vec<CategoryWithCount> = categories
        .iter()
        .map(|category| CategoryWithCount {
            category: TermResponse::from(category),
            blog_count: u64::try_from(counts.get(&category.id).copied().unwrap_or_default()).unwrap_or_default(),
        })
        .collect();
    Ok(HttpResponse::Ok().json(answer))
}

/// `(category_id, blog_count)` of the site's live blogs, from the site's
/// listing rows (`ix_content_sites_live_created`) and their category links.
pub fn blog_counts_query(site_id: Uuid) -> sea_orm::Select<content_listing::Entity> {
    let category = Expr::col((content_category::Entity, content_category::Column::CategoryId));
    let mut select = listing::rows(&Filter::live(ContentKind::Blog, site_id))
        .select_only()
        .column_as(category.clone(), "category_id")
        .column_as(
            Expr::expr(Func::count(Expr::col((content_listing::Entity, content_listing::Column::ContentId)))),
            "blog_count",
        )
        .group_by(category);
    QueryTrait::query(&mut select).inner_join(
        content_category::Entity,
        Expr::col((content_category::Entity, content_category::Column::ContentId))
            .equals((content_listing::Entity, content_listing::Column::ContentId)),
    );
    select
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct AssignCategory {
    /// A category of one of the item's sites.
    pub category_id: Uuid,
    /// Make it the item's primary category (default false; `false` on the
    /// current primary category leaves the item without one).
    #[serde(default)]
    pub is_primary: Option<bool>,
}

/// The item (of any kind) and its kind, or 404.
async fn item_kind(state: &AppState, content_id: Uuid) -> ApiResult<ContentKind> {
    let item = content::Entity::find_by_id(content_id).one(&state.db).await?;
    item.filter(|item| !item.is_deleted).map(|item| item.kind).ok_or_else(|| ApiError::not_found("content", content_id))
}

/// Changes the item's categories with the one content write: who may edit
/// the item, the categories' sites and the item's events are checked and
/// sent there. The change is built on the item as read first (its categories
/// read after it): one that changed since (another category put on at the
/// same time) is 409 CONFLICT, never overwritten.
async fn change_categories(
    state: &AppState,
    principal: &Principal,
    content_id: Uuid,
    change: impl FnOnce(&mut Vec<Uuid>, &mut Option<Uuid>),
) -> ApiResult<()> {
    let kind = item_kind(state, content_id).await?;
    let item = access::editable(state, principal, kind, content_id, true).await?;
    let (mut categories, mut primary) = (item.relations.category_ids.clone(), item.relations.primary_category_id);
    change(&mut categories, &mut primary);
    let body = UpdateContent {
        category_ids: Some(categories),
        primary_category_id: Some(primary),
        ..UpdateContent::default()
    };
    write::update(state, item, body).await?;
    Ok(())
}

/// Put a category on an item
///
/// Who may change the item (its kind's rules). The category must be one of the item's sites'. Errors:
/// ENTITY_NOT_FOUND, VALIDATION_*, AUTH_*.
#[utoipa::path(
    post,
    path = "/content/{content_id}/categories",
    tag = "Taxonomy",
    operation_id = "assign_content_category",
    params(("content_id" = Uuid, Path)),
    request_body = AssignCategory,
    responses((status = 204, description = "The item is in the category"))
)]
pub async fn assign_category(
    state: web::Data<AppState>,
    principal: Principal,
    content_id: web::Path<Uuid>,
    body: crate::body::Json<AssignCategory>,
) -> ApiResult<HttpResponse> {
    let AssignCategory { category_id, is_primary } = body.into_inner();
    change_categories(&state, &principal, content_id.into_inner(), |categories, primary| {
        if !categories.contains(&category_id) {
            categories.push(category_id);
        }
        match is_primary {
            Some(true) => *primary = Some(category_id),
            Some(false) if *primary == Some(category_id) => *primary = None,
            _ => {}
        }
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Take a category off an item
///
/// Who may change the item (its kind's rules). Taking off a category the item is not in changes nothing. Errors:
/// ENTITY_NOT_FOUND, AUTH_*.
#[utoipa::path(
    delete,
    path = "/content/{content_id}/categories/{category_id}",
    tag = "Taxonomy",
    operation_id = "remove_content_category",
    params(("content_id" = Uuid, Path), ("category_id" = Uuid, Path)),
    responses((status = 204, description = "The item is not in the category"))
)]
pub async fn remove_category(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, Uuid)>,
) -> ApiResult<HttpResponse> {
    let (content_id, category_id) = path.into_inner();
    change_categories(&state, &principal, content_id, |categories, primary| {
        categories.retain(|id| *id != category_id);
        if *primary == Some(category_id) {
            *primary = None;
        }
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}
