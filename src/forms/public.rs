//! The anonymous endpoints under `/public`: a form's definition, ALTCHA
//! challenges, submissions, and a visitor's access by reference code. The
//! site comes from `X-Site-Domain`; bodies are capped at [`MAX_SUBMIT_BYTES`]
//! while they stream in; submissions and visitor reads are limited per client
//! address (`rate_limits.form_submissions_per_minute`, default 10, and
//! `visitor_lookups_per_minute`, default 30).

use std::sync::Arc;

use actix_web::http::header::{CACHE_CONTROL, ETAG, RETRY_AFTER, VARY};
use actix_web::{web, HttpRequest, HttpResponse};
use plinth_actors::ClientQuota;
use uuid::Uuid;

use super::altcha::Challenge;
use super::model::{
    LookupRequest, PublicForm, PublicFormQuery, SubmissionLookup, SubmissionReceipt, SubmitForm, VisitorSubmission,
};
use super::{bot, service, submit};
use crate::auth::client_address;
use crate::error::{ApiError, ApiResult, ErrorCode, Problem};
use crate::state::{AppState, SiteState};

/// The largest submit (or lookup) body: generous for a form, small enough that
/// anonymous traffic cannot make the server buffer much.
pub const MAX_SUBMIT_BYTES: usize = 64 * 1024;
pub const SITE_HEADER: &str = "X-Site-Domain";

/// The site the request names in `X-Site-Domain`, with the forms module on.
async fn site_of(state: &AppState, req: &HttpRequest) -> ApiResult<Arc<SiteState>> {
    let domain = req
        .headers()
        .get(SITE_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| ApiError::bad_request("send the site's domain (or slug) in the X-Site-Domain header"))?;
    let site = state.live_site_by_domain(domain).await?;
    // A visitor's writes (submissions) take the site's turns.
    crate::tenant::note_site(site.site.id);
    super::gate::require_module(state, site.site.id).await?;
    Ok(site)
}

/// The site when the request names one: visitor endpoints accept a bare
/// reference code too (it is unique across sites).
async fn optional_site(state: &AppState, req: &HttpRequest) -> ApiResult<Option<Uuid>> {
    if req.headers().contains_key(SITE_HEADER) {
        Ok(Some(site_of(state, req).await?.site.id))
    } else {
        Ok(None)
    }
}

fn within_quota(quota: &ClientQuota, req: &HttpRequest, what: &str) -> ApiResult<()> {
    quota.check(client_address(req)).map_err(|secs| {
        ApiError::new(ErrorCode::RateLimitExceeded, format!("too many {what} from this address; try again in {secs} s"))
            .with_header(RETRY_AFTER, secs.into())
    })
}

/// Show a public form
///
/// Public; the site is named by the `X-Site-Domain` header. Inactive forms answer 404. Errors: RESOURCE_NOT_FOUND.
#[utoipa::path(get, path = "/public/forms/{slug}", tag = "Forms (public)",
    params(("slug" = String, Path), ("X-Site-Domain" = String, Header, pattern = r"\S", description = "Required: the site's domain (host of its base_url) or slug, not blank"), PublicFormQuery),
    responses(
        (status = 200, body = PublicForm, description = "Localized texts replace the canonical ones; `label` stays the data key. ETag; Cache-Control: public, max-age=60"),
        (status = 304, description = "The copy held is current"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "Unknown site, form or locale; inactive form; forms module off")
    ),
    security(()))]
pub async fn public_form(
    state: web::Data<AppState>,
    req: HttpRequest,
    slug: web::Path<String>,
    query: web::Query<PublicFormQuery>,
) -> ApiResult<HttpResponse> {
    let site = site_of(&state, &req).await?;
    let built = submit::definition(&state, &site, &slug, query.locale.as_deref()).await?;
    let held = crate::http_cache::holds(req.headers(), &built.etag);
    let mut response = if held { HttpResponse::NotModified() } else { HttpResponse::Ok() };
    response
        .insert_header((CACHE_CONTROL, "public, max-age=60"))
        .insert_header((VARY, SITE_HEADER))
        .insert_header((ETAG, built.etag.clone()));
    Ok(if held { response.finish() } else { response.content_type(built.content_type).body(built.body.clone()) })
}

/// Get a form's bot challenge
///
/// Public; the site is named by the `X-Site-Domain` header. A fresh single-use signed challenge. Errors:
/// RESOURCE_NOT_FOUND, CONFLICT (site not in altcha mode).
#[utoipa::path(get, path = "/public/forms/{slug}/altcha-challenge", tag = "Forms (public)",
    params(("slug" = String, Path), ("X-Site-Domain" = String, Header, pattern = r"\S", description = "Required: the site's domain (host of its base_url) or slug, not blank")),
    responses(
        (status = 200, body = Challenge, description = "A fresh challenge for the ALTCHA widget, valid 10 minutes (the expiry is in the salt); a solution is accepted once"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, body = Problem, content_type = "application/problem+json", description = "The site verifies with a remote provider, not ALTCHA")
    ),
    security(()))]
pub async fn altcha_challenge(
    state: web::Data<AppState>,
    req: HttpRequest,
    slug: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let site = site_of(&state, &req).await?;
    service::by_slug(&state, site.site.id, &slug).await?;
    let challenge = bot::challenge(&state, site.site.id).await?;
    Ok(HttpResponse::Ok().insert_header((CACHE_CONTROL, "no-store")).json(challenge))
}

/// Submit a form
///
/// Public; the site is named by the `X-Site-Domain` header. Rate-limited per IP. Errors: FORM_VALIDATION_FAILED,
/// FORM_CONSENT_REQUIRED, BOT_PROTECTION_MISSING, BOT_PROTECTION_INVALID, BOT_PROTECTION_NOT_CONFIGURED,
/// BOT_PROTECTION_PROVIDER_ERROR, RATE_LIMIT_EXCEEDED, RESOURCE_NOT_FOUND.
#[utoipa::path(post, path = "/public/forms/{slug}/submit", tag = "Forms (public)",
    params(("slug" = String, Path), ("X-Site-Domain" = String, Header, pattern = r"\S", description = "Required: the site's domain (host of its base_url) or slug, not blank")), request_body = SubmitForm,
    responses(
        (status = 201, body = SubmissionReceipt),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "FORM_VALIDATION_FAILED (with `errors` per field), FORM_CONSENT_REQUIRED, BOT_PROTECTION_MISSING, BOT_PROTECTION_INVALID (failed, expired or replayed)"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 413, body = Problem, content_type = "application/problem+json", description = "Body over 64 KiB"),
        (status = 429, body = Problem, content_type = "application/problem+json", description = "Over the per-address submission quota (default 10 a minute); Retry-After"),
        (status = 503, body = Problem, content_type = "application/problem+json", description = "BOT_PROTECTION_NOT_CONFIGURED or BOT_PROTECTION_PROVIDER_ERROR (verification fails closed)")
    ),
    security(()))]
pub async fn submit_form(
    state: web::Data<AppState>,
    req: HttpRequest,
    slug: web::Path<String>,
    payload: web::Payload,
) -> ApiResult<HttpResponse> {
    within_quota(&state.rate_limits.form_submissions, &req, "submissions")?;
    let site = site_of(&state, &req).await?;
    let body: SubmitForm =
        crate::body::read_json_capped(payload, MAX_SUBMIT_BYTES, "a submission is at most 64 KiB").await?;
    let receipt = submit::submit(&state, site.site.id, &slug, body).await?;
    Ok(HttpResponse::Created().json(receipt))
}

/// Look up a submission's status
///
/// Public; the site is named by the `X-Site-Domain` header. Answers status and created_at only. Errors:
/// INVALID_REFERENCE_CODE, RESOURCE_NOT_FOUND.
#[utoipa::path(post, path = "/public/submissions/lookup", tag = "Forms (public)",
    params(("X-Site-Domain" = Option<String>, Header, pattern = r"\S", description = "Optional: when sent (not blank), the site's domain (host of its base_url) or slug, and the submission must belong to that site")),
    request_body = LookupRequest,
    responses(
        (status = 200, body = SubmissionLookup, description = "Status and creation time only"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "INVALID_REFERENCE_CODE"),
        (status = 410, body = Problem, content_type = "application/problem+json", description = "SUBMISSION_DELETED")
    ),
    security(()))]
pub async fn lookup_submission(
    state: web::Data<AppState>,
    req: HttpRequest,
    payload: web::Payload,
) -> ApiResult<HttpResponse> {
    within_quota(&state.rate_limits.visitor_lookups, &req, "lookups")?;
    let site = optional_site(&state, &req).await?;
    let body: LookupRequest = crate::body::read_json_capped(payload, 4 * 1024, "a lookup is at most 4 KiB").await?;
    Ok(HttpResponse::Ok().json(submit::lookup(&state, site, &body.reference_code).await?))
}

/// Show a submission to its visitor
///
/// Public; the site is named by the `X-Site-Domain` header. Errors: INVALID_REFERENCE_CODE, RESOURCE_NOT_FOUND,
/// SUBMISSION_DELETED.
#[utoipa::path(get, path = "/public/submissions/{reference_code}", tag = "Forms (public)",
    params(("reference_code" = String, Path), ("X-Site-Domain" = Option<String>, Header, pattern = r"\S", description = "Optional: when sent (not blank), the site's domain (host of its base_url) or slug, and the submission must belong to that site")),
    responses(
        (status = 200, body = VisitorSubmission, description = "The visitor's full view (Cache-Control: no-store)"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "INVALID_REFERENCE_CODE"),
        (status = 410, body = Problem, content_type = "application/problem+json", description = "SUBMISSION_DELETED")
    ),
    security(()))]
pub async fn view_submission(
    state: web::Data<AppState>,
    req: HttpRequest,
    code: web::Path<String>,
) -> ApiResult<HttpResponse> {
    within_quota(&state.rate_limits.visitor_lookups, &req, "lookups")?;
    let site = optional_site(&state, &req).await?;
    let view = submit::view(&state, site, &code).await?;
    Ok(HttpResponse::Ok().insert_header((CACHE_CONTROL, "no-store")).json(view))
}

/// Delete a submission as its visitor
///
/// Public; the site is named by the `X-Site-Domain` header. Idempotent: a repeat call answers 410 SUBMISSION_DELETED.
/// Errors: INVALID_REFERENCE_CODE, RESOURCE_NOT_FOUND, SUBMISSION_DELETED.
#[utoipa::path(delete, path = "/public/submissions/{reference_code}", tag = "Forms (public)",
    params(("reference_code" = String, Path), ("X-Site-Domain" = Option<String>, Header, pattern = r"\S", description = "Optional: when sent (not blank), the site's domain (host of its base_url) or slug, and the submission must belong to that site")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "INVALID_REFERENCE_CODE"),
        (status = 410, body = Problem, content_type = "application/problem+json", description = "SUBMISSION_DELETED: already deleted (a repeated call)")
    ),
    security(()))]
pub async fn delete_submission(
    state: web::Data<AppState>,
    req: HttpRequest,
    code: web::Path<String>,
) -> ApiResult<HttpResponse> {
    within_quota(&state.rate_limits.visitor_lookups, &req, "lookups")?;
    let site = optional_site(&state, &req).await?;
    submit::withdraw(&state, site, &code).await?;
    Ok(HttpResponse::NoContent().finish())
}
