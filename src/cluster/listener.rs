//! Receives the other instances' notifications on one dedicated connection.
//!
//! The listener runs on a thread with a small runtime of its own, on a
//! connection of its own: it ends, and closes that connection properly, when
//! the bus is stopped or dropped, whatever happens to the server's runtime. (A
//! connection dropped while a runtime is torn down cannot be closed, and one
//! left open per stopped app would exhaust PostgreSQL's connections.)

use std::time::Duration;

use sea_orm::sqlx::postgres::PgListener;
use tokio::sync::{oneshot, watch};

use super::{ClusterBus, Invalidation, Message, CHANNEL};

/// What the listener hands to the caches.
pub enum Notice {
    /// Another instance made these stale.
    Stale(Vec<Invalidation>),
    /// The connection was lost and is back: messages may have been missed, so
    /// everything cached may be stale.
    Lost,
}

/// Listens on the PostgreSQL database at `database_url` (a no-op on one
/// instance) and calls `on` for each notice, from the listener's thread.
/// Returns once listening, so an instance that serves has not missed anything
/// said after it started. `on` should hold its state weakly: the listener ends
/// when the bus is dropped.
pub async fn start(
    database_url: &str,
    bus: &ClusterBus,
    on: impl Fn(Notice) + Send + 'static,
) -> Result<(), sea_orm::DbErr> {
    if !bus.is_shared() {
        return Ok(());
    }
    let (own, stopped, url) = (bus.instance(), bus.stopped(), database_url.to_string());
    let (listening, ready) = oneshot::channel();
    std::thread::Builder::new()
        .name("plinth-cluster".into())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(runtime) => runtime,
                Err(e) => {
                    let _ = listening.send(Err(e.to_string()));
                    return;
                }
            };
            runtime.block_on(listen(url, own, stopped, listening, on));
        })
        .map_err(|e| sea_orm::DbErr::Custom(e.to_string()))?;
    match ready.await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(sea_orm::DbErr::Custom(format!("cluster listener: {e}"))),
        Err(_) => Err(sea_orm::DbErr::Custom("cluster listener stopped before listening".into())),
    }
}

async fn listen(
    url: String,
    own: uuid::Uuid,
    mut stopped: watch::Receiver<bool>,
    listening: oneshot::Sender<Result<(), String>>,
    on: impl Fn(Notice),
) {
    let mut listener = match PgListener::connect(&url).await {
        Ok(listener) => listener,
        Err(e) => {
            let _ = listening.send(Err(e.to_string()));
            return;
        }
    };
    if let Err(e) = listener.listen(CHANNEL).await {
        let _ = listening.send(Err(e.to_string()));
        return;
    }
    let _ = listening.send(Ok(()));
    // Ends on `stop`, and when the bus is dropped (the channel closes).
    let stop = async move {
        let _ = stopped.wait_for(|s| *s).await;
    };
    tokio::pin!(stop);
    loop {
        let next = tokio::select! {
            next = listener.try_recv() => next,
            _ = &mut stop => return,
        };
        match next {
            Ok(Some(notification)) => match serde_json::from_str::<Message>(notification.payload()) {
                Ok(message) if message.from == own => {}
                Ok(message) => on(Notice::Stale(message.m)),
                // From a newer version, say: dropping everything is always safe.
                Err(_) => on(Notice::Lost),
            },
            Ok(None) => {
                tracing::warn!("lost the cluster notification connection; dropping every cache");
                on(Notice::Lost);
            }
            Err(e) => {
                tracing::warn!(error = %e, "cluster notifications unavailable; reconnecting");
                // Whatever was said meanwhile is lost: once listening again,
                // everything cached may be stale.
                loop {
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                        _ = &mut stop => return,
                    }
                    if listener.listen(CHANNEL).await.is_ok() {
                        break;
                    }
                }
                on(Notice::Lost);
            }
        }
    }
}
