//! In-app notifications for identity-provider users: created when content is
//! submitted for review (to the sites' reviewers and above), listed, marked read.
//! Only JWT users have notifications; API keys get NOTIFICATION_REQUIRES_IDP.

mod model;
pub mod service;

pub use model::*;
pub use service::{notify_reviewers, DEFAULT_PER_PAGE};

use actix_web::web::{self};
use actix_web::HttpResponse;
use uuid::Uuid;

use crate::auth::Principal;
use crate::error::{ApiError, ApiResult, ErrorCode, Problem};
use crate::pagination::Paginated;
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_notifications, mark_all_read, mark_read]);
}

fn user_id(principal: &Principal) -> ApiResult<&str> {
    Ok(principal.require_user(ErrorCode::NotificationRequiresIdp)?.idp_user_id.as_str())
}

/// List the caller's notifications
///
/// JWT only (an API key gets 403 NOTIFICATION_REQUIRES_IDP).
#[utoipa::path(
    get,
    path = "/notifications",
    tag = "Notifications",
    params(NotificationQuery),
    responses(
        (status = 200, body = Paginated<NotificationResponse>, description = "The caller's notifications, newest first"),
        (status = "4XX", body = Problem, description = "NOTIFICATION_REQUIRES_IDP for API keys")
    ),
    security(("bearer" = []))
)]
pub async fn list_notifications(
    state: web::Data<AppState>,
    principal: Principal,
    query: web::Query<NotificationQuery>,
) -> ApiResult<HttpResponse> {
    let user = user_id(&principal)?;
    Ok(HttpResponse::Ok().json(service::list(&state, user, &query).await?))
}

/// Mark a notification read
///
/// JWT only (an API key gets 403 NOTIFICATION_REQUIRES_IDP); one's own notifications only. Errors: ENTITY_NOT_FOUND,
/// NOTIFICATION_ACCESS_DENIED.
#[utoipa::path(
    post,
    path = "/notifications/{id}/read",
    tag = "Notifications",
    params(("id" = Uuid, Path)),
    responses(
        (status = 200, body = NotificationResponse),
        (status = "4XX", body = Problem, description = "NOTIFICATION_ACCESS_DENIED for another user's")
    ),
    security(("bearer" = []))
)]
pub async fn mark_read(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let user = user_id(&principal)?;
    let found = service::find(&state, id.into_inner()).await?;
    if found.idp_user_id != user {
        return Err(ApiError::new(ErrorCode::NotificationAccessDenied, "this notification belongs to another user"));
    }
    let now = state.clock.now();
    Ok(HttpResponse::Ok().json(service::mark_read(&state, now, found).await?))
}

/// Mark all the caller's notifications read
///
/// JWT only (an API key gets 403 NOTIFICATION_REQUIRES_IDP).
#[utoipa::path(post, path = "/notifications/read-all", tag = "Notifications",
    responses((status = 200, body = MarkedRead)), security(("bearer" = [])))]
pub async fn mark_all_read(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let user = user_id(&principal)?;
    let now = state.clock.now();
    Ok(HttpResponse::Ok().json(service::mark_all_read(&state, now, user).await?))
}
