//! API key usage, kept in memory on the request path and written to the
//! database in batches: per active key and flush, one UPDATE of its figures
//! (request count, last use) and one INSERT of its newest requests (route,
//! method, status, time), instead of one write per request. The stored
//! requests are pruned in the same flush to the newest [`KEPT_REQUESTS`] per
//! key, so they cost a bounded table however busy a key is.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;
use chrono::{DateTime, Utc};
use dashmap::DashMap;
use plinth_entities::{api_key, api_key_request};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, DatabaseConnection, DbErr, EntityTrait, ExprTrait, QueryFilter, QueryOrder,
    QuerySelect,
};
use uuid::Uuid;

/// How many of a key's newest requests are kept, in memory between flushes
/// and in the database: what an admin's usage view shows, not a log.
pub const KEPT_REQUESTS: usize = 100;

/// How many requests all keys together keep in memory between flushes
/// (about 4 MB): past it, a key's new request takes the place of its own
/// oldest, and a key with none kept is not recorded until the next flush.
/// Thousands of busy keys cannot grow the server.
pub const PENDING_REQUESTS: usize = 20_000;

/// One request made with a key.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyRequest {
    pub id: Uuid,
    /// The route template the request matched, never its raw path or query.
    pub endpoint: String,
    pub method: String,
    pub status_code: u16,
    pub response_time_ms: f64,
    pub at: DateTime<Utc>,
}

#[derive(Default)]
struct Pending {
    count: u64,
    last_used: Option<DateTime<Utc>>,
    /// Newest last, at most [`KEPT_REQUESTS`].
    requests: VecDeque<KeyRequest>,
}

#[derive(Default)]
pub struct KeyUsageCounters {
    pending: DashMap<Uuid, Pending>,
    /// Requests held in `pending`, over every key.
    held: AtomicUsize,
}

impl KeyUsageCounters {
    /// Counts one request of `key`, made at `now` (the app's clock).
    pub fn record(&self, key: Uuid, now: DateTime<Utc>) {
        let mut entry = self.pending.entry(key).or_default();
        entry.count += 1;
        entry.last_used = Some(now);
    }

    /// Keeps one answered request of `key` among its newest.
    pub fn record_request(&self, key: Uuid, request: KeyRequest) {
        let mut entry = self.pending.entry(key).or_default();
        let full = self.held.load(Ordering::Relaxed) >= PENDING_REQUESTS;
        if entry.requests.len() == KEPT_REQUESTS || (full && !entry.requests.is_empty()) {
            entry.requests.pop_front();
        } else if full {
            return;
        } else {
            self.held.fetch_add(1, Ordering::Relaxed);
        }
        entry.requests.push_back(request);
    }

    /// The requests of `key` not yet written, newest first.
    pub fn unwritten_requests(&self, key: Uuid) -> Vec<KeyRequest> {
        self.pending.get(&key).map(|p| p.requests.iter().rev().cloned().collect()).unwrap_or_default()
    }

    fn drain(&self) -> Vec<(Uuid, Pending)> {
        let keys: Vec<Uuid> = self.pending.iter().map(|e| *e.key()).collect();
        let drained: Vec<(Uuid, Pending)> = keys.into_iter().filter_map(|k| self.pending.remove(&k)).collect();
        let requests = drained.iter().map(|(_, p)| p.requests.len()).sum();
        self.held.fetch_sub(requests, Ordering::Relaxed);
        drained
    }

    /// Puts back what a failed flush could not write, before what came since.
    fn restore(&self, key: Uuid, unwritten: Pending) {
        let mut entry = self.pending.entry(key).or_default();
        entry.count += unwritten.count;
        entry.last_used = Ord::max(entry.last_used, unwritten.last_used);
        let since = std::mem::take(&mut entry.requests);
        let before = since.len();
        entry.requests = unwritten.requests;
        for request in since {
            if entry.requests.len() == KEPT_REQUESTS {
                entry.requests.pop_front();
            }
            entry.requests.push_back(request);
        }
        // Held again: what came back, less what the key's own cap let go.
        self.held.fetch_add(entry.requests.len().saturating_sub(before), Ordering::Relaxed);
    }
}

pub struct KeyUsageRecorder {
    db: DatabaseConnection,
    counters: Arc<KeyUsageCounters>,
    every: Duration,
    /// Held for a whole flush: a shutdown's flush waits for a periodic one
    /// still writing what it drained, so "answered once stored" holds for
    /// that too (it found nothing to drain and answered at once, and the
    /// periodic flush's writes were cut off with the process).
    flushing: Arc<tokio::sync::Mutex<()>>,
}

impl KeyUsageRecorder {
    pub fn new(db: DatabaseConnection, counters: Arc<KeyUsageCounters>, every: Duration) -> Self {
        Self { db, counters, every, flushing: Arc::default() }
    }

    fn flush(&self) -> impl std::future::Future<Output = ()> + 'static {
        let (db, counters, flushing) = (self.db.clone(), Arc::clone(&self.counters), Arc::clone(&self.flushing));
        async move {
            let _one_at_a_time = flushing.lock().await;
            flush(db, counters).await;
        }
    }
}

/// Writes pending figures now; answered once they are stored.
#[derive(Message)]
#[rtype(result = "()")]
pub struct FlushUsage;

async fn flush(db: DatabaseConnection, counters: Arc<KeyUsageCounters>) {
    for (key, pending) in counters.drain() {
        if let Err(e) = write(&db, key, &pending).await {
            tracing::warn!(%key, error = %e, "could not store key usage; will retry");
            counters.restore(key, pending);
        }
    }
}

/// One key's figures and newest requests, then the prune. Each statement
/// stands alone: a request stored twice after a retry is harmless (its id is
/// its own), and a prune that failed runs again at the next flush.
async fn write(db: &DatabaseConnection, key: Uuid, pending: &Pending) -> Result<(), DbErr> {
    let mut figures = api_key::Entity::update_many()
        .col_expr(api_key::Column::UsageCount, Expr::col(api_key::Column::UsageCount).add(pending.count as i64))
        .filter(api_key::Column::Id.eq(key));
    if let Some(last_used) = pending.last_used {
        figures = figures.col_expr(api_key::Column::LastUsedAt, Expr::value(last_used));
    }
    if figures.exec(db).await?.rows_affected == 0 {
        return Ok(()); // The key is gone (its site purged): nothing to keep for it.
    }
    if pending.requests.is_empty() {
        return Ok(());
    }
    let rows = pending.requests.iter().map(|r| api_key_request::ActiveModel {
        id: Set(r.id),
        api_key_id: Set(key),
        endpoint: Set(r.endpoint.clone()),
        method: Set(r.method.clone()),
        status_code: Set(i32::from(r.status_code)),
        response_time_ms: Set(r.response_time_ms),
        created_at: Set(r.at),
    });
    api_key_request::Entity::insert_many(rows)
        .on_conflict_do_nothing_on([api_key_request::Column::Id])
        .exec_without_returning(db)
        .await?;
    prune(db, key).await
}

/// Drops the key's stored requests past its newest [`KEPT_REQUESTS`]: one
/// probe of `ix_api_key_requests_key_time` for the oldest kept, one range
/// delete below it.
async fn prune(db: &DatabaseConnection, key: Uuid) -> Result<(), DbErr> {
    let oldest_kept: Option<(DateTime<Utc>, Uuid)> = api_key_request::Entity::find()
        .select_only()
        .column(api_key_request::Column::CreatedAt)
        .column(api_key_request::Column::Id)
        .filter(api_key_request::Column::ApiKeyId.eq(key))
        .order_by_desc(api_key_request::Column::CreatedAt)
        .order_by_desc(api_key_request::Column::Id)
        .offset(KEPT_REQUESTS as u64 - 1)
        .limit(1)
        .into_tuple()
        .one(db)
        .await?;
    let Some((at, id)) = oldest_kept else { return Ok(()) };
    let older = Expr::col(api_key_request::Column::CreatedAt)
        .lt(at)
        .or(Expr::col(api_key_request::Column::CreatedAt).eq(at).and(Expr::col(api_key_request::Column::Id).lt(id)));
    api_key_request::Entity::delete_many()
        .filter(api_key_request::Column::ApiKeyId.eq(key))
        .filter(older)
        .exec(db)
        .await?;
    Ok(())
}

impl Actor for KeyUsageRecorder {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.run_interval(self.every, |actor, ctx| {
            ctx.spawn(actor.flush().into_actor(actor));
        });
    }
}

impl Handler<FlushUsage> for KeyUsageRecorder {
    type Result = ResponseFuture<()>;

    fn handle(&mut self, _: FlushUsage, _: &mut Self::Context) -> Self::Result {
        Box::pin(self.flush())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(n: usize) -> KeyRequest {
        KeyRequest {
            id: Uuid::new_v4(),
            endpoint: format!("/r/{n}"),
            method: "GET".into(),
            status_code: 200,
            response_time_ms: 1.0,
            at: DateTime::<Utc>::UNIX_EPOCH,
        }
    }

    #[test]
    fn a_key_keeps_only_its_newest_requests_newest_first() {
        let counters = KeyUsageCounters::default();
        let key = Uuid::new_v4();
        for n in 0..KEPT_REQUESTS + 5 {
            counters.record_request(key, request(n));
        }
        let kept = counters.unwritten_requests(key);
        assert_eq!(kept.len(), KEPT_REQUESTS);
        assert_eq!((kept[0].endpoint.as_str(), kept[KEPT_REQUESTS - 1].endpoint.as_str()), ("/r/104", "/r/5"));
    }

    #[test]
    fn all_keys_together_hold_a_bounded_number_of_requests() {
        let counters = KeyUsageCounters::default();
        let keys: Vec<Uuid> = (0..PENDING_REQUESTS / KEPT_REQUESTS + 10).map(|_| Uuid::new_v4()).collect();
        for key in &keys {
            for n in 0..KEPT_REQUESTS {
                counters.record_request(*key, request(n));
            }
        }
        assert_eq!(counters.held.load(Ordering::Relaxed), PENDING_REQUESTS);
        let last = *keys.last().unwrap();
        assert!(counters.unwritten_requests(last).is_empty(), "a key past the bound is not recorded");
        // A key already held keeps its newest in the places it has.
        counters.record_request(keys[0], request(1_000));
        assert_eq!(counters.unwritten_requests(keys[0])[0].endpoint, "/r/1000");
        assert_eq!(counters.held.load(Ordering::Relaxed), PENDING_REQUESTS);
        counters.drain();
        assert_eq!(counters.held.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn a_failed_flush_puts_its_requests_back_before_the_newer_ones() {
        let counters = KeyUsageCounters::default();
        let key = Uuid::new_v4();
        counters.record(key, DateTime::<Utc>::UNIX_EPOCH);
        counters.record_request(key, request(1));
        let (_, unwritten) = counters.drain().pop().unwrap();
        counters.record_request(key, request(2));
        counters.restore(key, unwritten);
        let endpoints: Vec<String> = counters.unwritten_requests(key).into_iter().map(|r| r.endpoint).collect();
        assert_eq!(endpoints, ["/r/2", "/r/1"]);
        assert_eq!(counters.pending.get(&key).map(|p| p.count), Some(1));
    }
}
