//! Tracing setup and the per-request context (request id, span, access log).

use std::io::IsTerminal;
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::HttpMessage;
use plinth_actors::RateLimitStatus;
use tracing::{Instrument, Level};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::auth::rate_limit_headers;
use crate::config::LogConfig;

/// A `HeaderName`, not a string: a lookup by string parses the name every time.
pub const REQUEST_ID_HEADER: HeaderName = HeaderName::from_static("x-request-id");

/// Installs the global subscriber (a second call, as in tests, is a no-op).
pub fn init(log: &LogConfig) {
    let filter = crate::config::log_filter(&quiet_libraries(&log.filter))
        .unwrap_or_else(|| Targets::new().with_default(Level::INFO));
    // Colour only for a person at a terminal, never into a file or a pipe.
    let ansi = std::io::stdout().is_terminal();
    let builder = tracing_subscriber::fmt().with_ansi(ansi);
    let _ = if log.format == "json" {
        builder.json().finish().with(filter).try_init()
    } else {
        builder.finish().with(filter).try_init()
    };
}

/// Libraries that narrate their start at info (each migration, each server
/// worker, each notice of the database) speak only at warn unless the filter names them or asks for debug:
/// the first screen is the banner, not forty lines of start-up detail.
fn quiet_libraries(filter: &str) -> String {
    if filter.contains("debug") || filter.contains("trace") {
        return filter.to_string();
    }
    let mut filter = filter.to_string();
    // PostgreSQL's "relation … already exists, skipping" notices arrive at info too.
    for target in ["sea_orm_migration", "actix_server", "sqlx::postgres::notice"] {
        if !filter.contains(target) {
            filter.push_str(&format!(",{target}=warn"));
        }
    }
    filter
}

/// A random (version 4) UUID from the thread's generator: no system call and no
/// allocation per request, unlike `Uuid::new_v4`, which asks the OS each time.
fn new_request_id() -> HeaderValue {
    let id = uuid::Builder::from_random_bytes(rand::random()).into_uuid();
    let mut text = [0u8; uuid::fmt::Hyphenated::LENGTH];
    HeaderValue::from_bytes(id.hyphenated().encode_lower(&mut text).as_bytes())
        .unwrap_or(HeaderValue::from_static("unknown"))
}

/// Middleware: a request id (the caller's `X-Request-Id` when sane, else a new
/// UUID) on the span and the response, rate-limit headers, and one log line.
pub async fn request_context(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let request_id = req
        .headers()
        .get(&REQUEST_ID_HEADER)
        .filter(|v| !v.is_empty() && v.len() <= 64 && v.as_bytes().iter().all(u8::is_ascii_graphic))
        .cloned()
        .unwrap_or_else(new_request_id);
    let span = tracing::info_span!(
        "request",
        request_id = request_id.to_str().unwrap_or_default(),
        method = %req.method(),
        path = %req.path()
    );
    let started = Instant::now();
    let mut res = next.call(req).instrument(span.clone()).await?;

    res.headers_mut().insert(REQUEST_ID_HEADER, request_id);
    let status = res.request().extensions().get::<RateLimitStatus>().cloned();
    if let Some(status) = status {
        for (name, value) in rate_limit_headers(&status) {
            res.headers_mut().insert(name, value);
        }
    }
    let code = res.status().as_u16();
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    span.in_scope(|| {
        if code >= 500 {
            tracing::error!(status = code, elapsed_ms, "request failed");
        } else {
            tracing::debug!(status = code, elapsed_ms, "request finished");
        }
    });
    Ok(res)
}
