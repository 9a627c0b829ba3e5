//! The builder's endpoints: forms, templates and the site's bot protection.

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::access::{self, forms_site};
use super::model::{
    BotProtectionResponse, BotProtectionUpdate, CreateForm, CreateTemplate, FormListQuery, FormResponse,
    TemplateResponse, UpdateForm, UpdateTemplate,
};
use super::{bot, service, templates};
use crate::auth::{Capability, Principal};
use crate::error::{ApiResult, Problem};
use crate::pagination::Paginated;
use crate::state::AppState;

/// List a site's forms
///
/// Read role or higher on the site; 404 while the site's forms module is off. Errors: RESOURCE_NOT_FOUND,
/// VALIDATION_OUT_OF_RANGE.
#[utoipa::path(get, path = "/sites/{site_id}/forms", tag = "Forms", params(("site_id" = Uuid, Path), FormListQuery),
    responses((status = 200, body = Paginated<FormResponse>, description = "Without fields and localizations; 404 while the forms module is off")))]
pub async fn list_forms(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<FormListQuery>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    forms_site(&state, &principal, site_id, Capability::Read).await?;
    Ok(HttpResponse::Ok().json(service::list(&state, site_id, query.into_inner()).await?))
}

/// Create a form
///
/// Author role or higher on the site; optionally from a template. Errors: RESOURCE_NOT_FOUND (module off),
/// ENTITY_SLUG_TAKEN, FORM_DUPLICATE_FIELD_LABELS, VALIDATION_ERROR, VALIDATION_INVALID_FORMAT,
/// VALIDATION_OUT_OF_RANGE, VALIDATION_REQUIRED_FIELD.
#[utoipa::path(post, path = "/sites/{site_id}/forms", tag = "Forms", params(("site_id" = Uuid, Path)), request_body = CreateForm,
    responses(
        (status = 201, body = FormResponse),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "FORM_DUPLICATE_FIELD_LABELS"),
        (status = 409, body = Problem, content_type = "application/problem+json", description = "ENTITY_SLUG_TAKEN")
    ))]
pub async fn create_form(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<CreateForm>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    let site = forms_site(&state, &principal, site_id, Capability::ManageOwnForms).await?;
    Ok(HttpResponse::Created().json(service::create(&state, &site, body.into_inner()).await?))
}

/// Show a form
///
/// Read role or higher on the form's site. Errors: ENTITY_NOT_FOUND, RESOURCE_NOT_FOUND (module off).
#[utoipa::path(get, path = "/forms/{id}", tag = "Forms", params(("id" = Uuid, Path)),
    responses((status = 200, body = FormResponse, description = "With fields and localizations")))]
pub async fn get_form(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let f = access::form(&state, &principal, id.into_inner(), Capability::Read).await?;
    Ok(HttpResponse::Ok().json(service::full(&state, f.row()).await?))
}

/// Find a form by slug
///
/// Read role or higher on the site. Errors: ENTITY_NOT_FOUND, RESOURCE_NOT_FOUND (module off).
#[utoipa::path(get, path = "/sites/{site_id}/forms/by-slug/{slug}", tag = "Forms",
    params(("site_id" = Uuid, Path), ("slug" = String, Path)),
    responses((status = 200, body = FormResponse)))]
pub async fn form_by_slug(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, String)>,
) -> ApiResult<HttpResponse> {
    let (site_id, slug) = path.into_inner();
    forms_site(&state, &principal, site_id, Capability::Read).await?;
    let f = service::by_slug(&state, site_id, &slug).await?;
    Ok(HttpResponse::Ok().json(service::full(&state, &f).await?))
}

/// Change a form
///
/// Authors change their own forms; Editor role or higher any. Sending `localizations` replaces them all. Errors:
/// ENTITY_NOT_FOUND, ENTITY_SLUG_TAKEN, AUTH_INSUFFICIENT_ROLE, FORM_DUPLICATE_FIELD_LABELS, VALIDATION_ERROR,
/// VALIDATION_INVALID_FORMAT, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(put, path = "/forms/{id}", tag = "Forms", params(("id" = Uuid, Path)), request_body = UpdateForm,
    responses(
        (status = 200, body = FormResponse, description = "`fields` and `localizations`, when sent, replace the stored ones in one transaction; omitted, they stay"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "FORM_DUPLICATE_FIELD_LABELS")
    ))]
pub async fn update_form(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateForm>,
) -> ApiResult<HttpResponse> {
    let f = access::form(&state, &principal, id.into_inner(), Capability::ManageOwnForms).await?;
    Ok(HttpResponse::Ok().json(service::update(&state, f, body.into_inner()).await?))
}

/// Delete a form
///
/// Authors delete their own forms; Editor role or higher any. Soft delete. Errors: ENTITY_NOT_FOUND,
/// AUTH_INSUFFICIENT_ROLE.
#[utoipa::path(delete, path = "/forms/{id}", tag = "Forms", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Soft-deleted; its slug is free again")))]
pub async fn delete_form(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let f = access::form(&state, &principal, id.into_inner(), Capability::ManageOwnForms).await?;
    service::delete(&state, f).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// List a site's form templates
///
/// Editor role or higher on the site.
#[utoipa::path(get, path = "/sites/{site_id}/form-templates", tag = "Forms", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<TemplateResponse>, description = "By name (Editor)")))]
pub async fn list_templates(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    forms_site(&state, &principal, site_id, Capability::ManageFormTemplates).await?;
    Ok(HttpResponse::Ok().json(templates::list(&state, site_id).await?))
}

/// Create a form template
///
/// Editor role or higher on the site. Errors: FORM_TEMPLATE_NAME_EXISTS, VALIDATION_ERROR.
#[utoipa::path(post, path = "/sites/{site_id}/form-templates", tag = "Forms", params(("site_id" = Uuid, Path)),
    request_body = CreateTemplate,
    responses(
        (status = 201, body = TemplateResponse),
        (status = 409, body = Problem, content_type = "application/problem+json", description = "FORM_TEMPLATE_NAME_EXISTS")
    ))]
pub async fn create_template(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<CreateTemplate>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    let site = forms_site(&state, &principal, site_id, Capability::ManageFormTemplates).await?;
    Ok(HttpResponse::Created().json(templates::create(&state, &site, body.into_inner()).await?))
}

/// Show a form template
///
/// Editor role or higher on the template's site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/form-templates/{id}", tag = "Forms", params(("id" = Uuid, Path)),
    responses((status = 200, body = TemplateResponse)))]
pub async fn get_template(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let t = access::template(&state, &principal, id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(templates::response(t.row())))
}

/// Change a form template
///
/// Editor role or higher on the template's site. Errors: ENTITY_NOT_FOUND, FORM_TEMPLATE_NAME_EXISTS, VALIDATION_ERROR.
#[utoipa::path(put, path = "/form-templates/{id}", tag = "Forms", params(("id" = Uuid, Path)), request_body = UpdateTemplate,
    responses(
        (status = 200, body = TemplateResponse),
        (status = 409, body = Problem, content_type = "application/problem+json", description = "FORM_TEMPLATE_NAME_EXISTS")
    ))]
pub async fn update_template(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateTemplate>,
) -> ApiResult<HttpResponse> {
    let t = access::template(&state, &principal, id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(templates::update(&state, t, body.into_inner()).await?))
}

/// Delete a form template
///
/// Editor role or higher on the template's site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(delete, path = "/form-templates/{id}", tag = "Forms", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Deleted (forms made from it keep their fields)")))]
pub async fn delete_template(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let t = access::template(&state, &principal, id.into_inner()).await?;
    templates::delete(&state, t).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Configure a site's form bot protection
///
/// Admin role or higher on the site. Mode `altcha` (default) or `remote` with `verify_url` and `secret`;
/// `regenerate_key` rotates the altcha key. Errors: BOT_PROTECTION_INVALID, VALIDATION_ERROR.
#[utoipa::path(put, path = "/sites/{site_id}/bot-protection", tag = "Forms", params(("site_id" = Uuid, Path)),
    request_body = BotProtectionUpdate,
    responses(
        (status = 200, body = BotProtectionResponse, description = "The secret is never returned (`secret_set`)"),
        (status = 422, body = Problem, content_type = "application/problem+json", description = "Remote mode without verify_url; a verify_url refused by the SSRF guard")
    ))]
pub async fn update_bot_protection(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<BotProtectionUpdate>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    forms_site(&state, &principal, site_id, Capability::AdministerSite).await?;
    Ok(HttpResponse::Ok().json(bot::update(&state, site_id, body.into_inner()).await?))
}
