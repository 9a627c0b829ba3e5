//! Webhook endpoints (all Admin on the webhook's site).

use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use plinth_entities::{webhook, webhook_attempt, webhook_delivery};
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::delivery::{self, enqueue, DeliveryStatus};
use super::dispatcher::subscribed_events;
use super::WebhookRuntime;
use super::{events, signature, ssrf};
use crate::audit::{self, Action, AuditEntry};
use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError, Problem};
use crate::pagination::{fetch_page, PageParams, Paginated};
use crate::state::AppState;

pub const MAX_DEBOUNCE_SECONDS: i32 = 300;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct WebhookResponse {
    pub id: Uuid,
    pub site_id: Uuid,
    pub url: String,
    /// `whsec_…`: verify signatures with it (Standard Webhooks).
    pub secret: String,
    pub description: String,
    /// Subscribed event names; empty means every event.
    pub events: Vec<String>,
    pub is_active: bool,
    pub debounce_seconds: i32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&webhook::Model> for WebhookResponse {
    fn from(m: &webhook::Model) -> Self {
        Self {
            id: m.id,
            site_id: m.site_id,
            url: m.url.clone(),
            secret: m.secret.clone(),
            description: m.description.clone(),
            events: subscribed_events(m),
            is_active: m.is_active,
            debounce_seconds: m.debounce_seconds,
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateWebhook {
    pub url: String,
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub description: String,
    /// Event names; omitted or empty subscribes to every event.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub events: Vec<String>,
    /// 0 (immediate, default) to 300: events within the window arrive as one batch.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub debounce_seconds: i32,
    pub is_active: Option<bool>,
}

/// Every field optional; only given ones change.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateWebhook {
    pub url: Option<String>,
    pub description: Option<String>,
    pub events: Option<Vec<String>>,
    pub debounce_seconds: Option<i32>,
    pub is_active: Option<bool>,
    /// `true` issues a new secret.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub rotate_secret: bool,
}

/// One attempt in the delivery log.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct DeliveryLogEntry {
    pub id: Uuid,
    pub delivery_id: Uuid,
    pub event: String,
    pub attempt: i32,
    pub success: bool,
    pub status_code: Option<i32>,
    pub duration_ms: i64,
    pub error: Option<String>,
    pub response_excerpt: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl From<&webhook_attempt::Model> for DeliveryLogEntry {
    fn from(m: &webhook_attempt::Model) -> Self {
        Self {
            id: m.id,
            delivery_id: m.delivery_id,
            event: m.event.clone(),
            attempt: m.attempt,
            success: m.success,
            status_code: m.status_code,
            duration_ms: m.duration_ms,
            error: m.error.clone(),
            response_excerpt: m.response_excerpt.clone(),
            created_at: m.created_at,
        }
    }
}

/// A delivery (all its attempts share its id as `webhook-id`).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct DeliveryResponse {
    pub id: Uuid,
    pub webhook_id: Uuid,
    pub event: String,
    /// pending, success, failed (will retry) or dead
    pub status: String,
    pub attempts: i32,
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub last_status_code: Option<i32>,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl From<&webhook_delivery::Model> for DeliveryResponse {
    fn from(m: &webhook_delivery::Model) -> Self {
        Self {
            id: m.id,
            webhook_id: m.webhook_id,
            event: m.event.clone(),
            status: m.status.clone(),
            attempts: m.attempts,
            next_attempt_at: m.next_attempt_at,
            last_status_code: m.last_status_code,
            last_error: m.last_error.clone(),
            created_at: m.created_at,
        }
    }
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TestResult {
    pub delivery_id: Uuid,
    pub success: bool,
    pub status_code: Option<u16>,
    pub duration_ms: i64,
    pub error: Option<String>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EventStats {
    pub event_type: String,
    pub total: u64,
    pub successful: u64,
    pub failed: u64,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct WebhookStats {
    pub webhook_id: Uuid,
    pub window: String,
    pub total_deliveries: u64,
    pub successful: u64,
    pub failed: u64,
    pub pending_retry: u64,
    /// Percent of deliveries that succeeded.
    pub success_rate: f64,
    pub last_delivery_at: Option<DateTime<Utc>>,
    pub by_event: Vec<EventStats>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StatsQuery {
    /// 1h, 24h (default), 7d or 30d
    pub window: Option<String>,
}

/// Checks a target URL against the SSRF rules.
async fn check_url(state: &AppState, raw: &str) -> ApiResult<String> {
    match ssrf::check(raw, &state.config.ssrf_allowlist).await {
        Ok(url) => Ok(url.to_string()),
        Err(ssrf::Refusal::Private(why)) => {
            Err(ApiError::new(ErrorCode::WebhookUrlSsrf, format!("webhooks may not target private networks: {why}")))
        }
        Err(ssrf::Refusal::Invalid(why)) => {
            Err(ApiError::validation(vec![FieldError::new("url", ErrorCode::ValidationInvalidFormat, why)]))
        }
    }
}

fn check_debounce(seconds: i32) -> ApiResult<()> {
    if (0..=MAX_DEBOUNCE_SECONDS).contains(&seconds) {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::WebhookInvalidDebounce,
            format!("debounce_seconds must be 0 to {MAX_DEBOUNCE_SECONDS}, not {seconds}"),
        ))
    }
}

fn check_events(names: &[String]) -> ApiResult<()> {
    let unknown: Vec<&String> = names.iter().filter(|n| !events::is_known(n)).collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(ApiError::validation(vec![FieldError::new(
            "events",
            ErrorCode::ValidationInvalidFormat,
            format!("unknown events: {}", unknown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")),
        )]))
    }
}

/// The webhook, after checking the caller administers its site.
async fn find_webhook(state: &AppState, principal: &Principal, id: Uuid) -> ApiResult<webhook::Model> {
    let hook =
        webhook::Entity::find_by_id(id).one(&state.db).await?.ok_or_else(|| ApiError::not_found("webhook", id))?;
    principal.require(state, hook.site_id, Capability::AdministerSite).await?;
    Ok(hook)
}

fn audit_entry<'a>(actor: &'a str, action: Action, hook: &webhook::Model) -> AuditEntry<'a> {
    AuditEntry { actor, action, entity_type: "webhook", entity_id: hook.id.to_string(), site_id: Some(hook.site_id) }
}

/// A webhook's response with its secret masked, for the audit trail.
fn audited(hook: &webhook::Model) -> WebhookResponse {
    WebhookResponse { secret: "whsec_…".into(), ..WebhookResponse::from(hook) }
}

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
    let select = webhook::Entity::find()
        .filter(webhook::Column::SiteId.eq(site_id))
        .order_by_asc(webhook::Column::CreatedAt)
        .order_by_asc(webhook::Column::Id);
    let found = fetch_page(&state.db, select, page.resolve()).await?;
    Ok(HttpResponse::Ok().json(found.map(|m| WebhookResponse::from(&m))))
}

#[utoipa::path(get, path = "/webhooks/{id}", tag = "Webhooks", params(("id" = Uuid, Path)),
    responses((status = 200, body = WebhookResponse)))]
pub async fn get_webhook(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(WebhookResponse::from(&find_webhook(&state, &principal, id.into_inner()).await?)))
}

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
    body: web::Json<CreateWebhook>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    state.site_state(site_id).await?;
    let body = body.into_inner();
    check_debounce(body.debounce_seconds)?;
    check_events(&body.events)?;
    let url = check_url(&state, &body.url).await?;
    let now = state.clock.now();
    let txn = crate::db::begin_write(&state.db).await?;
    let created = webhook::ActiveModel {
        id: Set(Uuid::new_v4()),
        site_id: Set(site_id),
        url: Set(url),
        secret: Set(signature::generate_secret()),
        description: Set(body.description),
        events: Set(json!(body.events)),
        is_active: Set(body.is_active.unwrap_or(true)),
        debounce_seconds: Set(body.debounce_seconds),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&txn)
    .await?;
    audit::record(&txn, now, audit_entry(&principal.actor_id(), Action::Create, &created), &(), &audited(&created))
        .await?;
    txn.commit().await?;
    hooks.invalidate(site_id);
    Ok(HttpResponse::Created().json(WebhookResponse::from(&created)))
}

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
    body: web::Json<UpdateWebhook>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = find_webhook(&state, &principal, id.into_inner()).await?;
    let body = body.into_inner();
    if let Some(seconds) = body.debounce_seconds {
        check_debounce(seconds)?;
    }
    if let Some(names) = &body.events {
        check_events(names)?;
    }
    let url = match &body.url {
        Some(raw) => Some(check_url(&state, raw).await?),
        None => None,
    };
    let before = audited(&current);
    let mut row: webhook::ActiveModel = current.into();
    if let Some(url) = url {
        row.url = Set(url);
    }
    if let Some(description) = body.description {
        row.description = Set(description);
    }
    if let Some(names) = body.events {
        row.events = Set(json!(names));
    }
    if let Some(seconds) = body.debounce_seconds {
        row.debounce_seconds = Set(seconds);
    }
    if let Some(active) = body.is_active {
        row.is_active = Set(active);
    }
    if body.rotate_secret {
        row.secret = Set(signature::generate_secret());
    }
    row.updated_at = Set(now);
    let txn = crate::db::begin_write(&state.db).await?;
    let updated = row.update(&txn).await?;
    audit::record(&txn, now, audit_entry(&principal.actor_id(), Action::Update, &updated), &before, &audited(&updated))
        .await?;
    txn.commit().await?;
    hooks.invalidate(updated.site_id);
    Ok(HttpResponse::Ok().json(WebhookResponse::from(&updated)))
}

#[utoipa::path(delete, path = "/webhooks/{id}", tag = "Webhooks", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Deleted with its delivery history")))]
pub async fn delete_webhook(
    state: web::Data<AppState>,
    hooks: web::Data<WebhookRuntime>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let current = find_webhook(&state, &principal, id.into_inner()).await?;
    let txn = crate::db::begin_write(&state.db).await?;
    // Deliveries, attempts and buffers cascade.
    webhook::Entity::delete_by_id(current.id).exec(&txn).await?;
    audit::record(
        &txn,
        state.clock.now(),
        audit_entry(&principal.actor_id(), Action::Delete, &current),
        &audited(&current),
        &(),
    )
    .await?;
    txn.commit().await?;
    hooks.invalidate(current.site_id);
    Ok(HttpResponse::NoContent().finish())
}

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
    let body = json!({
        "event": "webhook.test",
        "test": true,
        "timestamp": now,
        "site_id": hook.site_id,
        "data": {"id": hook.id, "title": "Test delivery", "slug": "webhook-test", "status": "Published"},
    });
    let delivery = enqueue(&state.db, &hook, "webhook.test", &body, now).await?;
    let result = hooks.deliverer.send(&hook.url, &hook.secret, delivery.id, &delivery.payload).await;
    // A test is not retried: it ends with this one attempt.
    let mut stored = delivery::record(&state.db, &hooks.deliverer, now, delivery, &result).await?;
    if !result.success && stored.status != DeliveryStatus::Dead.as_str() {
        let mut row: webhook_delivery::ActiveModel = stored.into();
        row.status = Set(DeliveryStatus::Dead.as_str().to_string());
        row.next_attempt_at = Set(None);
        stored = row.update(&state.db).await?;
    }
    if !result.success {
        return Err(ApiError::new(
            ErrorCode::WebhookTestFailed,
            format!("the test delivery failed: {}", result.error.unwrap_or_else(|| "no answer".into())),
        ));
    }
    Ok(HttpResponse::Ok().json(TestResult {
        delivery_id: stored.id,
        success: true,
        status_code: result.status_code,
        duration_ms: result.duration_ms,
        error: None,
    }))
}

#[utoipa::path(get, path = "/webhooks/{id}/deliveries", tag = "Webhooks", params(("id" = Uuid, Path), PageParams),
    responses((status = 200, body = Paginated<DeliveryLogEntry>, description = "Every attempt, newest first")))]
pub async fn list_deliveries(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    page: web::Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let hook = find_webhook(&state, &principal, id.into_inner()).await?;
    let select = webhook_attempt::Entity::find()
        .filter(webhook_attempt::Column::WebhookId.eq(hook.id))
        .order_by_desc(webhook_attempt::Column::CreatedAt)
        .order_by_desc(webhook_attempt::Column::Attempt)
        .order_by_asc(webhook_attempt::Column::Id);
    let found = fetch_page(&state.db, select, page.resolve()).await?;
    Ok(HttpResponse::Ok().json(found.map(|m| DeliveryLogEntry::from(&m))))
}

#[utoipa::path(post, path = "/webhooks/deliveries/{id}/retry", tag = "Webhooks", params(("id" = Uuid, Path)),
    responses((status = 200, body = DeliveryResponse, description = "Re-enqueued with a fresh schedule"),
        (status = 409, body = Problem, description = "Only dead deliveries are retried by hand")))]
pub async fn retry_delivery(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    let delivery = webhook_delivery::Entity::find_by_id(id)
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found("webhook_delivery", id))?;
    find_webhook(&state, &principal, delivery.webhook_id).await?;
    if delivery.status != DeliveryStatus::Dead.as_str() {
        return Err(ApiError::new(ErrorCode::Conflict, format!("the delivery is {}, not dead", delivery.status)));
    }
    let now = state.clock.now();
    let mut row: webhook_delivery::ActiveModel = delivery.into();
    row.status = Set(DeliveryStatus::Pending.as_str().to_string());
    row.attempts = Set(0);
    row.next_attempt_at = Set(Some(now));
    row.updated_at = Set(now);
    let requeued = row.update(&state.db).await?;
    Ok(HttpResponse::Ok().json(DeliveryResponse::from(&requeued)))
}

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
    let window = query.window.clone().unwrap_or_else(|| "24h".into());
    let span = match window.as_str() {
        "1h" => chrono::Duration::hours(1),
        "24h" => chrono::Duration::hours(24),
        "7d" => chrono::Duration::days(7),
        "30d" => chrono::Duration::days(30),
        other => {
            return Err(ApiError::new(
                ErrorCode::WebhookInvalidStatsWindow,
                format!("window '{other}' is not one of 1h, 24h, 7d, 30d"),
            ))
        }
    };
    let hook = find_webhook(&state, &principal, id.into_inner()).await?;
    let since = state.clock.now() - span;
    let deliveries = webhook_delivery::Entity::find()
        .filter(webhook_delivery::Column::WebhookId.eq(hook.id))
        .filter(webhook_delivery::Column::CreatedAt.gte(since))
        .all(&state.db)
        .await?;
    let last_delivery_at = webhook_attempt::Entity::find()
        .filter(webhook_attempt::Column::WebhookId.eq(hook.id))
        .order_by_desc(webhook_attempt::Column::CreatedAt)
        .one(&state.db)
        .await?
        .map(|a| a.created_at);
    let is = |d: &webhook_delivery::Model, s: DeliveryStatus| d.status == s.as_str();
    let count = |f: &dyn Fn(&webhook_delivery::Model) -> bool| deliveries.iter().filter(|d| f(d)).count() as u64;
    let total = deliveries.len() as u64;
    let successful = count(&|d| is(d, DeliveryStatus::Success));
    let mut by_event: Vec<EventStats> = Vec::new();
    for d in &deliveries {
        let entry = match by_event.iter_mut().find(|e| e.event_type == d.event) {
            Some(e) => e,
            None => {
                by_event.push(EventStats { event_type: d.event.clone(), total: 0, successful: 0, failed: 0 });
                by_event.last_mut().ok_or_else(|| ApiError::internal("stats"))?
            }
        };
        entry.total += 1;
        entry.successful += u64::from(is(d, DeliveryStatus::Success));
        entry.failed += u64::from(is(d, DeliveryStatus::Failed) || is(d, DeliveryStatus::Dead));
    }
    by_event.sort_by(|a, b| a.event_type.cmp(&b.event_type));
    Ok(HttpResponse::Ok().json(WebhookStats {
        webhook_id: hook.id,
        window,
        total_deliveries: total,
        successful,
        failed: count(&|d| is(d, DeliveryStatus::Failed) || is(d, DeliveryStatus::Dead)),
        pending_retry: count(&|d| is(d, DeliveryStatus::Failed) || is(d, DeliveryStatus::Pending)),
        success_rate: if total == 0 { 0.0 } else { (successful as f64 / total as f64 * 1000.0).round() / 10.0 },
        last_delivery_at,
        by_event,
    }))
}
