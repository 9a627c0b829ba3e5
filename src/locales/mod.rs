//! Global locales: listed to any caller, managed by system admins and
//! unscoped Admin keys.

mod model;
mod service;

pub use model::{CreateLocale, LocaleResponse, UpdateLocale};
pub use service::named;

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use crate::auth::{KeyCapability, KeyGrants, Principal};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_locales, create_locale, update_locale, delete_locale]);
}

fn require_locale_admin(principal: &Principal) -> ApiResult<()> {
    let unscoped_admin_key = principal
        .api_key()
        .is_some_and(|k| k.site_id.is_none() && k.permission.has(KeyCapability::ManageGlobalLocales));
    if principal.is_system_admin() || unscoped_admin_key {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::AuthInsufficientRole,
            "managing global locales needs a system admin or an unscoped Admin key",
        ))
    }
}

/// List the global locales
///
/// Any authenticated caller.
#[utoipa::path(get, path = "/locales", tag = "Locales",
    responses((status = 200, body = Vec<LocaleResponse>)))]
pub async fn list_locales(state: web::Data<AppState>, _principal: Principal) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(service::list(&state.db).await?))
}

/// Create a global locale
///
/// A system admin, or an API key with Admin permission that is not site-scoped. Errors: LOCALE_CODE_TAKEN,
/// AUTH_INSUFFICIENT_ROLE, VALIDATION_INVALID_FORMAT.
#[utoipa::path(
    post,
    path = "/locales",
    tag = "Locales",
    request_body = CreateLocale,
    responses(
        (status = 201, body = LocaleResponse),
        (status = 409, body = crate::error::Problem, description = "LOCALE_CODE_TAKEN")
    )
)]
pub async fn create_locale(
    state: web::Data<AppState>,
    principal: Principal,
    body: crate::body::Json<CreateLocale>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    require_locale_admin(&principal)?;
    let created = service::create(&state.db, &principal.actor(), now, body.into_inner()).await?;
    Ok(HttpResponse::Created().json(created))
}

/// Change a global locale
///
/// A system admin, or an API key with Admin permission that is not site-scoped. Errors: ENTITY_NOT_FOUND,
/// LOCALE_CODE_TAKEN, AUTH_INSUFFICIENT_ROLE, VALIDATION_INVALID_FORMAT.
#[utoipa::path(put, path = "/locales/{id}", tag = "Locales", params(("id" = Uuid, Path)), request_body = UpdateLocale,
    responses((status = 200, body = LocaleResponse)))]
pub async fn update_locale(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateLocale>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    require_locale_admin(&principal)?;
    let updated = service::update(&state.db, &principal.actor(), now, id.into_inner(), body.into_inner()).await?;
    // Every site's cached locale list may show this locale.
    Ok(HttpResponse::Ok().json(updated))
}

/// Delete a global locale
///
/// A system admin, or an API key with Admin permission that is not site-scoped. Errors: ENTITY_NOT_FOUND,
/// LOCALE_DELETE_IN_USE, AUTH_INSUFFICIENT_ROLE.
#[utoipa::path(delete, path = "/locales/{id}", tag = "Locales", params(("id" = Uuid, Path)),
    responses((status = 204), (status = 409, body = crate::error::Problem, description = "LOCALE_DELETE_IN_USE")))]
pub async fn delete_locale(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    require_locale_admin(&principal)?;
    service::delete(&state.db, &principal.actor(), now, id.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}
