//! `GET /documents/{id}/download`: anyone may call it. Outside documents
//! redirect; public files stream with their type, name, ETag and ranges;
//! private ones need an access token and are decrypted as they stream. A
//! browser without a token gets a small password page.

use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse};
use futures_util::TryStreamExt;
use plinth_entities::document;
use sea_orm::EntityTrait;
use uuid::Uuid;

use super::{privacy, stream};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;

/// A live document of a site with the documents module on; anything else is
/// simply not found (anonymous callers learn nothing more).
pub async fn find_public(state: &AppState, id: Uuid) -> ApiResult<document::Model> {
    let not_found = || ApiError::not_found("document", id);
    let doc = document::Entity::find_by_id(id).one(&state.db).await?.filter(|d| !d.is_deleted).ok_or_else(not_found)?;
    let site = state.site_state(doc.site_id).await.map_err(|_| not_found())?;
    site.settings.require_documents().map_err(|_| not_found())?;
    Ok(doc)
}

fn disposition(doc: &document::Model) -> String {
    let name = doc.file_name.as_deref().unwrap_or("document");
    let ascii: String =
        name.chars().map(|c| if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' { c } else { '_' }).collect();
    format!("attachment; filename=\"{ascii}\"")
}

fn wants_html(request: &HttpRequest) -> bool {
    request.headers().get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("text/html"))
}

pub async fn download(
    state: &AppState,
    request: &HttpRequest,
    id: Uuid,
    token: Option<&str>,
) -> ApiResult<HttpResponse> {
    let doc = find_public(state, id).await?;
    let Some(key) = doc.storage_key.clone() else {
        let url = doc.url.clone().unwrap_or_default();
        return Ok(HttpResponse::Found().insert_header((header::LOCATION, url)).finish());
    };
    if doc.is_private {
        privacy::ensure_open(&doc, state.clock.now())?;
        let Some(token) = token.filter(|t| !t.is_empty()) else {
            if wants_html(request) {
                // 200: a page to fill in, not an error (error statuses are answered as problems).
                return Ok(HttpResponse::Ok()
                    .content_type("text/html; charset=utf-8")
                    .insert_header((header::CACHE_CONTROL, "no-store"))
                    .body(password_page(id)));
            }
            return Err(ApiError::new(
                ErrorCode::DocumentPasswordRequired,
                "this document is private: get a token from POST /documents/{id}/verify-access and pass it as ?token=",
            ));
        };
        let data_key = privacy::check_token(state, &doc, token).await?;
        let plain = stream::decrypted(state, &doc, &data_key).await?;
        let mut response = HttpResponse::Ok();
        response
            .content_type(doc.mime_type.clone().unwrap_or_else(|| "application/octet-stream".into()))
            .insert_header((header::CONTENT_DISPOSITION, disposition(&doc)))
            .insert_header((header::CACHE_CONTROL, "private, no-store"))
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
            .no_chunking(u64::try_from(doc.file_size.unwrap_or(0)).unwrap_or(0));
        return Ok(response.streaming(plain.map_err(actix_web::Error::from)));
    }
    let etag = format!("\"{}\"", doc.checksum.clone().unwrap_or_else(|| doc.id.simple().to_string()));
    let matches = crate::http_cache::holds(request.headers(), &etag);
    if matches {
        return Ok(HttpResponse::NotModified().insert_header((header::ETAG, etag)).finish());
    }
    let range =
        request.headers().get(header::RANGE).and_then(|v| v.to_str().ok()).and_then(crate::media::files::parse_range);
    let size = u64::try_from(doc.file_size.unwrap_or(0)).unwrap_or(0);
    if let Some(object_store::GetRange::Bounded(r)) = &range {
        if r.start >= size {
            return Err(ApiError::new(ErrorCode::RangeNotSatisfiable, "the range lies outside the file").with_header(
                header::CONTENT_RANGE,
                HeaderValue::from_str(&format!("bytes */{size}")).unwrap_or(HeaderValue::from_static("bytes */0")),
            ));
        }
    }
    let found = state.storage.open(&key, range.clone()).await.map_err(|e| {
        tracing::error!(error = %e, "reading a document failed");
        ApiError::new(ErrorCode::StorageError, "the document could not be read")
    })?;
    let found = found.ok_or_else(|| ApiError::new(ErrorCode::StorageError, "the document's file is missing"))?;
    let served = found.range.clone();
    let mut response = if range.is_some() {
        let mut r = HttpResponse::PartialContent();
        r.insert_header((
            header::CONTENT_RANGE,
            format!("bytes {}-{}/{}", served.start, served.end.saturating_sub(1), found.meta.size),
        ));
        r
    } else {
        HttpResponse::Ok()
    };
    response
        .content_type(doc.mime_type.clone().unwrap_or_else(|| "application/octet-stream".into()))
        .insert_header((header::CONTENT_DISPOSITION, disposition(&doc)))
        .insert_header((header::ETAG, etag))
        .insert_header((header::ACCEPT_RANGES, "bytes"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .no_chunking(served.end - served.start);
    let body = found.into_stream().map_err(|e| actix_web::error::ErrorInternalServerError(e.to_string()));
    Ok(response.streaming(body))
}

/// A page that asks for the password, exchanges it for a token and follows
/// the download link. No outside resources; the id is a UUID (no escaping needed).
fn password_page(id: Uuid) -> String {
    format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Protected document</title></head><body style="font-family:sans-serif;max-width:28rem;margin:4rem auto">
<h1>Protected document</h1><p>Enter the password to download this document.</p>
<form id="f"><input id="p" type="password" autocomplete="current-password" required autofocus>
<button>Download</button></form><p id="e" role="alert"></p>
<script>
document.getElementById('f').onsubmit = async (ev) => {{
  ev.preventDefault();
  const res = await fetch('verify-access', {{method: 'POST', headers: {{'Content-Type': 'application/json'}},
    body: JSON.stringify({{password: document.getElementById('p').value}})}});
  const body = await res.json();
  if (res.ok) {{ location.href = 'download?token=' + encodeURIComponent(body.access_token); }}
  else {{ document.getElementById('e').textContent = body.detail || 'Access denied'; }}
}};
</script><noscript>Downloading needs JavaScript, or an access token from POST /api/v1/documents/{id}/verify-access.</noscript>
</body></html>"#
    )
}
