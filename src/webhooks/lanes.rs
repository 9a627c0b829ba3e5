//! A delivery's turn to be sent: a place in its webhook's queue, a slot of
//! its webhook's own, then its circuit's leave, then a slot of its site's lane.
//!
//! A webhook's queue in this process is bounded ([`QUEUED_PER_SLOT`] per send
//! slot): a delivery that finds it full (an endpoint slower than its
//! deliveries come, or hung before its circuit opened) waits in the database,
//! due for the retry pass, instead of in memory without bound with its claim
//! renewed by every pass.
//!
//! The send slots all sites share (`[tenants] webhook_send_slots`) are taken
//! in turn across sites: while other sites wait, a site holds at most its
//! fair share, and a site below its share is admitted at once even when
//! another site's hung endpoints hold every slot (see
//! `plinth_actors::fair_share`). Before a slot is taken, the webhook's circuit
//! is asked (`circuits`): a delivery it holds goes back to the database, due
//! when the circuit lets a probe through, and holds nothing meanwhile.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use plinth_entities::{webhook, webhook_delivery};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

use super::circuits::Admission;
use super::WebhookRuntime;
use crate::db::Touched;

/// Deliveries one webhook may have queued or sending here, per send slot.
pub const QUEUED_PER_SLOT: usize = 16;

/// One webhook's sends in this process: its own slots, and how many of its
/// deliveries hold a place in its queue.
pub struct EndpointSends {
    slots: Arc<tokio::sync::Semaphore>,
    queued: AtomicUsize,
}

/// A place in a webhook's queue, given back when dropped (sent, held by its
/// circuit, or its transaction failed).
pub struct QueuedSend {
    endpoint: Arc<EndpointSends>,
}

impl EndpointSends {
    fn new(slots: usize) -> Self {
        Self { slots: Arc::new(tokio::sync::Semaphore::new(slots)), queued: AtomicUsize::new(0) }
    }

    /// A place in the queue, or `None` when `bound` places are taken.
    fn queue(self: &Arc<Self>, bound: usize) -> Option<QueuedSend> {
        self.queued.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < bound).then_some(n + 1)).ok()?;
        Some(QueuedSend { endpoint: Arc::clone(self) })
    }
}

impl Drop for QueuedSend {
    fn drop(&mut self) {
        self.endpoint.queued.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Held while a delivery is sent.
pub struct SendTurn {
    _queued: QueuedSend,
    _own: Option<tokio::sync::OwnedSemaphorePermit>,
    _site: plinth_actors::Permit<Uuid>,
}

impl WebhookRuntime {
    /// A place in the webhook's queue, or `None` when it is full: the
    /// delivery then waits in the database for the retry pass.
    pub(super) fn queue_send(&self, webhook: Uuid) -> Option<QueuedSend> {
        let endpoint = Arc::clone(
            self.sends_per_webhook
                .entry(webhook)
                .or_insert_with(|| Arc::new(EndpointSends::new(self.sends_per_endpoint)))
                .value(),
        );
        endpoint.queue(self.sends_per_endpoint * QUEUED_PER_SLOT)
    }

    /// The slots to send `delivery` now, or `None` when its webhook's circuit
    /// holds it (it is then stored as due at the circuit's probe time).
    pub(super) async fn turn_to_send(
        &self,
        delivery: &webhook_delivery::Model,
        hook: &webhook::Model,
        queued: QueuedSend,
    ) -> Option<SendTurn> {
        // The semaphores are never closed.
        let own = Arc::clone(&queued.endpoint.slots).acquire_owned().await.ok();
        // Asked once the webhook's own slot is free: deliveries queued behind
        // a hung endpoint learn that its circuit opened meanwhile.
        if let Admission::WaitUntil(until) = self.circuits.admit(hook.id, self.state.clock.now()) {
            self.wait_for_circuit(delivery, until).await;
            return None;
        }
        let site = self.site_lanes.acquire(hook.site_id).await;
        Some(SendTurn { _queued: queued, _own: own, _site: site })
    }

    /// Sends in flight now, and sites sending or waiting to.
    pub fn send_lanes(&self) -> plinth_actors::Occupancy {
        self.site_lanes.occupancy()
    }

    /// Stores the delivery as due at `until`, unclaimed, with its attempts
    /// and status as they were.
    async fn wait_for_circuit(&self, delivery: &webhook_delivery::Model, until: DateTime<Utc>) {
        let instance = self.deliverer.claim.instance;
        let stored = self
            .state
            .db
            .write(&[Touched::Answers(delivery.site_id)], async |txn| {
                webhook_delivery::Entity::update_many()
                    .col_expr(webhook_delivery::Column::NextAttemptAt, Expr::value(until))
                    .col_expr(webhook_delivery::Column::ClaimedBy, Expr::value(Option::<Uuid>::None))
                    .filter(webhook_delivery::Column::Id.eq(delivery.id))
                    .filter(webhook_delivery::Column::ClaimedBy.eq(instance))
                    .exec(txn)
                    .await
            })
            .await;
        if let Err(e) = stored {
            tracing::warn!(error = %e, delivery = %delivery.id, "could not hold a delivery for its circuit; sent when its claim ends");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_webhooks_queue_holds_its_bound_and_a_place_comes_back_when_dropped() {
        let endpoint = Arc::new(EndpointSends::new(1));
        let (first, second) = (endpoint.queue(2), endpoint.queue(2));
        assert!(first.is_some() && second.is_some());
        assert!(endpoint.queue(2).is_none(), "full: the delivery waits in the database");
        drop(first);
        assert!(endpoint.queue(2).is_some(), "a send that ended gave its place back");
    }
}
