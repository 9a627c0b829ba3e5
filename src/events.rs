//! Domain events (`blog.created`, `page.published`, …) published after a
//! mutation commits. The webhook dispatcher subscribes to this bus; so can tests.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::broadcast;
use uuid::Uuid;

/// One event for one site: the spec's delivery body without the transport parts.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DomainEvent {
    pub event: String,
    pub timestamp: DateTime<Utc>,
    pub site_id: Uuid,
    pub data: Value,
}

pub struct EventBus {
    sender: broadcast::Sender<DomainEvent>,
    published: std::sync::atomic::AtomicU64,
}

impl Default for EventBus {
    fn default() -> Self {
        // Subscribers that fall this far behind lose events; the dispatcher
        // persists what it receives, so it keeps up.
        let (sender, _) = broadcast::channel(4096);
        Self { sender, published: std::sync::atomic::AtomicU64::new(0) }
    }
}

impl EventBus {
    pub fn publish(&self, event: DomainEvent) {
        tracing::debug!(event = %event.event, site_id = %event.site_id, "event");
        // No subscriber is not an error: nobody listens yet.
        if self.sender.send(event).is_ok() {
            self.published.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// Events delivered to at least one subscriber so far.
    pub fn published(&self) -> u64 {
        self.published.load(std::sync::atomic::Ordering::SeqCst)
    }

    pub fn subscribe(&self) -> broadcast::Receiver<DomainEvent> {
        self.sender.subscribe()
    }
}
