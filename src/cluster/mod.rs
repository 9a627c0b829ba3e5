//! Several instances on one PostgreSQL database (DESIGN §7). Each instance
//! keeps its own caches; a write drops the entries it made stale here at once
//! and tells the other instances through one `LISTEN/NOTIFY` channel, so a
//! revoked key or a ban holds everywhere within the notification's round trip
//! instead of the caches' 30 s. A listener that lost its connection may have
//! missed messages: it drops every cache once it is back.
//!
//! On SQLite there is one instance and nothing to tell: [`ClusterBus::single`].

pub mod leases;
mod listener;

use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, watch};
use uuid::Uuid;

pub use listener::{start as start_listener, Notice};

/// The one channel every instance listens on.
pub const CHANNEL: &str = "plinth_cluster";

/// PostgreSQL refuses payloads of 8000 bytes or more; stay well under.
const MAX_PAYLOAD: usize = 7000;

/// What became stale. Small on purpose: the receiver re-reads the database.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(tag = "k", content = "v", rename_all = "snake_case")]
pub enum Invalidation {
    /// A site's row, settings, locales or members (and its built answers).
    Site(Uuid),
    /// A site's content: its public files and cached answers.
    Content(Uuid),
    /// A site's records that only its signed-in callers read (webhook
    /// deliveries): their cached answers.
    Answers(Uuid),
    /// Every site (a global locale changed).
    AllSites,
    /// An API key was revoked or changed.
    Key(Uuid),
    /// An identity-provider user's moderation changed (suspension, ban).
    User(String),
    /// A site's webhook subscriptions.
    Webhooks(Uuid),
    /// Events left the outbox: live streams read the stream table.
    Events,
}

/// One notification: the sender (to skip our own) and what became stale.
#[derive(Serialize, Deserialize)]
struct Message {
    from: Uuid,
    m: Vec<Invalidation>,
}

/// Tells the other instances what a write made stale.
pub struct ClusterBus {
    /// Random per process: two processes never share it, even on one data dir.
    instance: Uuid,
    /// This instance's lasting id (see `webhooks::claims::instance_id`): the
    /// holder of job leases, so a restarted instance takes its own back at once.
    holder: Uuid,
    outgoing: Option<mpsc::UnboundedSender<Invalidation>>,
    stopped: watch::Sender<bool>,
}

impl ClusterBus {
    /// One instance (SQLite): nothing to tell.
    pub fn single(holder: Uuid) -> Self {
        Self { instance: Uuid::new_v4(), holder, outgoing: None, stopped: watch::channel(false).0 }
    }

    /// Publishes through `db` (PostgreSQL) from a task of its own, so a write
    /// never waits for the notification.
    pub fn on_postgres(db: sea_orm::DatabaseConnection, holder: Uuid) -> Self {
        let (outgoing, queued) = mpsc::unbounded_channel();
        let stopped = watch::channel(false).0;
        let bus = Self { instance: Uuid::new_v4(), holder, outgoing: Some(outgoing), stopped };
        actix_web::rt::spawn(publish(db, bus.instance, queued, bus.stopped.subscribe()));
        bus
    }

    pub fn is_shared(&self) -> bool {
        self.outgoing.is_some()
    }

    pub fn instance(&self) -> Uuid {
        self.instance
    }

    /// Whether this instance may run the periodic job `job` now (see
    /// [`leases`]); always on one instance. A lease lasts `ttl` unless renewed.
    pub async fn may_run<C: sea_orm::ConnectionTrait>(
        &self,
        db: &C,
        job: &str,
        now: chrono::DateTime<chrono::Utc>,
        ttl: std::time::Duration,
    ) -> bool {
        if !self.is_shared() {
            return true;
        }
        let until = now + chrono::Duration::from_std(ttl).unwrap_or(chrono::Duration::seconds(60));
        match leases::try_hold(db, job, self.holder, now, until).await {
            Ok(held) => held,
            Err(e) => {
                tracing::warn!(job, error = %e, "could not take the job lease; skipping this pass");
                false
            }
        }
    }

    /// Gives up the leases this instance holds (on shutdown).
    pub async fn release<C: sea_orm::ConnectionTrait>(&self, db: &C, jobs: &[&str]) {
        if !self.is_shared() {
            return;
        }
        for job in jobs {
            if let Err(e) = leases::release(db, job, self.holder).await {
                tracing::warn!(job, error = %e, "job lease not released; it lapses on its own");
            }
        }
    }

    /// Tells the other instances; a no-op on one instance.
    pub fn publish(&self, what: Invalidation) {
        if let Some(outgoing) = &self.outgoing {
            // Closed only after `stop`: nothing is left to tell then.
            let _ = outgoing.send(what);
        }
    }

    /// Ends the publisher and the listener (on shutdown).
    pub fn stop(&self) {
        self.stopped.send_replace(true);
    }

    pub(crate) fn stopped(&self) -> watch::Receiver<bool> {
        self.stopped.subscribe()
    }
}

/// Sends what was queued, many invalidations per notification: a burst of
/// writes costs a few `pg_notify` calls, not one per write.
async fn publish(
    db: sea_orm::DatabaseConnection,
    from: Uuid,
    mut queued: mpsc::UnboundedReceiver<Invalidation>,
    mut stopped: watch::Receiver<bool>,
) {
    loop {
        let first = tokio::select! {
            next = queued.recv() => next,
            _ = stopped.wait_for(|s| *s) => None,
        };
        let Some(first) = first else { return };
        let mut batch = vec![first];
        while let Ok(more) = queued.try_recv() {
            if !batch.contains(&more) {
                batch.push(more);
            }
        }
        for payload in payloads(from, batch) {
            if let Err(e) = notify(&db, &payload).await {
                // The others fall back on their caches' lifetimes (30 s).
                tracing::warn!(error = %e, "could not notify the other instances");
            }
        }
    }
}

/// Splits a batch into notifications that fit PostgreSQL's payload limit.
fn payloads(from: Uuid, batch: Vec<Invalidation>) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Vec<Invalidation> = Vec::new();
    let mut size = 0;
    for item in batch {
        let item_size = serde_json::to_string(&item).map_or(0, |s| s.len() + 1);
        if !current.is_empty() && size + item_size > MAX_PAYLOAD {
            out.extend(serde_json::to_string(&Message { from, m: std::mem::take(&mut current) }));
            size = 0;
        }
        size += item_size;
        current.push(item);
    }
    if !current.is_empty() {
        out.extend(serde_json::to_string(&Message { from, m: current }));
    }
    out
}

/// One notification on the channel, through `db` (a pool or a transaction).
async fn notify<C: sea_orm::ConnectionTrait>(db: &C, payload: &str) -> Result<(), sea_orm::DbErr> {
    db.execute_raw(sea_orm::Statement::from_sql_and_values(
        sea_orm::DbBackend::Postgres,
        "SELECT pg_notify($1, $2)",
        [CHANNEL.into(), payload.into()],
    ))
    .await
    .map(|_| ())
}

/// Notifies inside `txn`: PostgreSQL delivers it when (and only if) the
/// transaction commits.
pub async fn notify_in<C: sea_orm::ConnectionTrait>(
    txn: &C,
    from: Uuid,
    what: Invalidation,
) -> Result<(), sea_orm::DbErr> {
    if txn.get_database_backend() != sea_orm::DbBackend::Postgres {
        return Ok(());
    }
    let payload = serde_json::to_string(&Message { from, m: vec![what] }).unwrap_or_default();
    notify(txn, &payload).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_batch_is_split_under_the_payload_limit() {
        let batch: Vec<_> = (0..1000).map(|_| Invalidation::Content(Uuid::new_v4())).collect();
        let sent = payloads(Uuid::new_v4(), batch);
        assert!(sent.len() > 1);
        let mut items = 0;
        for payload in &sent {
            assert!(payload.len() < 8000, "{} bytes", payload.len());
            let message: Message = serde_json::from_str(payload).unwrap_or(Message { from: Uuid::nil(), m: vec![] });
            items += message.m.len();
        }
        assert_eq!(items, 1000);
    }

    #[test]
    fn messages_are_small_tagged_json() {
        let id = Uuid::nil();
        let text = serde_json::to_string(&Invalidation::Key(id)).unwrap_or_default();
        assert_eq!(text, format!(r#"{{"k":"key","v":"{id}"}}"#));
        assert_eq!(serde_json::to_string(&Invalidation::Events).unwrap_or_default(), r#"{"k":"events"}"#);
    }
}
