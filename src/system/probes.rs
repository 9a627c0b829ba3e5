//! Probes for orchestrators, beside the spec's `/health`: `/livez` (the
//! process answers) and `/readyz` (it should be sent traffic), and the signal
//! handling that turns readiness off before the server stops.

use std::time::Duration;

use actix_web::dev::ServerHandle;
use actix_web::http::header::RETRY_AFTER;
use actix_web::{web, HttpResponse};
use serde_json::json;

use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::observability::Phase;
use crate::state::AppState;

/// 200 whenever the process can answer at all; it checks nothing else, so a
/// slow database never gets a live process restarted.
pub async fn livez() -> HttpResponse {
    HttpResponse::Ok().json(json!({"status": "alive"}))
}

/// 200 once migrations ran and the actors started, until a stop was asked
/// for; 503 SERVICE_UNAVAILABLE before and after.
pub async fn readyz(state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    match state.observability.readiness.phase() {
        Phase::Ready => Ok(HttpResponse::Ok().json(json!({"status": "ready"}))),
        Phase::Starting => Err(ApiError::new(ErrorCode::ServiceUnavailable, "the server is still starting")
            .with_header(RETRY_AFTER, 1.into())),
        Phase::Draining => {
            Err(ApiError::new(ErrorCode::ServiceUnavailable, "the server is stopping; send requests elsewhere"))
        }
    }
}

/// Stops `server` on a signal, as actix-web itself would (SIGTERM: graceful,
/// in-flight requests finish within 30 s; SIGINT and SIGQUIT: at once), but
/// first marks the process not ready. After SIGTERM it keeps serving for
/// `observability.drain_delay_secs` with `/readyz` answering 503, so a load
/// balancer polling it takes the instance out before connections are refused;
/// a second signal cuts that wait short.
///
/// The handlers are installed before this returns, so a signal arriving before
/// the returned future first runs is not lost (nor fatal).
pub fn stop_on_signal(
    state: web::Data<AppState>,
    server: ServerHandle,
) -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let (mut term, mut int, mut quit) =
        (signal(SignalKind::terminate())?, signal(SignalKind::interrupt())?, signal(SignalKind::quit())?);
    Ok(async move {
        let graceful = tokio::select! {
            _ = term.recv() => true,
            _ = int.recv() => false,
            _ = quit.recv() => false,
        };
        state.observability.readiness.start_draining();
        let delay = Duration::from_secs(state.config.observability.drain_delay_secs);
        if graceful && !delay.is_zero() {
            tracing::info!(delay_secs = delay.as_secs(), "SIGTERM: not ready any more; serving until the delay ends");
            tokio::select! {
                _ = tokio::time::sleep(delay) => {}
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        }
        tracing::info!(graceful, "stopping the server");
        // Live event streams never end on their own: a graceful stop would wait
        // its whole timeout for them. Their clients reconnect with their last id.
        state.events.stream.close_all();
        server.stop(graceful).await;
    })
}
