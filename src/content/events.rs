//! The events of content changes (`blog.created`, `page.published`, …): built per
//! site of the item, stored in the outbox inside the change's transaction, and
//! announced after the commit.

use chrono::{DateTime, Utc};
use serde_json::json;

use super::model::ContentResponse;
use super::KindRules;
use super::{ContentKind, ContentStatus};
use crate::error::ApiResult;
use crate::events::{DomainEvent, EventAction, EventName};
use crate::state::AppState;

/// `<kind>.<what>` for every site of the item.
pub(crate) fn events_for(
    kind: ContentKind,
    what: EventAction,
    item: &ContentResponse,
    now: DateTime<Utc>,
) -> Vec<DomainEvent> {
    let Some(subject) = kind.event_subject() else { return Vec::new() };
    let data = json!({"id": item.id, "title": item.title, "slug": item.slug, "status": item.status});
    item.site_ids
        .iter()
        .map(|site_id| DomainEvent {
            event: EventName::new(subject, what),
            timestamp: now,
            site_id: *site_id,
            data: data.clone(),
        })
        .collect()
}

/// A change of an item whose status was `before`: updated, plus published when
/// it went live.
pub(crate) fn change_events(
    kind: ContentKind,
    before: ContentStatus,
    after: &ContentResponse,
    now: DateTime<Utc>,
) -> Vec<DomainEvent> {
    let mut events = events_for(kind, EventAction::Updated, after, now);
    if after.status == ContentStatus::Published && before != ContentStatus::Published {
        events.extend(events_for(kind, EventAction::Published, after, now));
    }
    events
}

pub(crate) fn created_events(kind: ContentKind, created: &ContentResponse, now: DateTime<Utc>) -> Vec<DomainEvent> {
    let mut events = events_for(kind, EventAction::Created, created, now);
    if created.status == ContentStatus::Published {
        events.extend(events_for(kind, EventAction::Published, created, now));
    }
    events
}

/// Stores the events in the outbox with the change; the write's commit
/// announces them (see `events::store`).
pub(crate) async fn store_events(
    state: &AppState,
    txn: &crate::db::WriteTxn,
    events: Vec<DomainEvent>,
) -> ApiResult<()> {
    crate::events::store(txn, &state.events, &events).await?;
    Ok(())
}
