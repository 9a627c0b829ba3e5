//! Conditional and cached reads for authenticated callers, wrapped around every
//! resource that takes credentials (`Routes::register`; public ones — system,
//! public files — set their own caching): every `GET` answer gets an `ETag` (a
//! hash of its body) and `If-None-Match` is answered `304`;
//! answers that worked on one site come from the per-caller response cache
//! (`state::responses`) while the site is unwritten. Writes drop those answers
//! themselves, as their transactions commit (`db::WriteTxn`).
//!
//! The caller is authenticated before the cache is asked, so a revoked key, a
//! banned user or a spent rate limit is refused exactly as without the cache;
//! entries are keyed by the caller (key id and permission, or user id), so no
//! caller is served what another may see.

use std::cell::RefCell;
use std::rc::Rc;

use actix_web::body::{self, BodySize, BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderMap, HeaderValue, CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{web, FromRequest, HttpResponse};

use crate::auth::{Credential, Principal, API_KEY_HEADER};
use crate::state::responses::{track_sites, CachedResponse, RequestSites, MAX_CACHED_BODY_BYTES};
use crate::state::AppState;

/// Authenticated answers may be kept by the caller's browser, never by a shared
/// cache, and are revalidated with `If-None-Match` before each use.
const REVALIDATE: HeaderValue = HeaderValue::from_static("private, no-cache");

fn answer_hit(req: ServiceRequest, hit: &crate::state::responses::CachedResponse) -> ServiceResponse<BoxBody> {
    // A read answered from the cache is still its site's work (its supervisor stays up).
    crate::tenant::note_site(hit.site_id);
    let response = answer_from(req.headers(), hit.etag.clone(), hit.content_type.clone(), hit.body.clone());
    req.into_response(response)
}

pub async fn cached_reads(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    // A write drops what it made stale as its transaction commits
    // (`db::WriteTxn`), whoever called it: here it gets its `If-Match`
    // compared, and its answer the tag of what it wrote.
    if req.method() != Method::GET {
        return conditional_write(&state, req, next).await;
    }
    let cache_key = match has_credentials(req.headers()) {
        // Refused credentials (a spent rate limit, a revoked key) are answered
        // here: the handler would answer the same, after routing its extractors.
        true => match cache_key(&req).await {
            Ok(key) => Some(key).filter(|_| state.responses.enabled()),
            Err(refused) => return Ok(req.error_response(refused)),
        },
        false => None,
    };
    let cached = || cache_key.as_deref().and_then(|key| state.responses.get(key));
    if let Some(hit) = cached() {
        return Ok(answer_hit(req, &hit));
    }
    // A miss: one build per key at a time; who waited reads what it built.
    let _turn = match cache_key.as_deref() {
        Some(key) => Some(state.response_flights.turn(key).await),
        None => None,
    };
    if let Some(hit) = cached() {
        return Ok(answer_hit(req, &hit));
    }
    let epoch = state.responses.epoch();
    let sites = Rc::new(RefCell::new(RequestSites::default()));
    let res = track_sites(Rc::clone(&sites), next.call(req)).await?;
    if res.status() != StatusCode::OK || res.headers().contains_key(ETAG) {
        return Ok(res.map_into_boxed_body());
    }
    let (req, res) = res.into_parts();
    let (head, body) = res.into_parts();
    let small = matches!(body.size(), BodySize::Sized(n) if n <= MAX_CACHED_BODY_BYTES as u64);
    if !small {
        return Ok(ServiceResponse::new(req, head.set_body(body).map_into_boxed_body()));
    }
    let Ok(bytes) = body::to_bytes(body).await else {
        return Ok(ServiceResponse::new(req, HttpResponse::InternalServerError().finish()));
    };
    let etag = crate::etag::etag_of(&bytes);
    let content_type = head.headers().get(CONTENT_TYPE).cloned();
    if let (Some(key), Some(site_id)) = (cache_key, sites.borrow().cacheable_site()) {
        let entry = CachedResponse {
            site_id,
            generation: 0,
            epoch: 0,
            etag: etag.clone(),
            content_type: content_type.clone(),
            body: bytes.clone(),
        };
        state.responses.store(key, epoch, entry);
    }
    let mut response = answer_from(req.headers(), etag, content_type, bytes);
    for (name, value) in head.headers() {
        // The handler's own caching policy (public files) wins over ours.
        if name == CACHE_CONTROL {
            response.headers_mut().insert(name.clone(), value.clone());
        } else if !response.headers().contains_key(name) {
            response.headers_mut().append(name.clone(), value.clone());
        }
    }
    Ok(ServiceResponse::new(req, response))
}

/// A write with its `If-Match` noted for the audited write path, which
/// compares it in the write's transaction (`crate::preconditions`); its
/// `200`/`201` answer carries the tag of what it answers, as a `GET` of it
/// would, so the next save can send it.
async fn conditional_write(
    state: &AppState,
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let precondition = crate::preconditions::of_request(
        state.db.connection(),
        req.method(),
        req.path(),
        req.headers().get(actix_web::http::header::IF_MATCH),
    )
    .await
    .map_err(crate::error::ApiError::from)?;
    let res = match precondition {
        None => next.call(req).await?,
        Some(precondition) => {
            let (res, checked) = crate::preconditions::scope(precondition, next.call(req)).await;
            let res = res?;
            if res.status().is_success() && !checked {
                // A write whose audited entity is not in its path: nothing
                // compared the tag. The test of every conditional operation
                // fails on this (`tests/api/preconditions.rs`).
                tracing::error!(path = res.request().path(), "If-Match was given and not checked by the write");
            }
            res
        }
    };
    let small = matches!(res.response().body().size(), BodySize::Sized(n) if n <= MAX_CACHED_BODY_BYTES as u64);
    if !matches!(res.status(), StatusCode::OK | StatusCode::CREATED) || !small || res.headers().contains_key(ETAG) {
        return Ok(res.map_into_boxed_body());
    }
    let (req, res) = res.into_parts();
    let (mut head, body) = res.into_parts();
    let Ok(bytes) = body::to_bytes(body).await else {
        return Ok(ServiceResponse::new(req, HttpResponse::InternalServerError().finish()));
    };
    head.headers_mut().insert(ETAG, crate::etag::etag_of(&bytes));
    Ok(ServiceResponse::new(req, head.set_body(bytes).map_into_boxed_body()))
}

fn has_credentials(headers: &HeaderMap) -> bool {
    headers.contains_key(&API_KEY_HEADER) || headers.contains_key(actix_web::http::header::AUTHORIZATION)
}

/// The caller and the URL (`key:{id}:{permission} {path}?{query}`): what a
/// cached answer may be reused for, or why the credentials are refused.
/// Written piece by piece into one allocation: every cached read builds one,
/// and `format!` of a UUID cost more than the cache lookup it keys.
async fn cache_key(req: &ServiceRequest) -> Result<String, crate::error::ApiError> {
    let principal = Principal::from_request(req.request(), &mut Payload::None).await?;
    let (path, query) = (req.path(), req.query_string());
    let mut key = String::with_capacity(64 + path.len() + query.len());
    match &principal.credential {
        Credential::ApiKey(api_key) => {
            key.push_str("key:");
            key.push_str(api_key.id.as_hyphenated().encode_lower(&mut uuid::Uuid::encode_buffer()));
            key.push(':');
            key.push_str(api_key.permission.as_str());
        }
        Credential::User(user) => {
            key.push_str("user:");
            key.push_str(&user.idp_user_id);
            key.push_str(if principal.is_system_admin() { ":true" } else { ":false" });
        }
    }
    for part in [" ", path, "?", query] {
        key.push_str(part);
    }
    Ok(key)
}

/// Whether the request's `If-None-Match` names `etag` (or `*`): the caller
/// holds the current body and gets a 304. Every conditional answer asks this.
pub fn holds(request_headers: &HeaderMap, etag: &str) -> bool {
    request_headers
        .get(IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| tags.split(',').map(|t| t.trim().trim_start_matches("W/")).any(|t| t == etag || t == "*"))
}

/// `304` when the caller already holds this body, else the body.
fn answer_from(
    request_headers: &HeaderMap,
    etag: HeaderValue,
    content_type: Option<HeaderValue>,
    body: web::Bytes,
) -> HttpResponse {
    let unchanged = holds(request_headers, etag.to_str().unwrap_or_default());
    let mut response = match unchanged {
        true => HttpResponse::NotModified().finish(),
        false => HttpResponse::Ok().body(body),
    };
    let headers = response.headers_mut();
    headers.insert(ETAG, etag);
    headers.insert(CACHE_CONTROL, REVALIDATE);
    if let (false, Some(content_type)) = (unchanged, content_type) {
        headers.insert(CONTENT_TYPE, content_type);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_none_match_accepts_lists_weak_tags_and_star() {
        let etag = crate::etag::etag_of(b"{}");
        let tag = etag.to_str().unwrap_or_default().to_string();
        for sent in [tag.clone(), format!("W/{tag}"), format!("\"other\", {tag}"), "*".to_string()] {
            let mut headers = HeaderMap::new();
            headers.insert(IF_NONE_MATCH, HeaderValue::from_str(&sent).unwrap_or(HeaderValue::from_static("x")));
            let res = answer_from(&headers, etag.clone(), None, web::Bytes::from_static(b"{}"));
            assert_eq!(res.status(), StatusCode::NOT_MODIFIED, "{sent}");
        }
        let mut headers = HeaderMap::new();
        headers.insert(IF_NONE_MATCH, HeaderValue::from_static("\"stale\""));
        assert_eq!(answer_from(&headers, etag, None, web::Bytes::new()).status(), StatusCode::OK);
    }
}
