//! Request bodies: the idle timeout every body streams under ([`idle_timeout`]),
//! and bodies read by hand where the size limit depends on the request (a
//! site's setting) or must be tighter than the JSON default (anonymous
//! endpoints): the body streams in and is refused the moment it exceeds the
//! limit, before anything is parsed.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::body::{BoxBody, EitherBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::middleware::Next;
use actix_web::web::{self, Bytes};
use actix_web::{HttpMessage, ResponseError};
use futures_util::{Stream, StreamExt};
use serde::de::DeserializeOwned;

use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;

/// Middleware: a request body must keep arriving. Once the headers are read
/// (they time out after 5 s), each part of the body must come within
/// `body_timeout_secs` (30 s, `PLINTH_BODY_TIMEOUT_SECS`) of the previous one;
/// otherwise the body stream fails, the request is answered 408 REQUEST_TIMEOUT
/// (problem+json, whatever the handler made of the failed read) and the
/// connection is closed. A client that sends `Content-Length: 50` and 10 bytes
/// no longer holds a connection and a worker's request for ever.
///
/// Why a timeout between parts and not a deadline for the whole body: uploads
/// stream up to `media.max_upload_bytes` (512 MiB), and a deadline short
/// enough to matter would cap uploads by the client's bandwidth (100 MB over a
/// 10 Mbit/s uplink take 80 s). The idle timeout frees every connection whose
/// client stopped sending, as nginx's `client_body_timeout` does; a client
/// trickling a byte at a time is held by size limits and connection limits in
/// front of the service, not here. The clock only runs while the handler waits
/// for the body: a body that arrived whole is never late, however long the
/// handler took before reading it.
pub async fn idle_timeout(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody, BoxBody>>, actix_web::Error> {
    let payload = req.take_payload();
    if matches!(payload, Payload::None) {
        // No body (most GETs): nothing to wait for.
        return next.call(req).await.map(ServiceResponse::map_into_left_body);
    }
    let idle = req
        .app_data::<web::Data<AppState>>()
        .map_or(Duration::from_secs(30), |state| Duration::from_secs(state.config.body_timeout_secs.max(1)));
    let expired = Rc::new(Cell::new(false));
    let stream =
        IdleTimeout { inner: payload, idle, sleep: Box::pin(tokio::time::sleep(idle)), expired: expired.clone() };
    req.set_payload(Payload::Stream { payload: Box::pin(stream) });
    let answered = next.call(req).await;
    if !expired.get() {
        return answered.map(ServiceResponse::map_into_left_body);
    }
    let secs = idle.as_secs();
    tracing::info!(timeout_secs = secs, "request body stalled; answered 408 and closing the connection");
    let problem = ApiError::new(
        ErrorCode::RequestTimeout,
        format!(
            "the request body stopped arriving: nothing came for {secs} s before it was complete \
             (Content-Length promised more); the connection is closed"
        ),
    );
    // Whatever the handler made of the failed read (a JSON error, a multipart
    // one), the answer says what happened. An error (no request to answer with)
    // is closed by actix itself, the body being unread.
    let Ok(answered) = answered else { return Err(problem.into()) };
    let (request, _) = answered.into_parts();
    let mut res = problem.error_response();
    res.head_mut().set_connection_type(actix_web::http::ConnectionType::Close);
    Ok(ServiceResponse::new(request, res).map_into_right_body())
}

/// The payload stream, failing once no part came for `idle`.
struct IdleTimeout {
    inner: Payload,
    idle: Duration,
    sleep: Pin<Box<tokio::time::Sleep>>,
    expired: Rc<Cell<bool>>,
}

impl Stream for IdleTimeout {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.expired.get() {
            return Poll::Ready(None);
        }
        match Pin::new(&mut this.inner).poll_next(cx) {
            Poll::Ready(Some(Ok(chunk))) => {
                let next_deadline = tokio::time::Instant::now() + this.idle;
                this.sleep.as_mut().reset(next_deadline);
                Poll::Ready(Some(Ok(chunk)))
            }
            Poll::Ready(other) => Poll::Ready(other),
            Poll::Pending => match this.sleep.as_mut().poll(cx) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(()) => {
                    this.expired.set(true);
                    let why = format!("no part of the request body came for {} s", this.idle.as_secs());
                    Poll::Ready(Some(Err(PayloadError::Io(std::io::Error::new(std::io::ErrorKind::TimedOut, why)))))
                }
            },
        }
    }
}

/// Reads at most `limit` bytes of JSON into `T`; past it, 413 PAYLOAD_TOO_LARGE
/// with `too_large` as the detail.
pub async fn read_json_capped<T: DeserializeOwned>(
    mut payload: web::Payload,
    limit: usize,
    too_large: &str,
) -> ApiResult<T> {
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| ApiError::bad_request(format!("reading the body failed: {e}")))?;
        if body.len() + chunk.len() > limit {
            return Err(ApiError::new(ErrorCode::PayloadTooLarge, too_large));
        }
        body.extend_from_slice(&chunk);
    }
    let mut parsed = serde_json::Deserializer::from_slice(&body);
    let value = serde_path_to_error::deserialize(&mut parsed).map_err(|e| crate::error::json_field_error(&e))?;
    // Nothing but whitespace after the value, as `serde_json::from_slice` holds.
    parsed.end().map_err(|e| crate::error::json_body_error(&e))?;
    Ok(value)
}

/// A JSON body, as `web::Json` reads it (its limit, content type and errors:
/// `error::json_config`), except that a number with no fraction is an integer
/// whatever its spelling: JSON Schema, and so the OpenAPI document, counts
/// `5396.0` and `5.396e3` as the integer 5396, while serde refuses them for an
/// integer field. Handlers take `body::Json<T>` instead of `crate::body::Json<T>`.
pub struct Json<T>(pub T);

impl<T> Json<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for Json<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Json<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T: DeserializeOwned + 'static> actix_web::FromRequest for Json<T> {
    type Error = actix_web::Error;
    type Future = futures_util::future::LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &actix_web::HttpRequest, payload: &mut Payload) -> Self::Future {
        let value = web::Json::<serde_json::Value>::from_request(req, payload);
        Box::pin(async move {
            let web::Json(mut value) = value.await?;
            integral_numbers_as_integers(&mut value);
            serde_path_to_error::deserialize(value).map(Json).map_err(|e| crate::error::json_field_error(&e).into())
        })
    }
}

/// Rewrites every number of `value` that has no fraction and fits an `i64`
/// (`3.0`, `1e3`) as that integer; others stay as they are.
fn integral_numbers_as_integers(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Number(n) if !n.is_i64() && !n.is_u64() => {
            if let Some(f) = n.as_f64() {
                // The range check keeps the cast exact (no saturation).
                if f.fract() == 0.0 && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
                    *value = Value::from(f as i64);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_numbers_as_integers),
        Value::Object(fields) => fields.values_mut().for_each(integral_numbers_as_integers),
        _ => {}
    }
}

#[cfg(test)]
mod json_tests {
    use super::*;

    #[test]
    fn integral_numbers_become_integers_and_fractions_stay() {
        let mut value = serde_json::json!({"a": 5396.0, "b": [1e3, 2.5, -0.0], "c": {"d": 7}, "e": 1e300});
        integral_numbers_as_integers(&mut value);
        assert_eq!(value, serde_json::json!({"a": 5396, "b": [1000, 2.5, 0], "c": {"d": 7}, "e": 1e300}));
        #[derive(serde::Deserialize)]
        struct Limits {
            per_day: u32,
        }
        let mut body = serde_json::json!({"per_day": 5.0e1});
        integral_numbers_as_integers(&mut body);
        assert_eq!(serde_json::from_value::<Limits>(body).map(|l| l.per_day).ok(), Some(50));
    }
}
