//! `GET /sites/{site_id}/events`: every event the site emits, as Server-Sent
//! Events, as it leaves the outbox (on any instance). `id:` is the event's
//! stream position: a client that reconnects with `Last-Event-ID` gets what it
//! missed from the replay window, then the live events, without gaps or
//! repeats. The store and the per-instance pump are in `events::stream`.

use std::sync::Arc;
use std::time::Duration;

use actix_web::http::header::{self, HeaderValue};
use actix_web::web::Bytes;
use actix_web::{web, HttpRequest, HttpResponse};
use futures_util::stream::{self, Stream};
use serde::Deserialize;
use tokio::sync::broadcast;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult, ErrorCode, Problem};
use crate::events::stream::{replay, Frame};
use crate::routes::Routes;
use crate::state::AppState;

/// Replayed events read per query while catching up.
const REPLAY_PAGE: u64 = 500;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [site_events]);
}

#[derive(Deserialize, IntoParams)]
pub struct StreamQuery {
    /// The last event id seen, for clients that cannot send `Last-Event-ID`
    /// (which wins when both are sent); a negative one is ignored.
    pub last_event_id: Option<i64>,
}

/// One event of the stream, as an `EventSource` hands it over (in OpenAPI 3.1
/// the schema of a `text/event-stream` answer describes each event).
#[derive(ToSchema)]
pub struct StreamEvent {
    /// The stream position, sent back as `Last-Event-ID` on reconnect.
    pub id: Option<String>,
    /// The event name: `blog.created`, …, or `stream.reset`.
    pub event: Option<String>,
    /// `{event, timestamp, site_id, data}` as JSON, as in webhook deliveries.
    pub data: String,
    /// Milliseconds a client waits before reconnecting.
    pub retry: Option<u64>,
}

/// Stream a site's events
///
/// Read role or higher on the site. Server-sent events of the site's changes. Errors: SERVICE_UNAVAILABLE.
#[utoipa::path(get, path = "/sites/{site_id}/events", tag = "Events",
    params(("site_id" = Uuid, Path), StreamQuery,
        ("Last-Event-ID" = Option<i64>, Header, description = "Resume after this event id (sent by EventSource on reconnect)")),
    responses(
        (status = 200, content_type = "text/event-stream", body = StreamEvent,
            description = "Server-Sent Events (Read on the site): `id:` stream position, `event:` the event name (`blog.created`, …), `data:` `{event, timestamp, site_id, data}` as in webhook deliveries. A `: heartbeat` comment keeps idle streams open; `event: stream.reset` says events after the given id already left the replay window"),
        (status = 503, body = Problem, content_type = "application/problem+json", description = "Too many open streams for this site on this instance (`Retry-After`)")
    ))]
pub async fn site_events(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<StreamQuery>,
    request: HttpRequest,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    // A Master key passes `require` for any id: a site that does not exist
    // (or is deleted) answers 404 like every other site path, not a stream.
    state.site_state(site_id).await?;
    let resume_after = request
        .headers()
        .get("Last-Event-ID")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok())
        .or(query.last_event_id)
        .filter(|id| *id >= 0);
    // Subscribed before the replay is read: an event is then either in the
    // replay or on the receiver (or both, and skipped once).
    let limit = state.config.events.subscribers_per_site;
    let Some(live) = state.events.stream.subscribe(&state.db, site_id, limit).await? else {
        return Err(ApiError::new(ErrorCode::ServiceUnavailable, "too many open event streams for this site")
            .with_header(header::RETRY_AFTER, HeaderValue::from_static("5")));
    };
    let heartbeat = Duration::from_secs(state.config.events.heartbeat_secs.max(1));
    let events = frames(state.into_inner(), site_id, resume_after, live, heartbeat);
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-cache, no-store"))
        // Tells nginx not to buffer the stream.
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(events))
}

enum Phase {
    Hello,
    Replay,
    Live,
}

struct Cursor {
    state: Arc<AppState>,
    site_id: Uuid,
    /// The last id sent (or the one the client resumed after).
    last: i64,
    phase: Phase,
    live: broadcast::Receiver<Arc<Frame>>,
    heartbeat: Duration,
}

fn frames(
    state: Arc<AppState>,
    site_id: Uuid,
    resume_after: Option<i64>,
    live: broadcast::Receiver<Arc<Frame>>,
    heartbeat: Duration,
) -> impl Stream<Item = Result<Bytes, actix_web::Error>> {
    let cursor = Cursor {
        state,
        site_id,
        last: resume_after.unwrap_or(-1),
        phase: if resume_after.is_some() { Phase::Replay } else { Phase::Hello },
        live,
        heartbeat,
    };
    stream::unfold(cursor, |mut cursor| async move {
        let bytes = next_chunk(&mut cursor).await?;
        Some((Ok(bytes), cursor))
    })
}

/// The next bytes for the client; `None` ends the stream.
async fn next_chunk(cursor: &mut Cursor) -> Option<Bytes> {
    loop {
        match cursor.phase {
            Phase::Hello => {
                cursor.phase = Phase::Live;
                // Sent at once, so clients and proxies see the stream open.
                return Some(Bytes::from_static(b"retry: 2000\n: connected\n\n"));
            }
            Phase::Replay => match replay(&cursor.state.db, cursor.site_id, cursor.last, REPLAY_PAGE).await {
                Ok((rows, dropped)) => {
                    if (rows.len() as u64) < REPLAY_PAGE {
                        cursor.phase = Phase::Live;
                    }
                    let mut out = Vec::new();
                    if dropped
                        && cursor.last >= 0
                        && rows.first().is_none_or(|r| cursor.last.checked_add(1).is_some_and(|next| r.seq > next))
                    {
                        out.extend_from_slice(b"event: stream.reset\ndata: {\"reason\":\"events after the given id left the replay window\"}\n\n");
                    }
                    for row in &rows {
                        out.extend_from_slice(&Frame::new(row).bytes);
                        cursor.last = row.seq;
                    }
                    if out.is_empty() {
                        continue;
                    }
                    return Some(Bytes::from(out));
                }
                Err(e) => {
                    tracing::warn!(error = %e, "event replay failed; closing the stream");
                    return None;
                }
            },
            Phase::Live => match tokio::time::timeout(cursor.heartbeat, cursor.live.recv()).await {
                Err(_) => return Some(Bytes::from_static(b": heartbeat\n\n")),
                Ok(Ok(frame)) if frame.seq <= cursor.last => continue,
                Ok(Ok(frame)) => {
                    cursor.last = frame.seq;
                    return Some(frame.bytes.clone());
                }
                // Too slow a reader: it reconnects with its last id and replays.
                Ok(Err(broadcast::error::RecvError::Lagged(_))) => return None,
                Ok(Err(broadcast::error::RecvError::Closed)) => return None,
            },
        }
    }
}
