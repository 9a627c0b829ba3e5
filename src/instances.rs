//! What lets several instances share one PostgreSQL database (DESIGN §7): the
//! cluster listener wired to this instance's caches, the live-stream pump, and
//! the job leases of periodic work. `app.rs` starts it; on SQLite the listener
//! is a no-op and every lease is granted at once.

use std::time::Duration;

use actix_web::web;

use crate::cluster::start_listener;
use crate::state::AppState;
use crate::webhooks::WebhookRuntime;

/// The lease of the Janitor's pass (scheduled publishing, purges, retention,
/// rollups, the replay window).
pub const JANITOR_JOB: &str = "janitor";
/// The lease of the export builder (it resumes unfinished exports when taken).
pub const EXPORT_JOB: &str = "exports";

/// Starts listening to the other instances and the live-stream pump. Returns
/// once listening, so nothing said after the instance serves is missed.
pub async fn start(state: &web::Data<AppState>, hooks: &web::Data<WebhookRuntime>) -> Result<(), sea_orm::DbErr> {
    // Weakly held: the listener must not keep a stopped app's state alive (it
    // ends when the state, and with it the bus, is dropped).
    let caches = std::sync::Arc::downgrade(&state.clone().into_inner());
    let subscriptions = std::sync::Arc::downgrade(&hooks.clone().into_inner());
    start_listener(&state.config.database_url, &state.cluster, move |notice| {
        let Some(caches) = caches.upgrade() else { return };
        for site in caches.apply_notice(&notice) {
            if let Some(subscriptions) = subscriptions.upgrade() {
                subscriptions.invalidate_here(site);
            }
        }
    })
    .await?;
    let pump = state.clone();
    let mut stopped = state.cluster.stopped();
    actix_web::rt::spawn(async move {
        tokio::select! {
            _ = pump.events.stream.pump(&pump.db) => {}
            _ = stopped.wait_for(|s| *s) => {}
        }
    });
    Ok(())
}

/// How long a lease of a job run every `period` lasts: a few missed passes.
pub fn lease_for(period: Duration) -> Duration {
    (period * 3).max(Duration::from_secs(15))
}

/// On shutdown: other instances may take this one's jobs at once.
pub async fn stop(state: &AppState) {
    state.cluster.release(&state.db, &[JANITOR_JOB, EXPORT_JOB, crate::webhooks::dispatcher::FLUSH_JOB]).await;
    state.cluster.stop();
}
