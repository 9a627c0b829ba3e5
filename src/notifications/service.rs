//! Notifications: created for reviewers inside the transaction of a review
//! request, listed for their user, marked read.

use chrono::{DateTime, Utc};
use plinth_entities::{notification, site_member};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect, Select,
};
use uuid::Uuid;

use super::model::{MarkedRead, NotificationQuery, NotificationResponse, UnreadCount};
use crate::auth::Capability;
use crate::content::hooks::SubmittedForReview;
use crate::db::Touched;
use crate::error::{ApiError, ApiResult};
use crate::pagination::{fetch_page, PageParams, Paginated, SortDir};
use crate::permissions::RoleGrants;
use crate::state::AppState;

pub const DEFAULT_PER_PAGE: u64 = 20;

/// Notifies every reviewer, editor, admin and owner of the item's sites, inside
/// the caller's transaction (so the notification exists exactly when the status
/// change does).
pub async fn notify_reviewers<C: ConnectionTrait>(db: &C, request: SubmittedForReview<'_>) -> ApiResult<()> {
    let members = site_member::Entity::find()
        .filter(site_member::Column::SiteId.is_in(request.site_ids.to_vec()))
        .all(db)
        .await?;
    let now = request.at;
    let mut notified = std::collections::HashSet::new();
    for member in members {
        let may_review = member.role.has(Capability::ReviewContent);
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
            kind: Set(plinth_entities::kinds::NotificationKind::ReviewRequested),
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

/// The user's notifications (or the unread ones), in order of creation
/// (`ix_notifications_user_time`, walked either way).
pub fn list_query(idp_user_id: &str, unread: bool, order: SortDir) -> Select<notification::Entity> {
    let select = notification::Entity::find().filter(notification::Column::IdpUserId.eq(idp_user_id));
    in_order(select, unread, order)
}

/// `select` in order of creation (ties by id), only the unread ones if asked.
fn in_order(select: Select<notification::Entity>, unread: bool, order: SortDir) -> Select<notification::Entity> {
    let select = match order {
        SortDir::Desc => select.order_by_desc(notification::Column::CreatedAt).order_by_desc(notification::Column::Id),
        SortDir::Asc => select.order_by_asc(notification::Column::CreatedAt).order_by_asc(notification::Column::Id),
    };
    match unread {
        true => select.filter(notification::Column::ReadAt.is_null()),
        false => select,
    }
}

pub async fn list(
    state: &AppState,
    idp_user_id: &str,
    query: &NotificationQuery,
) -> ApiResult<Paginated<NotificationResponse>> {
    let select = list_query(idp_user_id, query.unread, query.sort_dir.unwrap_or_default());
    page_of(state, select, query).await
}

async fn page_of(
    state: &AppState,
    select: Select<notification::Entity>,
    query: &NotificationQuery,
) -> ApiResult<Paginated<NotificationResponse>> {
    let page = PageParams { page: query.page, per_page: query.per_page }.resolve_with_default(DEFAULT_PER_PAGE);
    Ok(fetch_page(&state.db, select, page).await?.map(|m| NotificationResponse::from(&m)))
}

pub async fn find(state: &AppState, id: Uuid) -> ApiResult<notification::Model> {
    notification::Entity::find_by_id(id).one(&state.db).await?.ok_or_else(|| ApiError::not_found("notification", id))
}

/// Marks the notification read at `now`; one already read keeps its time.
pub async fn mark_read(
    state: &AppState,
    now: DateTime<Utc>,
    found: notification::Model,
) -> ApiResult<NotificationResponse> {
    if found.read_at.is_some() {
        return Ok(NotificationResponse::from(&found));
    }
    // The site's cached notification reads (its list, the unread count).
    let touched: Vec<Touched> = found.site_id.map(Touched::Answers).into_iter().collect();
    let mut row: notification::ActiveModel = found.into();
    row.read_at = Set(Some(now));
    let updated = state.db.write(&touched, async |txn| row.update(txn).await).await?;
    Ok(NotificationResponse::from(&updated))
}

/// Marks the user's unread notifications read at `now`: all of them, or
/// those of one site.
pub async fn mark_all_read(
    state: &AppState,
    now: DateTime<Utc>,
    idp_user_id: &str,
    site_id: Option<Uuid>,
) -> ApiResult<MarkedRead> {
    let mut touched = Vec::new();
    let mut update = notification::Entity::update_many()
        .col_expr(notification::Column::ReadAt, Expr::value(now))
        .filter(notification::Column::IdpUserId.eq(idp_user_id))
        .filter(notification::Column::ReadAt.is_null());
    match site_id {
        Some(site_id) => {
            update = update.filter(notification::Column::SiteId.eq(site_id));
            touched.push(Touched::Answers(site_id));
        }
        // Every site with an unread one has its cached notification reads
        // dropped (at most the user's sites).
        None => {
            let sites = notification::Entity::find()
                .select_only()
                .column(notification::Column::SiteId)
                .distinct()
                .filter(notification::Column::IdpUserId.eq(idp_user_id))
                .filter(notification::Column::ReadAt.is_null())
                .into_tuple::<Option<Uuid>>()
                .all(&state.db)
                .await?;
            touched.extend(sites.into_iter().flatten().map(Touched::Answers));
        }
    }
    let result = state.db.write(&touched, async |txn| update.exec(txn).await).await?;
    Ok(MarkedRead { updated: result.rows_affected })
}

/// The user's notifications on one site (or the unread ones), in order of
/// creation (`ix_notifications_user_site_time`, walked either way).
pub fn site_list_query(idp_user_id: &str, site_id: Uuid, unread: bool, order: SortDir) -> Select<notification::Entity> {
    let select = notification::Entity::find()
        .filter(notification::Column::IdpUserId.eq(idp_user_id))
        .filter(notification::Column::SiteId.eq(site_id));
    in_order(select, unread, order)
}

pub async fn list_on_site(
    state: &AppState,
    idp_user_id: &str,
    site_id: Uuid,
    query: &NotificationQuery,
) -> ApiResult<Paginated<NotificationResponse>> {
    let select = site_list_query(idp_user_id, site_id, query.unread, query.sort_dir.unwrap_or_default());
    page_of(state, select, query).await
}

/// The count of the user's unread notifications on a site: the entries of
/// `ix_notifications_user_site_unread`, which holds only unread ones.
pub fn unread_query(idp_user_id: &str, site_id: Uuid) -> Select<notification::Entity> {
    notification::Entity::find()
        .filter(notification::Column::IdpUserId.eq(idp_user_id))
        .filter(notification::Column::SiteId.eq(site_id))
        .filter(notification::Column::ReadAt.is_null())
}

pub async fn unread_count(state: &AppState, idp_user_id: &str, site_id: Uuid) -> ApiResult<UnreadCount> {
    let unread_count = unread_query(idp_user_id, site_id).count(&state.db).await?;
    Ok(UnreadCount { unread_count })
}
