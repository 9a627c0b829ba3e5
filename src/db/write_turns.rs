//! Turns at the write lock, taken fairly across tenants.
//!
//! Every write waits for its turn before BEGIN: on SQLite for the one write
//! lock (one writer at a time, per database file), on PostgreSQL for one of
//! the connections writes may hold, of which one tenant holds at most a
//! bounded share. Waiting tenants are served in turn (see
//! [`plinth_actors::fair_share`]), so a site running sixteen writers at once
//! gets one turn per round, and another site's single writer waits for one
//! write at most instead of sixteen.
//!
//! The tenant is the request's ([`crate::tenant::current`]); work outside a
//! request (webhook fan-out, the janitor, results) takes the background's
//! turn.

use std::sync::{Arc, LazyLock};

use dashmap::DashMap;
use plinth_actors::{FairShare, Permit, Policy};

use crate::tenant::Tenant;

pub type WriteTurn = Permit<Tenant>;
pub type WriteTurns = FairShare<Tenant>;

/// One queue per SQLite file: SQLite has one writer at a time whatever the
/// connection.
static SQLITE_TURNS: LazyLock<DashMap<std::path::PathBuf, Arc<WriteTurns>>> = LazyLock::new(DashMap::new);

pub fn sqlite_turns(file: std::path::PathBuf) -> Arc<WriteTurns> {
    Arc::clone(SQLITE_TURNS.entry(file).or_insert_with(|| FairShare::new(Policy::exclusive())).value())
}

/// PostgreSQL: `connections` of the pool may write at once, one tenant holding
/// at most `share_percent` of them (at least one).
pub fn postgres_turns(connections: usize, share_percent: usize) -> Arc<WriteTurns> {
    let per_lane = (connections * share_percent.min(100) / 100).max(1);
    FairShare::new(Policy { capacity: connections, per_lane, guaranteed_share: false })
}

/// Rows one long job writes per transaction (an import's batch, a webhook
/// fan-out, claim renewals; one event's fan-out is never split). On SQLite
/// such a transaction holds the one write lock, and another site's writer
/// waits for at most one (turns go round the tenants). `cargo bench --bench
/// tenants`, B's write p99 beside A importing: 2,000 rows made it wait 200 ms,
/// 500 ×3.4 its quiet time; once the import's batches took its caller's turns
/// instead of queueing in the background's, 100 rows gave ×3.4 and 50 ×2.7
/// (imports 2,400 posts/s instead of 2,800). PostgreSQL locks rows, so its
/// transactions can be larger.
pub fn rows_per_job_transaction(backend: sea_orm::DbBackend) -> usize {
    match backend {
        sea_orm::DbBackend::Sqlite => 50,
        _ => 500,
    }
}
