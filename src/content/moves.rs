//! Status moves of many items or by review: approve or send back, and bulk
//! status changes and deletes.

use plinth_entities::{content, content_site};
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;
use uuid::Uuid;

use super::access::{check_status_move, require_may_edit, require_module, ItemAccess};
use super::events::{change_events, events_for, store_events};
use super::model::{BulkAction, BulkRequest, BulkResult, ContentResponse, ReviewAction, ReviewRequest};
use super::relations;
use super::write::{audit_entry, audited, notify_if_submitted, published_at, still_unchanged, workflow_enabled};
use super::KindRules;
use super::{validate, ContentKind, ContentStatus};
use crate::audit::{self, Action};
use crate::auth::{Capability, SiteGrant};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::events::EventAction;
use crate::permissions::RoleGrants;
use crate::state::AppState;

/// Approve (publish, or schedule when `publish_start` lies ahead) or send back.
/// (`access::on_all_sites`)
pub async fn review(state: &AppState, access: ItemAccess, body: ReviewRequest) -> ApiResult<ContentResponse> {
    let ItemAccess { item: current, relations: rel, grant } = access;
    let (id, kind, role) = (current.id, current.kind, grant.role());
    role.ensure(Capability::ReviewContent, &format!("reviewing a {}", kind.as_str()))?;
    let reviewed = audit::write(&state.db, async |txn| {
        let current = still_unchanged(txn, kind, &current).await?;
        let from = current.status;
        if from != ContentStatus::InReview {
            return Err(ApiError::new(
                ErrorCode::ContentReviewInvalidStatus,
                format!("only content in review can be reviewed; this is {}", from.as_str()),
            ));
        }
        let now = state.clock.now();
        if body.action == ReviewAction::Approve {
            validate::publishable(kind, &current.title, &current.body)?;
        }
        let to = match body.action {
            ReviewAction::Approve if current.publish_start.is_some_and(|s| s > now) => ContentStatus::Scheduled,
            ReviewAction::Approve => ContentStatus::Published,
            ReviewAction::RequestChanges => ContentStatus::Draft,
        };
        let before = relations::response(&current, rel);
        let published = published_at(to, from, current.published_at, now);
        let mut row: content::ActiveModel = current.into();
        row.status = Set(to);
        row.published_at = Set(published);
        row.updated_at = Set(now);
        row.update(txn).await?;
        let entry = audit_entry(grant.actor(), Action::Update, kind, id, before.site_ids.first().copied());
        let reviewed = audited(txn, now, id, entry, &before).await?;
        store_events(state, txn, change_events(kind, from, &reviewed, now)).await?;
        Ok(reviewed)
    })
    .await?;
    // The comment is what a reviewer wrote: logged is only that there was one.
    if body.comment.is_some_and(|c| !c.trim().is_empty()) {
        tracing::info!(%id, action = ?body.action, "review comment");
    }
    Ok(reviewed)
}

/// One action on many items of one site, all or nothing.
/// `site`: the caller's standing on the site (`Principal::standing`); what it
/// may do there is the action's rule.
pub async fn bulk(state: &AppState, site: &SiteGrant, kind: ContentKind, body: BulkRequest) -> ApiResult<BulkResult> {
    let (site_id, role) = (site.site_id(), site.role());
    require_module(state, kind, &[site_id]).await?;
    let status = match body.action {
        BulkAction::UpdateStatus => {
            role.ensure(Capability::CreateContent, "changing status")?;
            Some(body.status.ok_or_else(|| ApiError::new(kind.bulk_status_required(), "UpdateStatus needs a status"))?)
        }
        BulkAction::Delete => {
            role.ensure(Capability::EditAnyContent, "deleting in bulk")?;
            None
        }
    };
    if body.ids.len() > super::bulk::MAX_BULK_IDS {
        return Err(ApiError::validation(vec![FieldError::new(
            "ids",
            ErrorCode::ValidationOutOfRange,
            format!("at most {} ids per bulk request", super::bulk::MAX_BULK_IDS),
        )]));
    }
    let workflow = workflow_enabled(state, &[site_id]).await?;
    audit::write(&state.db, async |txn| {
        let items = content::Entity::find()
            .filter(content::Column::Id.is_in(body.ids.clone()))
            .filter(content::Column::Kind.eq(kind.as_str()))
            .filter(content::Column::IsDeleted.eq(false))
            .all(txn)
            .await?;
        let on_site: std::collections::HashSet<Uuid> = content_site::Entity::find()
            .filter(content_site::Column::SiteId.eq(site_id))
            .filter(content_site::Column::ContentId.is_in(body.ids.clone()))
            .all(txn)
            .await?
            .into_iter()
            .map(|r| r.content_id)
            .collect();
        if let Some(missing) = body.ids.iter().find(|id| !on_site.contains(id) || !items.iter().any(|m| m.id == **id)) {
            return Err(ApiError::not_found(kind.as_str(), missing));
        }
        let now = state.clock.now();
        let actor = site.actor();
        let mut changed = Vec::new();
        for item in items {
            let from = item.status;
            let is_own = item.created_by.as_ref() == Some(actor);
            let mut row: content::ActiveModel = item.clone().into();
            match status {
                Some(to) => {
                    require_may_edit(role, is_own, from, kind)?;
                    check_status_move(role, workflow, from, to)?;
                    if to.is_publishing() {
                        validate::publishable(kind, &item.title, &item.body)?;
                    }
                    if from != to {
                        validate::schedule(to, item.publish_start, now)?;
                    }
                    row.status = Set(to);
                    row.published_at = Set(published_at(to, from, item.published_at, now));
                    row.updated_at = Set(now);
                }
                None => {
                    row.is_deleted = Set(true);
                    row.deleted_at = Set(Some(now));
                }
            }
            row.update(txn).await?;
            if let Some(to) = status {
                notify_if_submitted(txn, actor, kind, (from, to, now), item.id, &item.title, &[site_id]).await?;
            }
            let action = if status.is_some() { Action::Update } else { Action::Delete };
            let entry = audit_entry(actor, action, kind, item.id, Some(site_id));
            audit::record(
                txn,
                now,
                entry,
                &json!({"status": item.status, "is_deleted": false}),
                &json!({"status": status.unwrap_or(item.status).as_str(), "is_deleted": status.is_none()}),
            )
            .await?;
            changed.push((item.id, from));
        }
        if changed.is_empty() {
            txn.found_nothing_to_change();
        }
        let ids: Vec<Uuid> = changed.iter().map(|(id, _)| *id).collect();
        let models = content::Entity::find().filter(content::Column::Id.is_in(ids.clone())).all(txn).await?;
        let mut rels = relations::load(txn, &ids, false).await?;
        let mut events = Vec::new();
        for model in &models {
            let item = relations::response(model, rels.remove(&model.id).unwrap_or_default());
            let from = changed.iter().find(|(id, _)| *id == model.id).map(|(_, f)| *f).unwrap_or(ContentStatus::Draft);
            events.extend(match status {
                Some(_) => change_events(kind, from, &item, now),
                None => events_for(kind, EventAction::Deleted, &item, now),
            });
        }
        store_events(state, txn, events).await?;
        Ok(BulkResult::all_of(format!("{:?}", body.action), &body.ids))
    })
    .await
}

/// A review's answer: the item as it now is, and `message`, what became of
/// it, as the origin service's admin reads a review's answer (`{status, message}`).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ReviewAnswer {
    #[serde(flatten)]
    pub item: ContentResponse,
    /// `published`, `scheduled for <time>` or `returned to draft for changes`.
    pub message: String,
}

impl ReviewAnswer {
    pub fn new(item: ContentResponse) -> Self {
        let message = match (item.status, item.publish_start) {
            (ContentStatus::Published, _) => "published".to_string(),
            (ContentStatus::Scheduled, Some(start)) => format!("scheduled for {}", start.to_rfc3339()),
            (ContentStatus::Scheduled, None) => "scheduled".to_string(),
            (ContentStatus::Draft, _) => "returned to draft for changes".to_string(),
            (other, _) => format!("now {}", other.as_str()),
        };
        ReviewAnswer { item, message }
    }
}
