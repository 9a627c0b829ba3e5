//! Live event streams. The webhook dispatcher appends each event it takes from
//! the outbox to `event_stream` in the same transaction, numbered in commit
//! order, and says so on the cluster channel. Every instance runs one pump that
//! reads what is new (one query per wake, however many clients listen) and hands
//! each event to the open streams of its site. A client reconnecting with
//! `Last-Event-ID` replays from the table, which keeps events for a bounded
//! window (`[events] replay_secs`).
//!
//! Why not the outbox sequence as the id: PostgreSQL assigns sequence values at
//! insert, not at commit, so a client that saw 105 could later miss a 103 that
//! committed after it. Appends to the stream table are serialized (an advisory
//! lock held until commit), so its numbers grow in commit order and "everything
//! after my last id" has no holes.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use actix_web::web::Bytes;
use chrono::{DateTime, Utc};
use dashmap::DashMap;
use plinth_entities::{event_outbox, event_stream};
use sea_orm::{
    ActiveValue::{NotSet, Set},
    ColumnTrait, ConnectionTrait, DatabaseConnection, DbBackend, DbErr, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Statement,
};
use tokio::sync::{broadcast, Notify};
use uuid::Uuid;

use crate::cluster::{notify_in, Invalidation};

/// Events one pump pass reads at most (it loops while there are more).
const PUMP_BATCH: u64 = 500;
/// Frames a slow stream may fall behind before it is closed (the client
/// reconnects with its last id and replays the rest from the table).
const STREAM_BUFFER: usize = 1024;
/// Any fixed number: the key of the advisory lock that orders appends.
const APPEND_LOCK: i64 = 0x706c_696e_7468;

/// One event as an SSE frame, built once for every stream of its site.
pub struct Frame {
    pub seq: i64,
    pub bytes: Bytes,
}

impl Frame {
    pub fn new(row: &event_stream::Model) -> Self {
        let body = serde_json::json!({
            "event": row.event, "timestamp": row.occurred_at, "site_id": row.site_id, "data": row.data,
        });
        // `event` names are plain identifiers and JSON has no raw newlines, so
        // neither can break the frame.
        let text = format!("id: {}\nevent: {}\ndata: {body}\n\n", row.seq, row.event);
        Self { seq: row.seq, bytes: Bytes::from(text) }
    }
}

/// The open streams of this instance, by site.
#[derive(Default)]
pub struct StreamHub {
    sites: DashMap<Uuid, broadcast::Sender<Arc<Frame>>>,
    wake: Notify,
    /// The last event handed to the streams.
    cursor: AtomicI64,
}

impl StreamHub {
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    /// Ends every open stream (on shutdown: a graceful stop would otherwise
    /// wait for them). Clients reconnect elsewhere with their last id.
    pub fn close_all(&self) {
        self.sites.clear();
    }

    /// A new stream of `site_id`, or `None` when it already has `limit` open here.
    pub async fn subscribe(
        &self,
        db: &DatabaseConnection,
        site_id: Uuid,
        limit: usize,
    ) -> Result<Option<broadcast::Receiver<Arc<Frame>>>, DbErr> {
        if self.sites.iter().all(|sender| sender.receiver_count() == 0) {
            // The pump reads nothing while nobody listens: the first stream
            // starts it from the present.
            self.cursor.fetch_max(latest(db).await?, Ordering::AcqRel);
        }
        let sender = self.sites.entry(site_id).or_insert_with(|| broadcast::channel(STREAM_BUFFER).0);
        Ok((sender.receiver_count() < limit).then(|| sender.subscribe()))
    }

    /// Reads what was appended since the last pass and hands it out. Runs as one
    /// task per instance for the life of the app; reads nothing while no stream
    /// is open.
    pub async fn pump(&self, db: &DatabaseConnection) {
        loop {
            // The timeout covers a wake that came while a pass ran.
            let _ = tokio::time::timeout(Duration::from_secs(2), self.wake.notified()).await;
            self.sites.retain(|_, sender| sender.receiver_count() > 0);
            if self.sites.is_empty() {
                continue;
            }
            if let Err(e) = self.pass(db).await {
                tracing::warn!(error = %e, "event stream pass failed; will retry");
            }
        }
    }

    async fn pass(&self, db: &DatabaseConnection) -> Result<(), DbErr> {
        loop {
            let after = self.cursor.load(Ordering::Acquire);
            let rows = event_stream::Entity::find()
                .filter(event_stream::Column::Seq.gt(after))
                .order_by_asc(event_stream::Column::Seq)
                .limit(PUMP_BATCH)
                .all(db)
                .await?;
            for row in &rows {
                if let Some(sender) = self.sites.get(&row.site_id) {
                    // No receiver left is not an error.
                    let _ = sender.send(Arc::new(Frame::new(row)));
                }
                self.cursor.store(row.seq, Ordering::Release);
            }
            if (rows.len() as u64) < PUMP_BATCH {
                return Ok(());
            }
        }
    }
}

/// Appends the events the dispatcher took from the outbox; call inside its
/// transaction. The other instances' pumps are woken when it commits.
pub async fn append<C: ConnectionTrait>(
    txn: &C,
    events: &[event_outbox::Model],
    now: DateTime<Utc>,
) -> Result<(), DbErr> {
    if events.is_empty() {
        return Ok(());
    }
    if txn.get_database_backend() == DbBackend::Postgres {
        // Held until commit: appends commit in the order their numbers were drawn.
        txn.execute_raw(Statement::from_sql_and_values(
            DbBackend::Postgres,
            "SELECT pg_advisory_xact_lock($1)",
            [APPEND_LOCK.into()],
        ))
        .await?;
    }
    let rows = events.iter().map(|e| event_stream::ActiveModel {
        seq: NotSet,
        outbox_seq: Set(e.seq),
        site_id: Set(e.site_id),
        event: Set(e.event.clone()),
        data: Set(e.data.clone()),
        occurred_at: Set(e.occurred_at),
        streamed_at: Set(now),
    });
    event_stream::Entity::insert_many(rows).exec_without_returning(txn).await?;
    notify_in(txn, Uuid::nil(), Invalidation::Events).await
}

/// The site's events after `after`, oldest first, at most `limit`; and whether
/// older events than the ones asked for were already dropped from the window.
pub async fn replay(
    db: &DatabaseConnection,
    site_id: Uuid,
    after: i64,
    limit: u64,
) -> Result<(Vec<event_stream::Model>, bool), DbErr> {
    let rows = event_stream::Entity::find()
        .filter(event_stream::Column::SiteId.eq(site_id))
        .filter(event_stream::Column::Seq.gt(after))
        .order_by_asc(event_stream::Column::Seq)
        .limit(limit)
        .all(db)
        .await?;
    let oldest = seq_bound(db, event_stream::Column::Seq.min()).await?;
    // A client may name any id, the largest too: none comes after it.
    let dropped = after.checked_add(1).is_some_and(|next| oldest.is_some_and(|oldest| oldest > next));
    Ok((rows, dropped))
}

/// Drops events older than the replay window; returns how many.
pub async fn prune(db: &DatabaseConnection, before: DateTime<Utc>) -> Result<u64, DbErr> {
    let done = event_stream::Entity::delete_many().filter(event_stream::Column::StreamedAt.lt(before)).exec(db).await?;
    Ok(done.rows_affected)
}

async fn latest(db: &DatabaseConnection) -> Result<i64, DbErr> {
    Ok(seq_bound(db, event_stream::Column::Seq.max()).await?.unwrap_or(0))
}

/// The smallest or largest stream position kept (`None`: the table is empty).
async fn seq_bound(db: &DatabaseConnection, bound: sea_orm::sea_query::SimpleExpr) -> Result<Option<i64>, DbErr> {
    let found = event_stream::Entity::find().select_only().column_as(bound, "bound").into_tuple::<Option<i64>>();
    Ok(found.one(db).await?.flatten())
}
