//! A delivery's turn to be sent: a slot of its webhook's own, then its
//! circuit's leave, then a slot of its site's lane.
//!
//! The send slots all sites share (`[tenants] webhook_send_slots`) are taken
//! in turn across sites: while other sites wait, a site holds at most its
//! fair share, and a site below its share is admitted at once even when
//! another site's hung endpoints hold every slot (see
//! `plinth_actors::fair_share`). Before a slot is taken, the webhook's circuit
//! is asked (`circuits`): a delivery it holds goes back to the database, due
//! when the circuit lets a probe through, and holds nothing meanwhile.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use plinth_entities::{webhook, webhook_delivery};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

use super::circuits::Admission;
use super::WebhookRuntime;
use crate::db::Touched;

/// Held while a delivery is sent.
pub struct SendTurn {
    _own: Option<tokio::sync::OwnedSemaphorePermit>,
    _site: plinth_actors::Permit<Uuid>,
}

impl WebhookRuntime {
    /// The slots to send `delivery` now, or `None` when its webhook's circuit
    /// holds it (it is then stored as due at the circuit's probe time).
    pub(super) async fn turn_to_send(
        &self,
        delivery: &webhook_delivery::Model,
        hook: &webhook::Model,
    ) -> Option<SendTurn> {
        let own = Arc::clone(
            self.sends_per_webhook
                .entry(hook.id)
                .or_insert_with(|| Arc::new(tokio::sync::Semaphore::new(self.sends_per_endpoint)))
                .value(),
        );
        // The semaphores are never closed.
        let own = own.acquire_owned().await.ok();
        // Asked once the webhook's own slot is free: deliveries queued behind
        // a hung endpoint learn that its circuit opened meanwhile.
        if let Admission::WaitUntil(until) = self.circuits.admit(hook.id, self.state.clock.now()) {
            self.wait_for_circuit(delivery, until).await;
            return None;
        }
        let site = self.site_lanes.acquire(hook.site_id).await;
        Some(SendTurn { _own: own, _site: site })
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
