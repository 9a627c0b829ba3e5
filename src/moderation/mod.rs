//! User moderation by system admins: suspend (for a time), ban, unsuspend, and
//! delete a banned user. Suspended and banned users are refused on every call.
//!
//! The state is read from the database on each bearer-token request (one
//! primary-key lookup) rather than cached in memory, so a ban takes effect at
//! once on every instance of a multi-process deployment.

mod gate;
mod model;
mod service;

pub use gate::ModerationGate;
pub use model::*;

use actix_web::web::{self};
use actix_web::HttpResponse;

use crate::auth::Principal;
use crate::error::{ApiError, ApiResult, ErrorCode, Problem};
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [suspend_user, ban_user, unsuspend_user, delete_user]);
}

fn require_system_admin(principal: &Principal) -> ApiResult<()> {
    if principal.is_system_admin() {
        Ok(())
    } else {
        Err(ApiError::new(ErrorCode::AuthInsufficientRole, "user moderation needs a system admin or a Master key"))
    }
}

/// Suspend a user
///
/// System admins or a Master key. Errors: VALIDATION_ERROR, VALIDATION_OUT_OF_RANGE, AUTH_INSUFFICIENT_ROLE.
#[utoipa::path(
    post,
    path = "/admin/users/{idp_user_id}/suspend",
    tag = "Moderation",
    params(("idp_user_id" = String, Path)),
    request_body = SuspendUser,
    responses(
        (status = 200, body = ModerationResult),
        (status = 400, body = Problem, description = "The user is banned")
    )
)]
pub async fn suspend_user(
    state: web::Data<AppState>,
    principal: Principal,
    user: web::Path<String>,
    body: crate::body::Json<SuspendUser>,
) -> ApiResult<HttpResponse> {
    require_system_admin(&principal)?;
    let now = state.clock.now();
    let result = service::suspend(&state, &principal.actor(), now, &user, body.into_inner()).await?;
    Ok(HttpResponse::Ok().json(result))
}

/// Ban a user
///
/// System admins or a Master key. Errors: AUTH_INSUFFICIENT_ROLE, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(
    post,
    path = "/admin/users/{idp_user_id}/ban",
    tag = "Moderation",
    params(("idp_user_id" = String, Path)),
    request_body = BanUser,
    responses((status = 200, body = ModerationResult))
)]
pub async fn ban_user(
    state: web::Data<AppState>,
    principal: Principal,
    user: web::Path<String>,
    body: crate::body::Json<BanUser>,
) -> ApiResult<HttpResponse> {
    require_system_admin(&principal)?;
    let now = state.clock.now();
    let result = service::ban(&state, &principal.actor(), now, &user, &body).await?;
    Ok(HttpResponse::Ok().json(result))
}

/// Lift a user's suspension
///
/// System admins or a Master key. A banned user answers 400. Errors: VALIDATION_ERROR, AUTH_INSUFFICIENT_ROLE.
#[utoipa::path(
    post,
    path = "/admin/users/{idp_user_id}/unsuspend",
    tag = "Moderation",
    params(("idp_user_id" = String, Path)),
    responses(
        (status = 200, body = ModerationResult),
        (status = 400, body = Problem, description = "Banned users stay banned")
    )
)]
pub async fn unsuspend_user(
    state: web::Data<AppState>,
    principal: Principal,
    user: web::Path<String>,
) -> ApiResult<HttpResponse> {
    require_system_admin(&principal)?;
    let now = state.clock.now();
    let result = service::unsuspend(&state, &principal.actor(), now, &user).await?;
    Ok(HttpResponse::Ok().json(result))
}

/// Delete a banned user
///
/// Irreversible: the provider account, memberships, settings, onboarding and the moderation record go; content the user
/// wrote stays, no longer attributed to them. System admins or a Master key; only a banned user may be deleted
/// (400 otherwise). Errors: VALIDATION_ERROR, AUTH_INSUFFICIENT_ROLE.
#[utoipa::path(
    delete,
    path = "/admin/users/{idp_user_id}",
    tag = "Moderation",
    params(("idp_user_id" = String, Path)),
    responses(
        (status = 200, body = ModerationResult, description = "status deleted"),
        (status = 400, body = Problem, description = "Only banned users can be deleted")
    )
)]
pub async fn delete_user(
    state: web::Data<AppState>,
    principal: Principal,
    user: web::Path<String>,
) -> ApiResult<HttpResponse> {
    require_system_admin(&principal)?;
    let now = state.clock.now();
    let result = service::delete_user(&state, &principal.actor(), now, user.into_inner()).await?;
    Ok(HttpResponse::Ok().json(result))
}
