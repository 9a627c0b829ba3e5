//! In-app notifications for identity-provider users: created when content is
//! submitted for review (to the sites' reviewers and above), listed, marked read.
//! Only JWT users have notifications; API keys get NOTIFICATION_REQUIRES_IDP.

use actix_web::web::{self};
use actix_web::HttpResponse;
use chrono::{DateTime, Utc};
use plinth_entities::{notification, site_member};
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::auth::{Capability, Principal, Role};
use crate::error::{ApiError, ApiResult, ErrorCode, Problem};
use crate::pagination::{fetch_page, PageParams, Paginated};
use crate::routes::Routes;
use crate::state::AppState;

pub const DEFAULT_PER_PAGE: u64 = 20;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_notifications, mark_all_read, mark_read]);
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct NotificationResponse {
    pub id: Uuid,
    pub site_id: Option<Uuid>,
    /// e.g. `review_requested`
    pub kind: String,
    pub title: String,
    pub body: String,
    pub entity_type: Option<String>,
    pub entity_id: Option<String>,
    pub is_read: bool,
    pub read_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

impl From<&notification::Model> for NotificationResponse {
    fn from(m: &notification::Model) -> Self {
        Self {
            id: m.id,
            site_id: m.site_id,
            kind: m.kind.clone(),
            title: m.title.clone(),
            body: m.body.clone(),
            entity_type: m.entity_type.clone(),
            entity_id: m.entity_id.clone(),
            is_read: m.read_at.is_some(),
            read_at: m.read_at,
            created_at: m.created_at,
        }
    }
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct NotificationQuery {
    pub page: Option<u64>,
    /// Default 20, at most 100.
    pub per_page: Option<u64>,
    /// Only unread ones.
    #[serde(default)]
    pub unread: bool,
}

#[derive(Serialize, ToSchema)]
pub struct MarkedRead {
    pub updated: u64,
}

/// What a review request is about.
pub struct ReviewRequest<'a> {
    pub site_ids: &'a [Uuid],
    pub entity_type: &'a str,
    pub entity_id: Uuid,
    pub title: &'a str,
    /// The submitting user, who is not notified of their own request.
    pub submitted_by: Option<&'a str>,
    /// When it was submitted (the app's clock).
    pub at: DateTime<Utc>,
}

/// Notifies every reviewer, editor, admin and owner of the item's sites, inside
/// the caller's transaction (so the notification exists exactly when the status
/// change does).
pub async fn notify_reviewers<C: ConnectionTrait>(db: &C, request: ReviewRequest<'_>) -> ApiResult<()> {
    let members = site_member::Entity::find()
        .filter(site_member::Column::SiteId.is_in(request.site_ids.to_vec()))
        .all(db)
        .await?;
    let now = request.at;
    let mut notified = std::collections::HashSet::new();
    for member in members {
        let may_review = Role::parse(&member.role).is_some_and(|r| r.has(Capability::ReviewContent));
        if !may_review
            || request.submitted_by == Some(member.idp_user_id.as_str())
            || !notified.insert(member.idp_user_id.clone())
        {
            continue;
        }
        notification::ActiveModel {
            id: Set(Uuid::new_v4()),
            idp_user_id: Set(member.idp_user_id),
            site_id: Set(Some(member.site_id)),
            kind: Set("review_requested".into()),
            title: Set(format!("Review requested: {}", request.title)),
            body: Set(format!("A {} was submitted for review.", request.entity_type)),
            entity_type: Set(Some(request.entity_type.to_string())),
            entity_id: Set(Some(request.entity_id.to_string())),
            read_at: Set(None),
            created_at: Set(now),
        }
        .insert(db)
        .await?;
    }
    Ok(())
}

fn user_id(principal: &Principal) -> ApiResult<&str> {
    Ok(principal.require_user(ErrorCode::NotificationRequiresIdp)?.idp_user_id.as_str())
}

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
    let mut select = notification::Entity::find()
        .filter(notification::Column::IdpUserId.eq(user))
        .order_by_desc(notification::Column::CreatedAt)
        .order_by_asc(notification::Column::Id);
    if query.unread {
        select = select.filter(notification::Column::ReadAt.is_null());
    }
    let page = PageParams { page: query.page, per_page: query.per_page }.resolve_with_default(DEFAULT_PER_PAGE);
    let found = fetch_page(&state.db, select, page).await?;
    Ok(HttpResponse::Ok().json(found.map(|m| NotificationResponse::from(&m))))
}

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
    let id = id.into_inner();
    let found = notification::Entity::find_by_id(id)
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found("notification", id))?;
    if found.idp_user_id != user {
        return Err(ApiError::new(ErrorCode::NotificationAccessDenied, "this notification belongs to another user"));
    }
    if found.read_at.is_some() {
        return Ok(HttpResponse::Ok().json(NotificationResponse::from(&found)));
    }
    let mut row: notification::ActiveModel = found.into();
    row.read_at = Set(Some(state.clock.now()));
    let updated = row.update(&state.db).await?;
    Ok(HttpResponse::Ok().json(NotificationResponse::from(&updated)))
}

#[utoipa::path(post, path = "/notifications/read-all", tag = "Notifications",
    responses((status = 200, body = MarkedRead)), security(("bearer" = [])))]
pub async fn mark_all_read(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let user = user_id(&principal)?;
    let result = notification::Entity::update_many()
        .col_expr(notification::Column::ReadAt, Expr::value(state.clock.now()))
        .filter(notification::Column::IdpUserId.eq(user))
        .filter(notification::Column::ReadAt.is_null())
        .exec(&state.db)
        .await?;
    Ok(HttpResponse::Ok().json(MarkedRead { updated: result.rows_affected }))
}
