//! `GET /metrics` in the Prometheus text format, and the middleware that
//! records every request.
//!
//! Where it is served: on the main listener only with a bearer token
//! (`observability.metrics_token`, `PLINTH_METRICS_TOKEN`), and without one on
//! a separate listener (`observability.metrics_addr`, `PLINTH_METRICS_ADDR`,
//! say 127.0.0.1:9100), which answers nothing but `/metrics`, `/livez` and
//! `/readyz`. With neither, `/metrics` answers 404 like any unknown path.

use std::net::TcpListener;
use std::time::Instant;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use plinth_actors::key_usage::KeyRequest;
use plinth_entities::{event_outbox, webhook_buffer, webhook_delivery};
use prometheus::{Encoder, TextEncoder};
use sea_orm::{ColumnTrait, DbBackend, DbErr, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect};
use sha2::{Digest, Sha256};

use crate::auth::UsedKey;
use crate::connection::Listener;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::observability::http::Route;
use crate::routes::MatchedResource;
use crate::state::AppState;
use crate::webhooks::delivery::DeliveryStatus;

/// The paths the separate metrics listener answers.
const OPS_PATHS: [&str; 3] = ["/metrics", "/livez", "/readyz"];

/// Binds the separate metrics listener when one is configured, and notes its
/// address (for the banner). Its connections carry [`Listener::Metrics`].
pub fn metrics_listener(state: &AppState) -> std::io::Result<Option<TcpListener>> {
    let Some(addr) = state.config.observability.metrics_addr.as_deref().filter(|a| !a.is_empty()) else {
        return Ok(None);
    };
    let listener = TcpListener::bind(addr)
        .map_err(|e| std::io::Error::new(e.kind(), format!("metrics listener {addr} (PLINTH_METRICS_ADDR): {e}")))?;
    state.observability.set_metrics_listener(listener.local_addr()?);
    Ok(Some(listener))
}

/// Whether the request came through the separate metrics listener.
fn on_metrics_listener(req: &HttpRequest) -> bool {
    req.conn_data::<Listener>() == Some(&Listener::Metrics)
}

/// Middleware, outermost: records each request's route template, method,
/// status class and time to its response head, and counts 429s by code. On
/// the metrics listener, refuses everything but the probes and `/metrics`.
pub async fn record_request<B: MessageBody + 'static>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    let started = Instant::now();
    if on_metrics_listener(req.request()) && !OPS_PATHS.contains(&req.path()) {
        let refused =
            ApiError::new(ErrorCode::ResourceNotFound, "the metrics listener serves only /metrics and probes");
        return Ok(req.error_response(refused).map_into_right_body());
    }
    let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
        return Ok(next.call(req).await?.map_into_left_body());
    };
    // A request that failed with no answer (a contained panic) took the
    // request with it: it is counted under the `failed` route.
    let method = req.method().clone();
    let res = match next.call(req).await {
        Ok(res) => res,
        Err(failed) => {
            let status = failed.as_response_error().status_code();
            state.observability.http.observe(Route::Failed, &method, status, started.elapsed().as_secs_f64());
            return Err(failed);
        }
    };
    {
        let request = res.request();
        // API resources are named by their documented path (the API's router
        // notes it); the few others (the root, the docs, these endpoints) are
        // read by pattern.
        let extensions = request.extensions();
        let api = extensions.get::<MatchedResource>();
        let pattern = if api.is_none() { request.match_pattern() } else { None };
        let route = match (api, pattern.as_deref()) {
            (Some(MatchedResource(Some(name))), _) => Route::Api(name),
            (Some(MatchedResource(None)), _) => Route::Unmatched,
            (None, Some(pattern)) => Route::Other(pattern),
            (None, None) => Route::Unmatched,
        };
        let status = res.status();
        let metrics = &state.observability.http;
        let seconds = started.elapsed().as_secs_f64();
        metrics.observe(route, request.method(), status, seconds);
        if let Some(UsedKey(key)) = extensions.get::<UsedKey>().copied() {
            let made = KeyRequest {
                id: uuid::Uuid::new_v4(),
                endpoint: route.label(),
                method: request.method().as_str().to_string(),
                status_code: status.as_u16(),
                response_time_ms: seconds * 1000.0,
                at: state.clock.now(),
            };
            state.key_usage.record_request(key, made);
        }
        if status == StatusCode::TOO_MANY_REQUESTS {
            let code = res.response().error().and_then(|e| e.as_error::<ApiError>()).map(|e| e.code().as_str());
            metrics.rate_limited(code.unwrap_or("unknown"), route);
        }
    }
    Ok(res.map_into_left_body())
}

/// `GET /metrics`.
pub async fn metrics(
    req: HttpRequest,
    state: web::Data<AppState>,
    hooks: web::Data<crate::webhooks::WebhookRuntime>,
) -> ApiResult<HttpResponse> {
    authorize_scrape(&req, &state)?;
    refresh_gauges(&state).await;
    refresh_tenant_gauges(&state, &hooks);
    let families = state.observability.registry.gather();
    let mut body = Vec::with_capacity(16 * 1024);
    let encoder = TextEncoder::new();
    encoder.encode(&families, &mut body).map_err(|e| {
        tracing::error!(error = %e, "could not render the metrics");
        ApiError::new(ErrorCode::InternalError, "the metrics could not be rendered")
    })?;
    Ok(HttpResponse::Ok().content_type(encoder.format_type()).body(body))
}

fn authorize_scrape(req: &HttpRequest, state: &AppState) -> ApiResult<()> {
    if on_metrics_listener(req) {
        return Ok(());
    }
    let Some(token) = state.config.observability.metrics_token.as_deref().filter(|t| !t.is_empty()) else {
        // Not exposed here: answered as any unknown path, so nothing tells it exists.
        return Err(ApiError::new(ErrorCode::ResourceNotFound, format!("no resource at {}", req.path())));
    };
    let challenge =
        || (WWW_AUTHENTICATE, actix_web::http::header::HeaderValue::from_static("Bearer realm=\"metrics\""));
    let sent = req.headers().get(AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    let Some(sent) = sent else {
        let (name, value) = challenge();
        return Err(ApiError::new(ErrorCode::AuthMissingCredentials, "send Authorization: Bearer <metrics token>")
            .with_header(name, value));
    };
    // Digests compared, not the secrets: the comparison's time says nothing
    // about how much of the token was right.
    if Sha256::digest(sent.trim().as_bytes()) != Sha256::digest(token.as_bytes()) {
        let (name, value) = challenge();
        return Err(ApiError::new(ErrorCode::AuthTokenInvalid, "the metrics token is wrong").with_header(name, value));
    }
    Ok(())
}

/// Reads the values kept only at scrape time. A failed query leaves the
/// webhook gauges at their last values (and is logged); the rest is in memory.
async fn refresh_gauges(state: &AppState) {
    let gauges = &state.observability.gauges;
    match webhook_queue(state).await {
        Ok(queue) => {
            gauges.webhook_outbox.set(queue.outbox);
            gauges.webhook_buffered.set(queue.buffered);
            gauges.webhook_pending.set(queue.pending);
            gauges.webhook_retry_queue.set(queue.failed);
            let age = queue.oldest.map_or(0.0, |at| (state.clock.now() - at).num_milliseconds().max(0) as f64 / 1000.0);
            gauges.webhook_oldest_pending_age.set(age);
        }
        Err(e) => tracing::warn!(error = %e, "metrics: could not read the webhook queue"),
    }
    if let Some((size, idle, max)) = pool_use(state) {
        gauges.db_pool.with_label_values(&["in_use"]).set(i64::from(size).saturating_sub(idle as i64));
        gauges.db_pool.with_label_values(&["idle"]).set(idle as i64);
        gauges.db_pool_max.set(i64::from(max));
    }
    gauges.queue_depth.with_label_values(&["media_pool"]).set(state.actors.media_pool.pending() as i64);
    gauges.queue_depth.with_label_values(&["pageview_writer"]).set(state.pageviews.waiting() as i64);
    gauges.site_cache_entries.set(state.sites.len() as i64);
    gauges.response_cache_bytes.set(i64::try_from(state.responses.weight()).unwrap_or(i64::MAX));
    gauges.ready.set(i64::from(state.observability.readiness.is_ready()));
}

/// The circuits and the pools sites share, read from memory.
fn refresh_tenant_gauges(state: &AppState, hooks: &crate::webhooks::WebhookRuntime) {
    let gauges = &state.observability.gauges;
    for (circuit, count) in hooks.circuits.counts() {
        gauges.webhook_circuits.with_label_values(&[circuit.as_str()]).set(count);
    }
    for (pool, held) in [("webhook_sends", hooks.send_lanes()), ("write_turns", state.db.write_turns())] {
        for (measure, value) in [("in_use", held.in_use), ("waiting", held.waiting), ("lanes", held.lanes)] {
            gauges.tenant_pools.with_label_values(&[pool, measure]).set(i64::try_from(value).unwrap_or(i64::MAX));
        }
    }
    let supervisors = state.supervisors.counts();
    let as_gauge = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    for (measure, value) in [
        ("running", as_gauge(supervisors.active as u64)),
        ("restarts", as_gauge(supervisors.restarts)),
        ("panics", as_gauge(supervisors.panics)),
        ("stopped_idle", as_gauge(supervisors.stopped_idle)),
    ] {
        gauges.site_supervisors.with_label_values(&[measure]).set(value);
    }
}

struct WebhookQueue {
    outbox: i64,
    buffered: i64,
    pending: i64,
    failed: i64,
    oldest: Option<DateTime<Utc>>,
}

/// Counts over the outbox, the debounce buffers and the undelivered
/// deliveries (the `status` index), and the oldest of those.
async fn webhook_queue(state: &AppState) -> Result<WebhookQueue, DbErr> {
    use webhook_delivery::Column;
    let db = &state.db;
    let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let undelivered = || webhook_delivery::Entity::find().filter(Column::Status.is_in(DeliveryStatus::OPEN));
    let by_status: Vec<(DeliveryStatus, i64)> = undelivered()
        .select_only()
        .column(Column::Status)
        .column_as(Column::Id.count(), "n")
        .group_by(Column::Status)
        .into_tuple()
        .all(db)
        .await?;
    let of = |status: DeliveryStatus| by_status.iter().find(|(s, _)| *s == status).map_or(0, |(_, n)| *n);
    let oldest: Option<DateTime<Utc>> = undelivered()
        .select_only()
        .column(Column::CreatedAt)
        .order_by_asc(Column::CreatedAt)
        .into_tuple()
        .one(db)
        .await?;
    Ok(WebhookQueue {
        outbox: count(event_outbox::Entity::find().count(db).await?),
        buffered: count(webhook_buffer::Entity::find().count(db).await?),
        pending: of(DeliveryStatus::Pending),
        failed: of(DeliveryStatus::Failed),
        oldest,
    })
}

/// The database pool's open connections, idle ones and maximum.
fn pool_use(state: &AppState) -> Option<(u32, usize, u32)> {
    match state.db.get_database_backend() {
        DbBackend::Sqlite => {
            let pool = state.db.get_sqlite_connection_pool();
            Some((pool.size(), pool.num_idle(), pool.options().get_max_connections()))
        }
        DbBackend::Postgres => {
            let pool = state.db.get_postgres_connection_pool();
            Some((pool.size(), pool.num_idle(), pool.options().get_max_connections()))
        }
        _ => None,
    }
}
