//! Webhook rules and writes: target URLs pass the SSRF guard, every write
//! records its audit entry (secret masked) in the same transaction and drops the
//! site's cached webhooks; test sends, hand retries and delivery stats.

use chrono::{DateTime, Duration, Utc};
use plinth_entities::{webhook, webhook_attempt, webhook_delivery};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Select,
};
use serde::{Serialize, Serializer};
use serde_json::{json, Value};
use uuid::Uuid;

use super::delivery::{self, enqueue, DeliveryStatus};
use super::model::*;
use super::WebhookRuntime;
use super::{events, signature};
use crate::audit::{Action, Actor};
use crate::db::Touched;
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::outbound::Refusal;
use crate::pagination::{fetch_page, Page, Paginated};
use crate::site_rows::{self, SiteRow};
use crate::state::AppState;

const MAX_DEBOUNCE_SECONDS: i32 = 300;

impl SiteRow for webhook::Model {
    type Table = webhook::Entity;
    const KIND: &'static str = "webhook";

    fn id(&self) -> Uuid {
        self.id
    }

    fn site_id(&self) -> Uuid {
        self.site_id
    }
}

/// A webhook as its audit entries record it: with the secret masked.
struct Audited(WebhookResponse);

impl Serialize for Audited {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        WebhookResponse { secret: "whsec_…".into(), ..self.0.clone() }.serialize(serializer)
    }
}

fn audited(hook: &webhook::Model) -> Audited {
    Audited(WebhookResponse::from(hook))
}

/// Checks a target URL against the SSRF rules.
async fn check_url(state: &AppState, raw: &str) -> ApiResult<String> {
    match state.outbound.check(raw).await {
        Ok(url) => Ok(url.to_string()),
        Err(Refusal::Private(why)) => {
            Err(ApiError::new(
                ErrorCode::WebhookUrlSsrf,
                format!(
                    "webhooks may not target private networks: {why}. An operator can allow such a destination with PLINTH_SSRF_ALLOWLIST=host:port"
                ),
            ))
        }
        Err(Refusal::Invalid(why)) => {
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

/// A site's webhooks, oldest first (`ix_webhooks_site_created`).
pub fn list_query(site_id: Uuid) -> Select<webhook::Entity> {
    webhook::Entity::find()
        .filter(webhook::Column::SiteId.eq(site_id))
        .order_by_asc(webhook::Column::CreatedAt)
        .order_by_asc(webhook::Column::Id)
}

pub async fn list(state: &AppState, site_id: Uuid, page: Page) -> ApiResult<Paginated<WebhookResponse>> {
    Ok(fetch_page(&state.db, list_query(site_id), page).await?.map(|m| WebhookResponse::from(&m)))
}

pub async fn create(
    state: &AppState,
    hooks: &WebhookRuntime,
    actor: &Actor,
    now: DateTime<Utc>,
    site_id: Uuid,
    body: CreateWebhook,
) -> ApiResult<WebhookResponse> {
    state.site_state(site_id).await?;
    check_debounce(body.debounce_seconds)?;
    check_events(&body.events)?;
    let url = check_url(state, &body.url).await?;
    let row = webhook::ActiveModel {
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
    };
    let created = site_rows::audited_write(&state.db, now, actor, Action::Create, Value::Null)
        .run(row, audited, ApiError::from)
        .await?;
    hooks.invalidate(site_id);
    Ok(created.0)
}

/// Changes the given fields; `rotate_secret` issues a new secret.
pub async fn update(
    state: &AppState,
    hooks: &WebhookRuntime,
    actor: &Actor,
    now: DateTime<Utc>,
    current: webhook::Model,
    body: UpdateWebhook,
) -> ApiResult<WebhookResponse> {
    // Its entries mask the secret; its `GET` is tagged with it (`get_webhook`).
    if crate::preconditions::pending() {
        crate::preconditions::compare_with(&WebhookResponse::from(&current));
    }
    if let Some(seconds) = body.debounce_seconds {
        check_debounce(seconds)?;
    }
    if let Some(names) = &body.events {
        check_events(names)?;
    }
    let url = match &body.url {
        Some(raw) => Some(check_url(state, raw).await?),
        None => None,
    };
    let before = json!(audited(&current));
    let site_id = current.site_id;
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
    let updated = site_rows::audited_write(&state.db, now, actor, Action::Update, before)
        .run(row, audited, ApiError::from)
        .await?;
    hooks.invalidate(site_id);
    Ok(updated.0)
}

/// Deletes the webhook; its deliveries, attempts and buffers cascade.
pub async fn delete(
    state: &AppState,
    hooks: &WebhookRuntime,
    actor: &Actor,
    now: DateTime<Utc>,
    current: webhook::Model,
) -> ApiResult<()> {
    let site_id = current.site_id;
    if crate::preconditions::pending() {
        crate::preconditions::compare_with(&WebhookResponse::from(&current));
    }
    site_rows::audited_write(&state.db, now, actor, Action::Delete, json!(audited(&current))).remove(current).await?;
    hooks.invalidate(site_id);
    Ok(())
}

/// Sends `{event: "webhook.test", test: true, …}` once and logs the attempt;
/// WEBHOOK_TEST_FAILED when the endpoint failed or was unreachable.
pub async fn send_test(
    state: &AppState,
    hooks: &WebhookRuntime,
    now: DateTime<Utc>,
    hook: webhook::Model,
) -> ApiResult<TestResult> {
    let body = json!({
        "event": "webhook.test",
        "test": true,
        "timestamp": now,
        "site_id": hook.site_id,
        "data": {"id": hook.id, "title": "Test delivery", "slug": "webhook-test", "status": "Published"},
    });
    let claim = hooks.deliverer.claim;
    let delivery =
        state.db.write(&[], async |txn| enqueue(txn, claim, &hook, "webhook.test", &body, now).await).await?;
    let result = hooks.deliverer.send(&hook.url, &hook.secret, delivery.id, &delivery.payload).await;
    // A test is not retried: it ends with this one attempt.
    let mut stored = delivery::record(&state.db, &hooks.deliverer, now, delivery, &result).await?;
    if !result.success && stored.status != DeliveryStatus::Dead {
        let mut row: webhook_delivery::ActiveModel = stored.into();
        row.status = Set(DeliveryStatus::Dead);
        row.next_attempt_at = Set(None);
        let touched = [Touched::Answers(hook.site_id)];
        stored = state.db.write(&touched, async |txn| row.update(txn).await).await?;
    }
    if !result.success {
        return Err(ApiError::new(
            ErrorCode::WebhookTestFailed,
            format!("the test delivery failed: {}", result.error.unwrap_or_else(|| "no answer".into())),
        ));
    }
    Ok(TestResult {
        delivery_id: stored.id,
        success: true,
        status_code: result.status_code,
        duration_ms: result.duration_ms,
        error: None,
        id: stored.id,
        webhook_id: hook.id,
        event_type: stored.event.clone(),
        payload: body,
        response_body: result.response_excerpt,
        error_message: None,
        attempt_number: 1,
        delivered_at: now,
    })
}

/// Every attempt of the webhook's deliveries, newest first
/// (`ix_webhook_attempts_webhook_time`).
pub fn attempts_query(webhook_id: Uuid) -> Select<webhook_attempt::Entity> {
    webhook_attempt::Entity::find()
        .filter(webhook_attempt::Column::WebhookId.eq(webhook_id))
        .order_by_desc(webhook_attempt::Column::CreatedAt)
        .order_by_desc(webhook_attempt::Column::Attempt)
        .order_by_desc(webhook_attempt::Column::Id)
}

pub async fn attempts(state: &AppState, webhook_id: Uuid, page: Page) -> ApiResult<Paginated<DeliveryLogEntry>> {
    let attempts = fetch_page(&state.db, attempts_query(webhook_id), page).await?;
    // The page's deliveries' bodies, by primary key in one query.
    let mut delivery_ids: Vec<Uuid> = attempts.data.iter().map(|a| a.delivery_id).collect();
    delivery_ids.sort();
    delivery_ids.dedup();
    let payloads: std::collections::HashMap<Uuid, String> = webhook_delivery::Entity::find()
        .select_only()
        .column(webhook_delivery::Column::Id)
        .column(webhook_delivery::Column::Payload)
        .filter(webhook_delivery::Column::Id.is_in(delivery_ids))
        .into_tuple()
        .all(&state.db)
        .await?
        .into_iter()
        .collect();
    Ok(attempts.map(|m| DeliveryLogEntry::of(&m, payloads.get(&m.delivery_id).map(String::as_str))))
}

pub async fn find_delivery(state: &AppState, id: Uuid) -> ApiResult<webhook_delivery::Model> {
    webhook_delivery::Entity::find_by_id(id)
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found("webhook_delivery", id))
}

/// Re-enqueues a dead delivery with a fresh schedule; only dead ones are
/// retried by hand.
pub async fn retry(
    state: &AppState,
    now: DateTime<Utc>,
    delivery: webhook_delivery::Model,
) -> ApiResult<DeliveryResponse> {
    if delivery.status != DeliveryStatus::Dead {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            format!("the delivery is {}, not dead", delivery.status.as_str()),
        ));
    }
    let site_id = delivery.site_id;
    let mut row: webhook_delivery::ActiveModel = delivery.into();
    row.status = Set(DeliveryStatus::Pending);
    row.attempts = Set(0);
    row.next_attempt_at = Set(Some(now));
    row.updated_at = Set(now);
    let touched = [Touched::Answers(site_id)];
    let requeued = state.db.write(&touched, async |txn| row.update(txn).await).await?;
    Ok(DeliveryResponse::from(&requeued))
}

/// How far back stats look: 1h, 24h (the default), 7d or 30d.
pub fn stats_window(window: Option<&str>) -> ApiResult<(String, Duration)> {
    let window = window.unwrap_or("24h");
    let span = match window {
        "1h" => Duration::hours(1),
        "24h" => Duration::hours(24),
        "7d" => Duration::days(7),
        "30d" => Duration::days(30),
        other => {
            return Err(ApiError::new(
                ErrorCode::WebhookInvalidStatsWindow,
                format!("window '{other}' is not one of 1h, 24h, 7d, 30d"),
            ))
        }
    };
    Ok((window.to_string(), span))
}

/// Delivery counts of the webhook since `since`, in all and by event.
pub async fn stats(
    state: &AppState,
    webhook_id: Uuid,
    window: String,
    since: DateTime<Utc>,
) -> ApiResult<WebhookStats> {
    let deliveries = webhook_delivery::Entity::find()
        .filter(webhook_delivery::Column::WebhookId.eq(webhook_id))
        .filter(webhook_delivery::Column::CreatedAt.gte(since))
        .all(&state.db)
        .await?;
    let last_delivery_at = webhook_attempt::Entity::find()
        .filter(webhook_attempt::Column::WebhookId.eq(webhook_id))
        .order_by_desc(webhook_attempt::Column::CreatedAt)
        .one(&state.db)
        .await?
        .map(|a| a.created_at);
    let is = |d: &webhook_delivery::Model, s: DeliveryStatus| d.status == s;
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
    Ok(WebhookStats {
        webhook_id,
        window,
        total_deliveries: total,
        successful,
        failed: count(&|d| is(d, DeliveryStatus::Failed) || is(d, DeliveryStatus::Dead)),
        pending_retry: count(&|d| is(d, DeliveryStatus::Failed) || is(d, DeliveryStatus::Pending)),
        success_rate: if total == 0 { 0.0 } else { (successful as f64 / total as f64 * 1000.0).round() / 10.0 },
        last_delivery_at,
        by_event,
    })
}
