//! A signed-in user's own settings: preferences, help state and onboarding.
//! Each is one JSON column of `user_settings`; a user without a row, or with an
//! empty record, reads the defaults. Identity-provider users only.

use actix_web::{web, HttpResponse};

use super::model::{CompleteOnboarding, HelpState, Onboarding, Preferences, UpdateHelpState, UpdatePreferences};
use super::service::{self, Record};
use crate::auth::Principal;
use crate::error::{ApiResult, ErrorCode};
use crate::state::AppState;

fn user_id(principal: &Principal, code: ErrorCode) -> ApiResult<String> {
    Ok(principal.require_user(code)?.idp_user_id.clone())
}

/// Show the caller's preferences
///
/// JWT only (an API key gets 403 FORBIDDEN).
#[utoipa::path(
    get,
    path = "/auth/preferences",
    tag = "Account",
    responses((status = 200, body = Preferences)),
    security(("bearer" = []))
)]
pub async fn get_preferences(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let user = user_id(&principal, ErrorCode::Forbidden)?;
    let prefs: Preferences = service::load(&state.db, &user, Record::Preferences).await?;
    Ok(HttpResponse::Ok().json(prefs))
}

/// Change the caller's preferences
///
/// JWT only (an API key gets 403 FORBIDDEN). Only the fields sent change; answers the full preferences. Errors:
/// VALIDATION_INVALID_FORMAT, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(put, path = "/auth/preferences", tag = "Account", request_body = UpdatePreferences,
    responses((status = 200, body = Preferences, description = "The full preferences")), security(("bearer" = [])))]
pub async fn update_preferences(
    state: web::Data<AppState>,
    principal: Principal,
    body: crate::body::Json<UpdatePreferences>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let user = user_id(&principal, ErrorCode::Forbidden)?;
    let prefs = service::update_preferences(&state.db, now, &user, body.into_inner()).await?;
    Ok(HttpResponse::Ok().json(prefs))
}

/// Show the caller's help state
///
/// JWT only (an API key gets 403 FORBIDDEN).
#[utoipa::path(
    get,
    path = "/auth/help-state",
    tag = "Account",
    responses((status = 200, body = HelpState)),
    security(("bearer" = []))
)]
pub async fn get_help_state(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let user = user_id(&principal, ErrorCode::Forbidden)?;
    let help: HelpState = service::load(&state.db, &user, Record::HelpState).await?;
    Ok(HttpResponse::Ok().json(help))
}

/// Change the caller's help state
///
/// JWT only (an API key gets 403 FORBIDDEN). Only the fields sent change. Errors: VALIDATION_INVALID_FORMAT,
/// VALIDATION_OUT_OF_RANGE.
#[utoipa::path(put, path = "/auth/help-state", tag = "Account", request_body = UpdateHelpState,
    responses((status = 200, body = HelpState)), security(("bearer" = [])))]
pub async fn update_help_state(
    state: web::Data<AppState>,
    principal: Principal,
    body: crate::body::Json<UpdateHelpState>,
) -> ApiResult<HttpResponse> {
    change_help_state(&state, &principal, body.into_inner()).await
}

/// Change the caller's help state (the origin service's method)
///
/// `PUT /auth/help-state` under the method the origin service's admin uses: the same body, answer and errors.
#[utoipa::path(patch, path = "/auth/help-state", tag = "Account", request_body = UpdateHelpState,
    responses((status = 200, body = HelpState)), security(("bearer" = [])))]
pub async fn patch_help_state(
    state: web::Data<AppState>,
    principal: Principal,
    body: crate::body::Json<UpdateHelpState>,
) -> ApiResult<HttpResponse> {
    change_help_state(&state, &principal, body.into_inner()).await
}

async fn change_help_state(
    state: &AppState,
    principal: &Principal,
    update: UpdateHelpState,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let user = user_id(principal, ErrorCode::Forbidden)?;
    let help = service::update_help_state(&state.db, now, &user, update).await?;
    Ok(HttpResponse::Ok().json(help))
}

/// Reset the caller's help state
///
/// JWT only (an API key gets 403 FORBIDDEN). Answers the defaults.
#[utoipa::path(delete, path = "/auth/help-state", tag = "Account",
    responses((status = 200, body = HelpState, description = "Back to the defaults")), security(("bearer" = [])))]
pub async fn reset_help_state(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    back_to_default_help(&state, &principal).await
}

/// Reset the caller's help state (the origin service's path)
///
/// `DELETE /auth/help-state` at the path the origin service's admin uses: the same answer and errors.
#[utoipa::path(post, path = "/auth/help-state/reset", tag = "Account",
    responses((status = 200, body = HelpState, description = "Back to the defaults")), security(("bearer" = [])))]
pub async fn reset_help_state_by_post(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    back_to_default_help(&state, &principal).await
}

async fn back_to_default_help(state: &AppState, principal: &Principal) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let user = user_id(principal, ErrorCode::Forbidden)?;
    let help = service::reset_help_state(&state.db, now, &user).await?;
    Ok(HttpResponse::Ok().json(help))
}

/// Show the caller's onboarding state
///
/// JWT only (an API key gets 400 ONBOARDING_REQUIRES_IDP).
#[utoipa::path(
    get,
    path = "/auth/onboarding",
    tag = "Account",
    responses((status = 200, body = Onboarding)),
    security(("bearer" = []))
)]
pub async fn get_onboarding(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let user = user_id(&principal, ErrorCode::OnboardingRequiresIdp)?;
    let onboarding: Onboarding = service::load(&state.db, &user, Record::Onboarding).await?;
    Ok(HttpResponse::Ok().json(onboarding))
}

/// Complete the caller's onboarding
///
/// JWT only (an API key gets 400 ONBOARDING_REQUIRES_IDP). Errors: VALIDATION_INVALID_FORMAT.
#[utoipa::path(post, path = "/auth/onboarding/complete", tag = "Account", request_body = CompleteOnboarding,
    responses((status = 200, body = Onboarding)), security(("bearer" = [])))]
pub async fn complete_onboarding(
    state: web::Data<AppState>,
    principal: Principal,
    body: crate::body::Json<CompleteOnboarding>,
) -> ApiResult<HttpResponse> {
    finish_onboarding(&state, &principal, body.into_inner()).await
}

/// Complete the caller's onboarding (the origin service's path)
///
/// `POST /auth/onboarding/complete` at the path and method the origin service's admin uses: the same body, answer
/// and errors.
#[utoipa::path(put, path = "/auth/onboarding", tag = "Account", request_body = CompleteOnboarding,
    responses((status = 200, body = Onboarding)), security(("bearer" = [])))]
pub async fn put_onboarding(
    state: web::Data<AppState>,
    principal: Principal,
    body: crate::body::Json<CompleteOnboarding>,
) -> ApiResult<HttpResponse> {
    finish_onboarding(&state, &principal, body.into_inner()).await
}

async fn finish_onboarding(
    state: &AppState,
    principal: &Principal,
    body: CompleteOnboarding,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let user = user_id(principal, ErrorCode::OnboardingRequiresIdp)?;
    let onboarding = service::complete_onboarding(&state.db, now, &user, body).await?;
    Ok(HttpResponse::Ok().json(onboarding))
}
