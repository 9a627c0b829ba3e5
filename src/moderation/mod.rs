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
    body: web::Json<SuspendUser>,
) -> ApiResult<HttpResponse> {
    require_system_admin(&principal)?;
    let now = state.clock.now();
    let result = service::suspend(&state, &principal.actor_id(), now, &user, body.into_inner()).await?;
    Ok(HttpResponse::Ok().json(result))
}

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
    body: web::Json<BanUser>,
) -> ApiResult<HttpResponse> {
    require_system_admin(&principal)?;
    let now = state.clock.now();
    let result = service::ban(&state, &principal.actor_id(), now, &user, &body).await?;
    Ok(HttpResponse::Ok().json(result))
}

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
    let result = service::unsuspend(&state, &principal.actor_id(), now, &user).await?;
    Ok(HttpResponse::Ok().json(result))
}

/// Irreversible: the provider account, memberships, settings, onboarding and the
/// moderation record go; content the user wrote stays, no longer attributed to them.
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
    let result = service::delete_user(&state, &principal.actor_id(), now, user.into_inner()).await?;
    Ok(HttpResponse::Ok().json(result))
}
