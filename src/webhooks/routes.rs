//! Webhook endpoints (all Admin on the webhook's site).

use actix_web::{web, HttpResponse};
use plinth_entities::webhook;
use uuid::Uuid;

use super::model::*;
use super::service;
use super::WebhookRuntime;
use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult, Problem};
use crate::pagination::{PageParams, Paginated};
use crate::site_rows;
use crate::state::AppState;

/// The webhook, after checking the caller administers its site.
async fn find_webhook(state: &AppState, principal: &Principal, id: Uuid) -> ApiResult<webhook::Model> {
    site_rows::find(state, principal, id, Capability::AdministerSite).await
}

/// List a site's webhooks
///
/// Admin role or higher on the site.
#[utoipa::path(get, path = "/sites/{site_id}/webhooks", tag = "Webhooks", params(("site_id" = Uuid, Path), PageParams),
    responses((status = 200, body = Paginated<WebhookResponse>)))]
pub async fn list_webhooks(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    page: web::Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    Ok(HttpResponse::Ok().json(service::list(&state, site_id, page.resolve()).await?))
}

/// Show a webhook
///
/// Admin role or higher on the webhook's site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/webhooks/{id}", tag = "Webhooks", params(("id" = Uuid, Path)),
    responses((status = 200, body = WebhookResponse)))]
pub async fn get_webhook(
    state: web::Data<AppState>,
    hooks: web::Data<WebhookRuntime>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let hook = find_webhook(&state, &principal, id.into_inner()).await?;
    let circuit = hooks.circuits.view(hook.id);
    // Tagged as the webhook its writes record, without the circuit: that is
    // this instance's view of the endpoint, not the webhook's version, so a
    // save (`If-Match`) does not depend on which instance answered the read.
    let tag = crate::etag::etag_of(&serde_json::to_vec(&WebhookResponse::from(&hook)).map_err(ApiError::internal)?);
    let answer = WebhookResponse { circuit: Some(circuit), ..WebhookResponse::from(&hook) };
    Ok(HttpResponse::Ok().insert_header((actix_web::http::header::ETAG, tag)).json(answer))
}

/// Create a webhook
///
/// Admin role or higher on the site. The answer carries the generated secret. Errors: WEBHOOK_URL_SSRF,
/// WEBHOOK_INVALID_DEBOUNCE, VALIDATION_INVALID_FORMAT.
#[utoipa::path(
    post,
    path = "/sites/{site_id}/webhooks",
    tag = "Webhooks",
    params(("site_id" = Uuid, Path)),
    request_body = CreateWebhook,
    responses(
        (status = 201, body = WebhookResponse, description = "With its generated secret"),
        (status = "4XX", body = Problem, description = "WEBHOOK_URL_SSRF, WEBHOOK_INVALID_DEBOUNCE, VALIDATION_ERROR")
    )
)]
pub async fn create_webhook(
    state: web::Data<AppState>,
    hooks: web::Data<WebhookRuntime>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<CreateWebhook>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    let now = state.clock.now();
    let created = service::create(&state, &hooks, &principal.actor(), now, site_id, body.into_inner()).await?;
    Ok(HttpResponse::Created().json(created))
}

/// Change a webhook
///
/// Admin role or higher on the webhook's site. Errors: ENTITY_NOT_FOUND, WEBHOOK_URL_SSRF, WEBHOOK_INVALID_DEBOUNCE,
/// VALIDATION_INVALID_FORMAT.
#[utoipa::path(
    put,
    path = "/webhooks/{id}",
    tag = "Webhooks",
    params(("id" = Uuid, Path)),
    request_body = UpdateWebhook,
    responses((status = 200, body = WebhookResponse))
)]
pub async fn update_webhook(
    state: web::Data<AppState>,
    hooks: web::Data<WebhookRuntime>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateWebhook>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = find_webhook(&state, &principal, id.into_inner()).await?;
    let updated = service::update(&state, &hooks, &principal.actor(), now, current, body.into_inner()).await?;
    Ok(HttpResponse::Ok().json(updated))
}

/// Delete a webhook
///
/// Admin role or higher on the webhook's site; its delivery history goes too. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(delete, path = "/webhooks/{id}", tag = "Webhooks", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Deleted with its delivery history")))]
pub async fn delete_webhook(
    state: web::Data<AppState>,
    hooks: web::Data<WebhookRuntime>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = find_webhook(&state, &principal, id.into_inner()).await?;
    service::delete(&state, &hooks, &principal.actor(), now, current).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Send a webhook a test payload
///
/// Admin role or higher on the webhook's site. Errors: ENTITY_NOT_FOUND, WEBHOOK_TEST_FAILED, WEBHOOK_URL_SSRF.
#[utoipa::path(
    post,
    path = "/webhooks/{id}/test",
    tag = "Webhooks",
    params(("id" = Uuid, Path)),
    responses(
        (status = 200, body = TestResult, description = "Sent `{event: \"webhook.test\", test: true, …}`; the attempt is logged"),
        (status = 500, body = Problem, description = "WEBHOOK_TEST_FAILED: the endpoint failed or was unreachable")
    )
)]
pub async fn test_webhook(
    state: web::Data<AppState>,
    hooks: web::Data<WebhookRuntime>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let hook = find_webhook(&state, &principal, id.into_inner()).await?;
    let now = state.clock.now();
    Ok(HttpResponse::Ok().json(service::send_test(&state, &hooks, now, hook).await?))
}

/// List a webhook's deliveries
///
/// Admin role or higher on the webhook's site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/webhooks/{id}/deliveries", tag = "Webhooks", params(("id" = Uuid, Path), PageParams),
    responses((status = 200, body = Paginated<DeliveryLogEntry>, description = "Every attempt, newest first")))]
pub async fn list_deliveries(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    page: web::Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let hook = find_webhook(&state, &principal, id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(service::attempts(&state, hook.id, page.resolve()).await?))
}

/// Retry a dead webhook delivery
///
/// Admin role or higher on the webhook's site. Errors: ENTITY_NOT_FOUND, CONFLICT.
#[utoipa::path(post, path = "/webhooks/deliveries/{id}/retry", tag = "Webhooks", params(("id" = Uuid, Path)),
    responses((status = 200, body = DeliveryResponse, description = "Re-enqueued with a fresh schedule"),
        (status = 409, body = Problem, description = "Only dead deliveries are retried by hand")))]
pub async fn retry_delivery(
    state: web::Data<AppState>,
    hooks: web::Data<WebhookRuntime>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let delivery = service::find_delivery(&state, id.into_inner()).await?;
    find_webhook(&state, &principal, delivery.webhook_id).await?;
    let now = state.clock.now();
    let retried = service::retry(&state, now, delivery).await?;
    // An operator's retry is sent even while the circuit is open: it is the probe.
    hooks.circuits.probe_now(retried.webhook_id, now);
    Ok(HttpResponse::Ok().json(retried))
}

/// Show a webhook's delivery statistics
///
/// Admin role or higher on the webhook's site. Errors: ENTITY_NOT_FOUND, WEBHOOK_INVALID_STATS_WINDOW.
#[utoipa::path(
    get,
    path = "/webhooks/{id}/stats",
    tag = "Webhooks",
    params(("id" = Uuid, Path), StatsQuery),
    responses(
        (status = 200, body = WebhookStats),
        (status = 400, body = Problem, description = "WEBHOOK_INVALID_STATS_WINDOW")
    )
)]
pub async fn webhook_stats(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    query: web::Query<StatsQuery>,
) -> ApiResult<HttpResponse> {
    let (window, span) = service::stats_window(query.window.as_deref())?;
    let hook = find_webhook(&state, &principal, id.into_inner()).await?;
    // A sliding window: the figures change as time passes, not only with writes.
    crate::state::responses::depends_on_time();
    let since = state.clock.now() - span;
    Ok(HttpResponse::Ok().json(service::stats(&state, hook.id, window, since).await?))
}
