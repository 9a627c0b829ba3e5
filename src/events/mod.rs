//! Domain events (`blog.created`, `page.published`, …). A mutation stores its
//! events in the outbox inside its own transaction ([`store`]) and, once
//! committed, announces them on the in-process bus ([`EventBus::announce`]),
//! which wakes the webhook dispatcher and lets tests observe them. The outbox,
//! not the bus, is what the dispatcher delivers from: nothing committed is lost.

use chrono::{DateTime, Utc};
use plinth_entities::event_outbox;
use sea_orm::{
    ActiveValue::{NotSet, Set},
    DbErr, EntityTrait,
};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::broadcast;
use uuid::Uuid;

pub mod names;
pub mod stream;

pub use names::{EventAction, EventName, Subject};

/// One event for one site: the spec's delivery body without the transport parts.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DomainEvent {
    pub event: EventName,
    pub timestamp: DateTime<Utc>,
    pub site_id: Uuid,
    pub data: Value,
}

/// Writes events to the outbox; call inside the transaction of the change.
/// Each event's site has changed content, so the transaction notes it (see
/// `db::WriteTxn`), and `bus` hears of them once the change is committed.
pub async fn store(db: &crate::db::WriteTxn, bus: &EventBus, events: &[DomainEvent]) -> Result<(), DbErr> {
    if events.is_empty() {
        return Ok(());
    }
    for event in events {
        db.touch(crate::db::Touched::Content(event.site_id));
    }
    store_presence(db, bus, events).await
}

/// [`store`] for events that change no answer a site serves (who edits
/// what: edit leases): on the stream like every event, no cache dropped.
pub async fn store_presence(db: &crate::db::WriteTxn, bus: &EventBus, events: &[DomainEvent]) -> Result<(), DbErr> {
    if events.is_empty() {
        return Ok(());
    }
    let (sender, announced) = (bus.sender.clone(), events.to_vec());
    db.after_commit(move || EventBus::send(&sender, &announced));
    let rows = events.iter().map(|e| event_outbox::ActiveModel {
        seq: NotSet,
        site_id: Set(e.site_id),
        event: Set(e.event.to_string()),
        data: Set(e.data.clone()),
        occurred_at: Set(e.timestamp),
    });
    event_outbox::Entity::insert_many(rows).exec(db).await?;
    Ok(())
}

pub struct EventBus {
    sender: broadcast::Sender<DomainEvent>,
    /// Live streams of events that left the outbox (`GET /sites/{id}/events`).
    pub stream: stream::StreamHub,
}

impl Default for EventBus {
    fn default() -> Self {
        // Only a wake-up signal and an observation point: a subscriber that falls
        // behind misses notices, never deliveries (those come from the outbox).
        let (sender, _) = broadcast::channel(1024);
        Self { sender, stream: Default::default() }
    }
}

impl EventBus {
    /// Tells in-process subscribers about committed events (see [`store`]).
    fn send(sender: &broadcast::Sender<DomainEvent>, events: &[DomainEvent]) {
        for event in events {
            tracing::debug!(event = %event.event, site_id = %event.site_id, "event");
            // No subscriber is not an error.
            let _ = sender.send(event.clone());
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<DomainEvent> {
        self.sender.subscribe()
    }

    /// Events were appended to the stream table (here or on another instance).
    pub fn stream_moved(&self) {
        self.stream.wake();
    }
}
