//! Serving stored files: media originals and variants, favicons. Keys are
//! content-addressed (`media/<sha-256>/<name>`, `favicons/<hash>/<name>`), so a
//! URL always names the same bytes: they are cached for a year as immutable,
//! and the strong ETag is derived from the key. `Range` (one range) answers
//! 206; `If-None-Match` answers 304.
//!
//! Files are served from the API's origin, so nothing served may run script
//! there: every answer carries `Content-Security-Policy: sandbox` and
//! `X-Content-Type-Options: nosniff`, and SVG is sent as an attachment (an
//! `<img>` still shows it; a browser navigating to it downloads it).

use actix_web::http::header::{self, HeaderValue};
use actix_web::web;
use actix_web::{HttpRequest, HttpResponse};
use futures_util::TryStreamExt;
use object_store::GetRange;
use sha2::{Digest, Sha256};

use crate::error::{ApiError, ApiResult, ErrorCode, Problem};
use crate::state::AppState;

/// The buckets files are served from.
const BUCKETS: [&str; 2] = ["media", "favicons"];

pub use crate::storage::url_of;

fn content_type_of(name: &str) -> &'static str {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    let by_ext = super::sniff::mime_from_name(name);
    match ext.as_str() {
        "ico" => "image/x-icon",
        _ => by_ext.unwrap_or("application/octet-stream"),
    }
}

fn etag_of(key: &str) -> String {
    let digest = Sha256::digest(key.as_bytes());
    format!("\"{}\"", hex::encode(&digest[..16]))
}

/// `bytes=a-b`, `bytes=a-`, `bytes=-n`; several ranges or another unit: the whole file.
pub fn parse_range(raw: &str) -> Option<GetRange> {
    let spec = raw.trim().strip_prefix("bytes=")?;
    if spec.contains(',') {
        return None;
    }
    let (start, end) = spec.split_once('-')?;
    match (start.trim(), end.trim()) {
        ("", n) => n.parse().ok().map(GetRange::Suffix),
        (a, "") => a.parse().ok().map(GetRange::Offset),
        (a, b) => {
            let (a, b): (u64, u64) = (a.parse().ok()?, b.parse().ok()?);
            (a <= b).then_some(GetRange::Bounded(a..b + 1))
        }
    }
}

/// Serve a stored public file
///
/// Public. Errors: RESOURCE_NOT_FOUND, RANGE_NOT_SATISFIABLE, STORAGE_ERROR.
#[utoipa::path(
    get,
    path = "/files/{bucket}/{dir}/{name}",
    tag = "Media",
    params(
        ("bucket" = String, Path, description = "`media` or `favicons`"),
        ("dir" = String, Path, description = "The file's content hash"),
        ("name" = String, Path, description = "`original.<ext>`, a variant (`large.jpg`, …) or an icon"),
        ("Range" = Option<String>, Header, description = "One byte range, `bytes=0-1023`"),
        ("If-None-Match" = Option<String>, Header, description = "The ETag of a copy held")
    ),
    responses(
        (status = 200, content_type = "*/*", body = Vec<u8>, description = "The bytes, as the type they were stored with (`image/png`, …); Cache-Control: public, max-age=31536000, immutable"),
        (status = 206, content_type = "*/*", body = Vec<u8>, description = "The range asked for, with Content-Range"),
        (status = 304, description = "The copy held is current"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 416, body = Problem, content_type = "application/problem+json", description = "The range lies outside the file")
    ),
    security(())
)]
pub async fn serve_file(
    state: web::Data<AppState>,
    request: HttpRequest,
    path: web::Path<(String, String, String)>,
) -> ApiResult<HttpResponse> {
    let (bucket, dir, name) = path.into_inner();
    let safe = |s: &str| {
        !s.is_empty()
            && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && !s.starts_with('.')
    };
    if !BUCKETS.contains(&bucket.as_str()) || !safe(&dir) || !safe(&name) {
        return Err(ApiError::not_found("file", format!("{bucket}/{dir}/{name}")));
    }
    let key = format!("{bucket}/{dir}/{name}");
    let etag = etag_of(&key);
    let not_modified = crate::http_cache::holds(request.headers(), &etag);
    let content_type = content_type_of(&name);
    let response = |status| {
        let mut builder = HttpResponse::build(status);
        builder
            .insert_header((header::ETAG, etag.clone()))
            .insert_header((header::CACHE_CONTROL, "public, max-age=31536000, immutable"))
            .insert_header((header::ACCEPT_RANGES, "bytes"))
            .insert_header((header::CONTENT_SECURITY_POLICY, "default-src 'none'; style-src 'unsafe-inline'; sandbox"))
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"));
        if content_type == "image/svg+xml" {
            builder.insert_header((header::CONTENT_DISPOSITION, format!("attachment; filename=\"{name}\"")));
        }
        builder
    };
    if not_modified {
        return Ok(response(actix_web::http::StatusCode::NOT_MODIFIED).finish());
    }
    let range = request.headers().get(header::RANGE).and_then(|v| v.to_str().ok()).and_then(parse_range);
    let storage_error = |e: object_store::Error| {
        tracing::error!(error = %e, key = %key, "reading a stored file");
        ApiError::new(ErrorCode::StorageError, "the file could not be read")
    };
    let found = match state.storage.open(&key, range.clone()).await {
        Ok(found) => found,
        Err(object_store::Error::Generic { .. }) if range.is_some() => {
            return unsatisfiable(&state, &key).await;
        }
        Err(e) => return Err(storage_error(e)),
    };
    let Some(found) = found else {
        return Err(ApiError::not_found("file", &key));
    };
    let total = found.meta.size;
    let served = found.range.clone();
    if range.is_some() && served.start >= served.end && total > 0 {
        return unsatisfiable(&state, &key).await;
    }
    let stream = found.into_stream().map_err(|e| actix_web::error::ErrorInternalServerError(e.to_string()));
    let mut builder = if range.is_some() {
        let mut b = response(actix_web::http::StatusCode::PARTIAL_CONTENT);
        b.insert_header((
            header::CONTENT_RANGE,
            format!("bytes {}-{}/{total}", served.start, served.end.saturating_sub(1)),
        ));
        b
    } else {
        response(actix_web::http::StatusCode::OK)
    };
    builder.insert_header((header::CONTENT_TYPE, HeaderValue::from_static(content_type)));
    builder.no_chunking(served.end - served.start);
    Ok(builder.streaming(stream))
}

async fn unsatisfiable(state: &AppState, key: &str) -> ApiResult<HttpResponse> {
    let size = match state.storage.open(key, None).await {
        Ok(Some(found)) => found.meta.size,
        _ => return Err(ApiError::not_found("file", key)),
    };
    let content_range =
        HeaderValue::from_str(&format!("bytes */{size}")).unwrap_or(HeaderValue::from_static("bytes */0"));
    Err(ApiError::new(ErrorCode::RangeNotSatisfiable, "the range lies outside the file")
        .with_header(header::CONTENT_RANGE, content_range))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(parse_range("bytes=0-99"), Some(GetRange::Bounded(0..100)));
        assert_eq!(parse_range("bytes=100-"), Some(GetRange::Offset(100)));
        assert_eq!(parse_range("bytes=-5"), Some(GetRange::Suffix(5)));
        assert_eq!(parse_range("bytes=5-1"), None);
        assert_eq!(parse_range("bytes=0-1,4-5"), None);
        assert_eq!(parse_range("items=0-1"), None);
    }
}
