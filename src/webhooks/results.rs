//! Attempt results, recorded in batches.
//!
//! A delivery sent at once (no debounce) is recorded here instead of in its own
//! transaction: results gather for a few milliseconds (or until
//! [`flush_at`] are waiting) and are written together — the attempts in
//! multi-row inserts, the deliveries' new states, one transaction per
//! [`flush_at`] results. Fifty webhooks on a busy site then take the database's
//! write lock a few hundred times a second instead of thousands, and the
//! editors' writes keep their pace.
//!
//! At least once, never lost: a result not yet written when the process dies
//! leaves its delivery claimed, so it is sent again (same `webhook-id`) when the
//! instance restarts or the claim lapses (`claims`). Draining on SIGTERM writes
//! what is buffered.

use std::sync::Mutex;
use std::time::Duration;

use chrono::{DateTime, Utc};
use plinth_entities::{webhook_attempt, webhook_delivery};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

use super::delivery::{settle, AttemptResult};
use super::WebhookRuntime;
use crate::error::ApiResult;

/// Results written per transaction, and the count that flushes without waiting.
/// Small on SQLite, where every writer waits while a batch holds the lock (50
/// results hold it about 4 ms; 500 held it 30 ms and tripled the writes' p99);
/// PostgreSQL locks rows, so its batches can be larger.
pub fn flush_at(backend: sea_orm::DbBackend) -> usize {
    match backend {
        sea_orm::DbBackend::Sqlite => 50,
        _ => 500,
    }
}
/// How long the first waiting result waits for others to join it.
pub const GATHER: Duration = Duration::from_millis(5);

pub struct Outcome {
    pub delivery: webhook_delivery::Model,
    pub result: AttemptResult,
    pub at: DateTime<Utc>,
}

#[derive(Default)]
pub struct ResultBuffer {
    waiting: Mutex<Vec<Outcome>>,
    wake: tokio::sync::Notify,
    /// Sends started whose result has not been pushed yet (drain waits for them).
    in_flight: std::sync::atomic::AtomicUsize,
    /// Flushes writing now.
    flushing: std::sync::atomic::AtomicUsize,
}

impl ResultBuffer {
    /// Before a send: drain will wait for its result.
    pub fn sending(&self) {
        self.in_flight.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }

    /// A send that did not happen (its webhook's circuit held it).
    pub fn not_sent(&self) {
        self.in_flight.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }

    pub fn push(&self, outcome: Outcome) {
        let mut waiting = self.waiting.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        waiting.push(outcome);
        self.in_flight.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        self.wake.notify_one();
    }

    /// Whether a send is still waiting for its answer.
    pub fn sends_in_flight(&self) -> bool {
        self.in_flight.load(std::sync::atomic::Ordering::Acquire) > 0
    }

    /// Nothing sending, nothing waiting, nothing being written.
    pub fn is_idle(&self) -> bool {
        !self.sends_in_flight()
            && self.flushing.load(std::sync::atomic::Ordering::Acquire) == 0
            && self.waiting.lock().unwrap_or_else(std::sync::PoisonError::into_inner).is_empty()
    }

    fn take(&self) -> Vec<Outcome> {
        std::mem::take(&mut *self.waiting.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    fn len(&self) -> usize {
        self.waiting.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len()
    }
}

/// Runs for the life of the dispatcher: wakes on the first waiting result,
/// gathers for [`GATHER`] (or until [`flush_at`] wait), writes them.
pub async fn keep_flushing(hooks: actix_web::web::Data<WebhookRuntime>) {
    loop {
        hooks.results.wake.notified().await;
        let deadline = tokio::time::Instant::now() + GATHER;
        let enough = flush_at(hooks.state.db.get_database_backend());
        while hooks.results.len() < enough && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        if let Err(e) = flush(&hooks).await {
            tracing::warn!(error = %e, "could not record webhook attempts; their deliveries are sent again when their claims end");
        }
    }
}

/// Writes every waiting result. Returns how many.
pub async fn flush(hooks: &WebhookRuntime) -> ApiResult<usize> {
    hooks.results.flushing.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    let outcomes = hooks.results.take();
    let ids: Vec<uuid::Uuid> = outcomes.iter().map(|o| o.delivery.id).collect();
    let written = write_all(hooks, outcomes).await;
    // Written, or lost with the error: either way no longer held, so a lost
    // result's claim lapses and the delivery is sent again.
    for id in ids {
        hooks.release(id);
    }
    hooks.results.flushing.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    written
}

async fn write_all(hooks: &WebhookRuntime, outcomes: Vec<Outcome>) -> ApiResult<usize> {
    let state = &hooks.state;
    for chunk in outcomes.chunks(flush_at(state.db.get_database_backend())) {
        let txn = crate::db::begin_unaudited(&state.db, "webhook deliveries: their attempts are their record").await?;
        let locked = std::time::Instant::now();
        let mut logged = Vec::with_capacity(chunk.len());
        for outcome in chunk {
            txn.touch(crate::db::Touched::Answers(outcome.delivery.site_id));
            let (attempt, moved) = settle(&hooks.deliverer, outcome.at, outcome.delivery.clone(), &outcome.result);
            // A delivery deleted while it was being sent (its webhook or site
            // deleted, cascading) has nothing left to record; it must not fail
            // the batch, or every other result in it would be lost and sent again.
            let updated = webhook_delivery::Entity::update_many()
                .set(moved)
                .filter(webhook_delivery::Column::Id.eq(outcome.delivery.id))
                .exec(&txn)
                .await?;
            if updated.rows_affected > 0 {
                logged.push(attempt);
            }
        }
        if !logged.is_empty() {
            webhook_attempt::Entity::insert_many(logged).exec_without_returning(&txn).await?;
        }
        txn.commit().await?;
        hooks.result_holds.record(locked.elapsed());
    }
    Ok(outcomes.len())
}
