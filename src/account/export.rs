//! `GET /auth/profile` and `GET /auth/export`: who the caller is, and everything
//! Plinth holds about them in one JSON document (data portability).
//!
//! Plinth keeps no user table of its own: a user's name, email and avatar come
//! from the identity provider's token, so the profile reflects the current
//! sign-in. For an API key the profile describes the key.

use actix_web::{web, HttpResponse};

use super::model::{AccountExport, Profile};
use super::service;
use crate::auth::Principal;
use crate::error::ApiResult;
use crate::state::AppState;

/// Show the caller's profile
///
/// Any authenticated caller (API key or JWT).
#[utoipa::path(get, path = "/auth/profile", tag = "Account",
    responses((status = 200, body = Profile)))]
pub async fn get_profile(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let permission = super::permission_of(&principal);
    Ok(HttpResponse::Ok().json(service::profile(&state, &principal.credential, permission).await?.0))
}

/// Export the caller's data
///
/// Any authenticated caller. The caller's profile, audit log entries, API keys, change history and memberships in one
/// document.
#[utoipa::path(
    get,
    path = "/auth/export",
    tag = "Account",
    responses(
        (status = 200, body = AccountExport, description = "Served as a download (Content-Disposition: attachment)")
    )
)]
pub async fn export_account(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let permission = super::permission_of(&principal);
    let export = service::export(&state, &principal.credential, permission, &principal.actor(), now).await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Content-Disposition", "attachment; filename=\"plinth-account-export.json\""))
        .json(export))
}
