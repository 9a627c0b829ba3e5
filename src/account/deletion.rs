//! `DELETE /auth/account`: a user leaves Plinth. Their memberships, settings and
//! onboarding progress go; content they wrote stays with the sites that hold it.

use actix_web::{web, HttpResponse};

use super::service;
use crate::auth::Principal;
use crate::error::{ApiResult, ErrorCode, Problem};
use crate::state::AppState;

/// Delete the caller's account
///
/// JWT only (an API key gets 403 FORBIDDEN). Deletes the caller's identity-provider account and memberships. Errors:
/// 409 AUTH_ACCOUNT_SOLE_OWNER while the caller is the sole owner of a site.
#[utoipa::path(
    delete,
    path = "/auth/account",
    tag = "Account",
    responses(
        (status = 204, description = "Memberships, preferences, help state and onboarding removed"),
        (status = 409, body = Problem, description = "AUTH_ACCOUNT_SOLE_OWNER: transfer ownership or delete those sites first")
    ),
    security(("bearer" = []))
)]
pub async fn delete_account(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let user = principal.require_user(ErrorCode::Forbidden)?.idp_user_id.clone();
    service::delete_account(&state, now, &user).await?;
    Ok(HttpResponse::NoContent().finish())
}
