//! Content templates of a site, at the origin service's admin's paths: named
//! sets of fields a new post starts from (`/sites/{id}/content-templates`,
//! `/content-templates/{id}`). Read role lists and reads them, authors create
//! and change them, editors delete them, as in the origin.

mod model;
mod service;

pub use model::*;

use actix_web::web::{self};
use actix_web::HttpResponse;
use plinth_entities::content_template;
use uuid::Uuid;

use crate::auth::{Capability, Principal};
use crate::error::ApiResult;
use crate::pagination::Paginated;
use crate::routes::Routes;
use crate::site_rows;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_content_templates, create_content_template, get_content_template,
        update_content_template, delete_content_template]);
}

/// List a site's content templates
///
/// Read role or higher on the site. By name unless `sort_by` says otherwise; `search` keeps those whose name or
/// description contains it. Errors: VALIDATION_ERROR (an unknown `sort_by` or `sort_dir`, a `search` over 200
/// characters).
#[utoipa::path(get, path = "/sites/{site_id}/content-templates", tag = "Content templates",
    params(("site_id" = Uuid, Path), TemplateQuery),
    responses((status = 200, body = Paginated<ContentTemplateResponse>)))]
pub async fn list_content_templates(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<TemplateQuery>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    Ok(HttpResponse::Ok().json(service::list(&state, site_id, &query).await?))
}

/// Create a content template
///
/// Author role or higher on the site. Errors: CONFLICT (a template of that name), VALIDATION_ERROR.
#[utoipa::path(post, path = "/sites/{site_id}/content-templates", tag = "Content templates",
    params(("site_id" = Uuid, Path)), request_body = CreateContentTemplate,
    responses((status = 201, body = ContentTemplateResponse)))]
pub async fn create_content_template(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<CreateContentTemplate>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::CreateContent).await?;
    let now = state.clock.now();
    let created = service::create(&state, &principal.actor(), now, site_id, body.into_inner()).await?;
    Ok(HttpResponse::Created().json(created))
}

/// Show a content template
///
/// Read role or higher on its site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/content-templates/{id}", tag = "Content templates", params(("id" = Uuid, Path)),
    responses((status = 200, body = ContentTemplateResponse)))]
pub async fn get_content_template(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let found: content_template::Model = site_rows::find(&state, &principal, id.into_inner(), Capability::Read).await?;
    Ok(HttpResponse::Ok().json(ContentTemplateResponse::from(&found)))
}

/// Change a content template
///
/// Author role or higher on its site. Only the fields sent change. Errors: ENTITY_NOT_FOUND, CONFLICT,
/// VALIDATION_ERROR.
#[utoipa::path(put, path = "/content-templates/{id}", tag = "Content templates", params(("id" = Uuid, Path)),
    request_body = UpdateContentTemplate, responses((status = 200, body = ContentTemplateResponse)))]
pub async fn update_content_template(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateContentTemplate>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = site_rows::find(&state, &principal, id.into_inner(), Capability::CreateContent).await?;
    let updated = service::update(&state, &principal.actor(), now, current, body.into_inner()).await?;
    Ok(HttpResponse::Ok().json(updated))
}

/// Delete a content template
///
/// Editor role or higher on its site. Posts made from it keep their fields. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(delete, path = "/content-templates/{id}", tag = "Content templates", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Deleted")))]
pub async fn delete_content_template(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = site_rows::find(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    service::delete(&state, &principal.actor(), now, current).await?;
    Ok(HttpResponse::NoContent().finish())
}
