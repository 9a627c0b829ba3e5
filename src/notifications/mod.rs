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

use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult, ErrorCode, Problem};
use crate::pagination::Paginated;
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [
        list_notifications,
        mark_all_read,
        mark_read,
        mark_read_by_put,
        list_site_notifications,
        site_unread_count,
        mark_site_read,
    ]);
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
    mark_own_read(&state, &principal, id.into_inner()).await
}

/// Mark a notification read (the origin service's method)
///
/// `POST /notifications/{id}/read` under the method the origin service's admin
/// uses: the same answer and errors.
#[utoipa::path(
    put,
    path = "/notifications/{id}/read",
    tag = "Notifications",
    params(("id" = Uuid, Path)),
    responses(
        (status = 200, body = NotificationResponse),
        (status = "4XX", body = Problem, description = "NOTIFICATION_ACCESS_DENIED for another user's")
    ),
    security(("bearer" = []))
)]
pub async fn mark_read_by_put(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    mark_own_read(&state, &principal, id.into_inner()).await
}

async fn mark_own_read(state: &AppState, principal: &Principal, id: Uuid) -> ApiResult<HttpResponse> {
    let user = user_id(principal)?;
    let found = service::find(state, id).await?;
    if found.idp_user_id != user {
        return Err(ApiError::new(ErrorCode::NotificationAccessDenied, "this notification belongs to another user"));
    }
    let now = state.clock.now();
    Ok(HttpResponse::Ok().json(service::mark_read(state, now, found).await?))
}

/// Mark all the caller's notifications read
///
/// JWT only (an API key gets 403 NOTIFICATION_REQUIRES_IDP).
#[utoipa::path(post, path = "/notifications/read-all", tag = "Notifications",
    responses((status = 200, body = MarkedRead)), security(("bearer" = [])))]
pub async fn mark_all_read(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let user = user_id(&principal)?;
    let now = state.clock.now();
    Ok(HttpResponse::Ok().json(service::mark_all_read(&state, now, user, None).await?))
}

/// The caller, who must be an identity-provider user able to read the site.
async fn user_on_site<'p>(state: &AppState, principal: &'p Principal, site_id: Uuid) -> ApiResult<&'p str> {
    let user = user_id(principal)?;
    principal.require(state, site_id, Capability::Read).await?;
    Ok(user)
}

/// List the caller's notifications on a site
///
/// JWT only (an API key gets 403 NOTIFICATION_REQUIRES_IDP); the caller must be able to read the site. Newest
/// first (`sort_dir=asc` for oldest first), as the origin service's admin lists them.
#[utoipa::path(
    get,
    path = "/sites/{site_id}/notifications",
    tag = "Notifications",
    params(("site_id" = Uuid, Path), NotificationQuery),
    responses(
        (status = 200, body = Paginated<NotificationResponse>, description = "The caller's notifications on the site"),
        (status = "4XX", body = Problem, description = "NOTIFICATION_REQUIRES_IDP for API keys")
    ),
    security(("bearer" = []))
)]
pub async fn list_site_notifications(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<NotificationQuery>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    let user = user_on_site(&state, &principal, site_id).await?;
    Ok(HttpResponse::Ok().json(service::list_on_site(&state, user, site_id, &query).await?))
}

/// Count the caller's unread notifications on a site
///
/// JWT only (an API key gets 403 NOTIFICATION_REQUIRES_IDP); the caller must be able to read the site. Counted
/// from an index of the unread ones only.
#[utoipa::path(
    get,
    path = "/sites/{site_id}/notifications/unread-count",
    tag = "Notifications",
    params(("site_id" = Uuid, Path)),
    responses(
        (status = 200, body = UnreadCount),
        (status = "4XX", body = Problem, description = "NOTIFICATION_REQUIRES_IDP for API keys")
    ),
    security(("bearer" = []))
)]
pub async fn site_unread_count(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    let user = user_on_site(&state, &principal, site_id).await?;
    Ok(HttpResponse::Ok().json(service::unread_count(&state, user, site_id).await?))
}

/// Mark all the caller's notifications on a site read
///
/// JWT only (an API key gets 403 NOTIFICATION_REQUIRES_IDP); the caller must be able to read the site.
#[utoipa::path(
    put,
    path = "/sites/{site_id}/notifications/read-all",
    tag = "Notifications",
    params(("site_id" = Uuid, Path)),
    responses(
        (status = 200, body = MarkedRead),
        (status = "4XX", body = Problem, description = "NOTIFICATION_REQUIRES_IDP for API keys")
    ),
    security(("bearer" = []))
)]
pub async fn mark_site_read(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    let user = user_on_site(&state, &principal, site_id).await?;
    let now = state.clock.now();
    Ok(HttpResponse::Ok().json(service::mark_all_read(&state, now, user, Some(site_id)).await?))
}
