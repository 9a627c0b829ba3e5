//! API key usage figures (request count, last use), counted in memory on the
//! request path and written to the database in batches: one UPDATE per active
//! key per flush instead of one write per request.

use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;
use chrono::{DateTime, Utc};
use dashmap::DashMap;
use plinth_entities::api_key;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, ExprTrait, QueryFilter};
use uuid::Uuid;

#[derive(Default)]
pub struct KeyUsageCounters {
    pending: DashMap<Uuid, (u64, DateTime<Utc>)>,
}

impl KeyUsageCounters {
    /// Counts one request of `key`, made at `now` (the app's clock).
    pub fn record(&self, key: Uuid, now: DateTime<Utc>) {
        let mut entry = self.pending.entry(key).or_insert((0, now));
        entry.0 += 1;
        entry.1 = now;
    }

    fn drain(&self) -> Vec<(Uuid, u64, DateTime<Utc>)> {
        let keys: Vec<Uuid> = self.pending.iter().map(|e| *e.key()).collect();
        keys.into_iter().filter_map(|k| self.pending.remove(&k).map(|(k, (n, at))| (k, n, at))).collect()
    }

    fn restore(&self, key: Uuid, count: u64, at: DateTime<Utc>) {
        let mut entry = self.pending.entry(key).or_insert((0, at));
        entry.0 += count;
        entry.1 = Ord::max(entry.1, at);
    }
}

pub struct KeyUsageRecorder {
    db: DatabaseConnection,
    counters: Arc<KeyUsageCounters>,
    every: Duration,
}

impl KeyUsageRecorder {
    pub fn new(db: DatabaseConnection, counters: Arc<KeyUsageCounters>, every: Duration) -> Self {
        Self { db, counters, every }
    }
}

/// Writes pending figures now; answered once they are stored.
#[derive(Message)]
#[rtype(result = "()")]
pub struct FlushUsage;

async fn flush(db: DatabaseConnection, counters: Arc<KeyUsageCounters>) {
    for (key, count, at) in counters.drain() {
        let result = api_key::Entity::update_many()
            .col_expr(api_key::Column::UsageCount, Expr::col(api_key::Column::UsageCount).add(count as i64))
            .col_expr(api_key::Column::LastUsedAt, Expr::value(at))
            .filter(api_key::Column::Id.eq(key))
            .exec(&db)
            .await;
        if let Err(e) = result {
            tracing::warn!(%key, error = %e, "could not store key usage; will retry");
            counters.restore(key, count, at);
        }
    }
}

impl Actor for KeyUsageRecorder {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.run_interval(self.every, |actor, ctx| {
            ctx.spawn(flush(actor.db.clone(), Arc::clone(&actor.counters)).into_actor(actor));
        });
    }
}

impl Handler<FlushUsage> for KeyUsageRecorder {
    type Result = ResponseFuture<()>;

    fn handle(&mut self, _: FlushUsage, _: &mut Self::Context) -> Self::Result {
        Box::pin(flush(self.db.clone(), Arc::clone(&self.counters)))
    }
}
