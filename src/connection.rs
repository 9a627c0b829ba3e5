//! What every accepted connection runs through before actix-web sees it.
//!
//! actix-http refuses some requests while it is still reading their head, before
//! any middleware runs: a request target longer than 65,534 bytes or a malformed
//! request line (400), a head over 128 KiB or 96 headers (431), a head that does
//! not arrive within 5 s (408). It answers those with an empty body and closes
//! the connection. Plinth promises problem+json for every failure, so each
//! connection's writes pass through [`ProblemIo`], which replaces exactly that
//! bare answer with the same status and a problem+json body.
//!
//! The connection also carries which listener accepted it ([`Listener`]), so the
//! separate metrics listener can be told apart (`HttpRequest::conn_data`).

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use actix_web::http::StatusCode;
use chrono::{DateTime, Utc};
use plinth_actors::Clock;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::error::ApiError;

/// Which listener accepted a connection; in each request's `conn_data`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listener {
    /// The API, docs and (with a token) `/metrics`.
    Api,
    /// `PLINTH_METRICS_ADDR`: `/metrics` and the probes only.
    Metrics,
}

/// A connection whose bare codec-level error answers become problem+json.
pub struct ProblemIo<IO> {
    io: IO,
    pub listener: Listener,
    /// For the replacement's `Date` header.
    clock: Arc<dyn Clock>,
    /// A replacement answer not yet fully written: its bytes and how many went out.
    pending: Option<(Vec<u8>, usize)>,
}

impl<IO> ProblemIo<IO> {
    pub fn new(io: IO, listener: Listener, clock: Arc<dyn Clock>) -> Self {
        Self { io, listener, clock, pending: None }
    }
}

impl<IO: AsyncWrite + Unpin> ProblemIo<IO> {
    /// Writes what is left of a replacement answer; ready once it all went out.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, written)) = &mut self.pending {
            if *written == bytes.len() {
                self.pending = None;
                break;
            }
            let n = ready!(Pin::new(&mut self.io).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Poll::Ready(Ok(()))
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for ProblemIo<IO> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for ProblemIo<IO> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        ready!(this.poll_pending(cx))?;
        let Some(status) = bare_error_status(buf) else {
            return Pin::new(&mut this.io).poll_write(cx, buf);
        };
        this.pending = Some((problem_answer(status, this.clock.now()), 0));
        // Whatever does not go out now goes with the flush that follows.
        if let Poll::Ready(Err(e)) = this.poll_pending(cx) {
            return Poll::Ready(Err(e));
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// The longest bare answer actix-http writes (status line and three headers).
const BARE_HEAD_MAX: usize = 160;

/// The status of `write` when it is exactly a bare error answer: an error
/// status line, then only `content-length: 0`, an optional `connection` and
/// `date`, and nothing after. actix-http writes such an answer on its own, as
/// the last write before the connection closes. Plinth's own error answers
/// always carry a problem+json body, so none of them matches. (A request
/// pipelined behind others on one connection may share a write with their
/// answers and keep the bare one; that is rare enough to leave.)
fn bare_error_status(write: &[u8]) -> Option<StatusCode> {
    if write.len() > BARE_HEAD_MAX || !write.starts_with(b"HTTP/1.") {
        return None;
    }
    let head = std::str::from_utf8(write).ok()?.strip_suffix("\r\n\r\n")?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next()?;
    let rest = status_line.strip_prefix("HTTP/1.0 ").or_else(|| status_line.strip_prefix("HTTP/1.1 "))?;
    let status = StatusCode::from_bytes(rest.get(..3)?.as_bytes()).ok()?;
    if !(status.is_client_error() || status.is_server_error()) {
        return None;
    }
    let mut empty_body = false;
    for line in lines {
        let (name, value) = line.split_once(": ")?;
        match name.to_ascii_lowercase().as_str() {
            "content-length" if value == "0" => empty_body = true,
            "connection" | "date" => {}
            _ => return None,
        }
    }
    empty_body.then_some(status)
}

/// The problem+json answer that replaces a bare one of `status`.
fn problem_answer(status: StatusCode, now: DateTime<Utc>) -> Vec<u8> {
    let detail = match status.as_u16() {
        400 => "the request could not be read: its request line or a header is malformed, or its target (path and query) is longer than 65,534 bytes",
        408 => "the request head did not arrive within 5 seconds",
        431 => "the request head is too large: at most 128 KiB and 96 headers",
        _ => "the request could not be read",
    };
    let body = ApiError::from_status(status, detail).problem_body();
    let date = now.format("%a, %d %b %Y %H:%M:%S GMT");
    let reason = status.canonical_reason().unwrap_or("Error");
    let mut answer = format!(
        "HTTP/1.1 {} {reason}\r\ncontent-type: application/problem+json\r\ncontent-length: {}\r\nconnection: close\r\ndate: {date}\r\n\r\n",
        status.as_u16(),
        body.len()
    )
    .into_bytes();
    answer.extend_from_slice(&body);
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    const BARE_400: &[u8] =
        b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\ndate: Wed, 25 Nov 2026 10:00:00 GMT\r\n\r\n";

    #[test]
    fn the_bare_answers_actix_writes_are_recognised() {
        assert_eq!(bare_error_status(BARE_400), Some(StatusCode::BAD_REQUEST));
        let timeout =
            b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\ndate: Wed, 25 Nov 2026 10:00:00 GMT\r\n\r\n";
        assert_eq!(bare_error_status(timeout), Some(StatusCode::REQUEST_TIMEOUT));
    }

    #[test]
    fn answers_with_a_body_or_other_headers_are_left_alone() {
        let problem =
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 12\r\ncontent-type: application/problem+json\r\n\r\n";
        assert_eq!(bare_error_status(problem), None);
        let not_modified = b"HTTP/1.1 304 Not Modified\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        assert_eq!(bare_error_status(not_modified), None);
        let with_header = b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nx-request-id: 1\r\n\r\n";
        assert_eq!(bare_error_status(with_header), None);
        // Not the whole write: an earlier answer before it, or body bytes after it.
        let mut both = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}".to_vec();
        both.extend_from_slice(BARE_400);
        assert_eq!(bare_error_status(&both), None);
        let mut trailing = BARE_400.to_vec();
        trailing.extend_from_slice(b"more");
        assert_eq!(bare_error_status(&trailing), None);
    }

    #[test]
    fn the_replacement_is_problem_json_with_the_same_status() {
        let answer =
            String::from_utf8(problem_answer(StatusCode::BAD_REQUEST, DateTime::UNIX_EPOCH)).unwrap_or_default();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap_or_default();
        assert!(head.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{head}");
        assert!(head.contains("content-type: application/problem+json"), "{head}");
        assert!(head.contains(&format!("content-length: {}", body.len())), "{head}");
        let problem: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
        assert_eq!((problem["status"].as_u64(), problem["code"].as_str()), (Some(400), Some("BAD_REQUEST")));
        let large =
            String::from_utf8(problem_answer(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, DateTime::UNIX_EPOCH))
                .unwrap_or_default();
        assert!(large.contains(r#""code":"REQUEST_HEADER_FIELDS_TOO_LARGE""#), "{large}");
    }
}
