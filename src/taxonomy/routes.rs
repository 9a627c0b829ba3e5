//! Handlers shared by `/categories` and `/tags`: registered once per taxonomy
//! with the taxonomy as resource data, documented under the category paths; the
//! OpenAPI document derives the tag entries (see `openapi.rs`).

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use super::localizations::{self, CreateTermLocalization, TermLocalizationResponse, UpdateTermLocalization};
use super::{access, create, list, remove, update, CreateTerm, Taxonomy, TermResponse, UpdateTerm};
use crate::auth::{Capability, Principal};
use crate::error::{ApiResult, Problem};
use crate::pagination::Paginated;
use crate::state::AppState;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TermListQuery {
    #[param(schema_with = crate::pagination::page_number_schema)]
    pub page: Option<u64>,
    /// Items per page (default 10, at most 100). Also accepted as `page_size`.
    #[serde(alias = "page_size")]
    #[param(schema_with = crate::pagination::per_page_schema)]
    pub per_page: Option<u32>,
    /// Names and descriptions in this locale where a localization exists: its UUID, or the code of one of the
    /// site's locales (`de`).
    #[param(pattern = "<locale>")]
    pub locale_id: Option<String>,
}

/// List a site's categories
///
/// Read role or higher on the site. Paginated, by name.
#[utoipa::path(
    get,
    path = "/sites/{site_id}/categories",
    tag = "Taxonomy",
    operation_id = "list_categories",
    params(("site_id" = Uuid, Path), TermListQuery),
    responses((status = 200, body = Paginated<TermResponse>))
)]
pub async fn list_terms(
    taxonomy: web::Data<Taxonomy>,
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<TermListQuery>,
) -> ApiResult<HttpResponse> {
    let site = principal.require(&state, site_id.into_inner(), Capability::Read).await?;
    Ok(HttpResponse::Ok().json(list(&state, &site, **taxonomy, &query).await?))
}

/// Create a category
///
/// Editor role or higher on the site. Errors: ENTITY_SLUG_TAKEN, ENTITY_NOT_FOUND (parent), VALIDATION_INVALID_FORMAT.
#[utoipa::path(
    post,
    path = "/sites/{site_id}/categories",
    tag = "Taxonomy",
    operation_id = "create_category",
    params(("site_id" = Uuid, Path)),
    request_body = CreateTerm,
    responses((status = 201, body = TermResponse))
)]
pub async fn create_term(
    taxonomy: web::Data<Taxonomy>,
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<CreateTerm>,
) -> ApiResult<HttpResponse> {
    let site = principal.require(&state, site_id.into_inner(), Capability::EditAnyContent).await?;
    Ok(HttpResponse::Created().json(create(&state, &site, **taxonomy, body.into_inner()).await?))
}

/// Change a category
///
/// Editor role or higher on the site. Errors: ENTITY_NOT_FOUND, ENTITY_SLUG_TAKEN, VALIDATION_INVALID_FORMAT.
#[utoipa::path(
    put,
    path = "/categories/{id}",
    tag = "Taxonomy",
    operation_id = "update_category",
    params(("id" = Uuid, Path)),
    request_body = UpdateTerm,
    responses((status = 200, body = TermResponse))
)]
pub async fn update_term(
    taxonomy: web::Data<Taxonomy>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateTerm>,
) -> ApiResult<HttpResponse> {
    let term = access::term(&state, &principal, **taxonomy, id.into_inner(), Capability::EditAnyContent).await?;
    Ok(HttpResponse::Ok().json(update(&state, term, **taxonomy, body.into_inner()).await?))
}

/// Delete a category
///
/// Editor role or higher on the site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(
    delete,
    path = "/categories/{id}",
    tag = "Taxonomy",
    operation_id = "delete_category",
    params(("id" = Uuid, Path)),
    responses((status = 204))
)]
pub async fn delete_term(
    taxonomy: web::Data<Taxonomy>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let term = access::term(&state, &principal, **taxonomy, id.into_inner(), Capability::EditAnyContent).await?;
    remove(&state, term, **taxonomy).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// List a category's localizations
///
/// Read role or higher on the site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(
    get,
    path = "/categories/{id}/localizations",
    tag = "Taxonomy",
    operation_id = "list_category_localizations",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = Vec<TermLocalizationResponse>))
)]
pub async fn list_term_localizations(
    taxonomy: web::Data<Taxonomy>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let term = access::term(&state, &principal, **taxonomy, id.into_inner(), Capability::Read).await?;
    Ok(HttpResponse::Ok().json(localizations::list(&state, &term).await?))
}

/// Add a localization to a category
///
/// Editor role or higher on the site. Errors: ENTITY_NOT_FOUND, ENTITY_LOCALIZATION_EXISTS, VALIDATION_INVALID_FORMAT.
#[utoipa::path(
    post,
    path = "/categories/{id}/localizations",
    tag = "Taxonomy",
    operation_id = "create_category_localization",
    params(("id" = Uuid, Path)),
    request_body = CreateTermLocalization,
    responses(
        (status = 201, body = TermLocalizationResponse),
        (status = "4XX", body = Problem, description = "ENTITY_LOCALIZATION_EXISTS")
    )
)]
pub async fn create_term_localization(
    taxonomy: web::Data<Taxonomy>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<CreateTermLocalization>,
) -> ApiResult<HttpResponse> {
    let term = access::term(&state, &principal, **taxonomy, id.into_inner(), Capability::EditAnyContent).await?;
    Ok(HttpResponse::Created().json(localizations::create(&state, &term, **taxonomy, body.into_inner()).await?))
}

/// Change a localization of a category
///
/// Editor role or higher on the site. Errors: ENTITY_LOCALIZATION_NOT_FOUND, VALIDATION_INVALID_FORMAT.
#[utoipa::path(
    put,
    path = "/categories/localizations/{loc_id}",
    tag = "Taxonomy",
    operation_id = "update_category_localization",
    params(("loc_id" = Uuid, Path)),
    request_body = UpdateTermLocalization,
    responses(
        (status = 200, body = TermLocalizationResponse),
        (status = "4XX", body = Problem, description = "ENTITY_LOCALIZATION_NOT_FOUND")
    )
)]
pub async fn update_term_localization(
    taxonomy: web::Data<Taxonomy>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateTermLocalization>,
) -> ApiResult<HttpResponse> {
    let localization = access::localization(&state, &principal, **taxonomy, id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(localizations::update(&state, localization, **taxonomy, body.into_inner()).await?))
}

/// Delete a localization of a category
///
/// Editor role or higher on the site. Errors: ENTITY_LOCALIZATION_NOT_FOUND.
#[utoipa::path(
    delete,
    path = "/categories/localizations/{loc_id}",
    tag = "Taxonomy",
    operation_id = "delete_category_localization",
    params(("loc_id" = Uuid, Path)),
    responses((status = 204))
)]
pub async fn delete_term_localization(
    taxonomy: web::Data<Taxonomy>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let localization = access::localization(&state, &principal, **taxonomy, id.into_inner()).await?;
    localizations::delete(&state, localization, **taxonomy).await?;
    Ok(HttpResponse::NoContent().finish())
}
