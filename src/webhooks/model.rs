//! The request and response shapes of webhooks, their deliveries and stats.

use chrono::{DateTime, Utc};
use plinth_entities::{webhook, webhook_attempt, webhook_delivery};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::dispatcher::subscribed_events;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct WebhookResponse {
    /// The webhook's id.
    pub id: Uuid,
    /// The site whose events it receives.
    pub site_id: Uuid,
    /// Where deliveries are POSTed.
    pub url: String,
    /// `whsec_…`: verify signatures with it (Standard Webhooks).
    pub secret: String,
    /// Free text; empty when none.
    pub description: String,
    /// Subscribed event names; empty means every event.
    pub events: Vec<String>,
    /// Whether events are delivered to it.
    pub is_active: bool,
    /// 0 (each event sent at once) to 300: events within the window are sent as one batch.
    pub debounce_seconds: i32,
    /// When the webhook was created.
    pub created_at: DateTime<Utc>,
    /// When the webhook last changed.
    pub updated_at: DateTime<Utc>,
    /// Its endpoint's health on the instance that answers: the circuit
    /// breaker's state, the last error and the recent success rate (docs/operating.md,
    /// "Tenants"). Shown by `GET /webhooks/{id}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub circuit: Option<super::circuits::CircuitView>,
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
            circuit: None,
        }
    }
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
#[schema(example = json!({"url": "https://hooks.example.org/plinth", "events": ["blog.published", "blog.updated"]}))]
pub struct CreateWebhook {
    /// Where deliveries are POSTed: an absolute http or https URL (trimmed)
    /// with a host and without credentials. A host that is, or resolves to, a
    /// private, loopback, link-local or otherwise reserved address is refused
    /// (400 WEBHOOK_URL_SSRF) unless the operator allowlists its `host:port`;
    /// a host name that does not resolve is refused (422). No length limit.
    #[schema(pattern = "<http url>")]
    pub url: String,
    /// Free text; empty when omitted.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub description: String,
    /// Event names; omitted or empty subscribes to every event.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(schema_with = event_names)]
    pub events: Vec<String>,
    /// 0 (immediate, default) to 300: events within the window arrive as one
    /// batch. Outside 0..=300: 422 WEBHOOK_INVALID_DEBOUNCE.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(minimum = 0, maximum = 300)]
    pub debounce_seconds: i32,
    /// Whether events are delivered (default true).
    pub is_active: Option<bool>,
}

/// Every field optional; only given ones change.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateWebhook {
    /// As on create: an absolute http(s) URL with a host, without credentials,
    /// whose host is not and does not resolve to a private or reserved address
    /// (400 WEBHOOK_URL_SSRF) and does resolve (422).
    #[schema(pattern = "<http url>")]
    pub url: Option<String>,
    /// Free text.
    pub description: Option<String>,
    /// Event names; empty subscribes to every event.
    #[schema(schema_with = event_names)]
    pub events: Option<Vec<String>>,
    /// 0 to 300 (422 WEBHOOK_INVALID_DEBOUNCE otherwise).
    #[schema(minimum = 0, maximum = 300)]
    pub debounce_seconds: Option<i32>,
    /// Whether events are delivered.
    pub is_active: Option<bool>,
    /// `true` issues a new secret.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub rotate_secret: bool,
}

/// One attempt in the delivery log.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct DeliveryLogEntry {
    /// The attempt's id.
    pub id: Uuid,
    /// The delivery this attempt sent (its `webhook-id` header).
    pub delivery_id: Uuid,
    /// The event name (`batch` for a debounced batch).
    pub event: String,
    /// 1 for the first attempt of the delivery, then 2, 3, …
    pub attempt: i32,
    /// Whether the endpoint answered 2xx.
    pub success: bool,
    /// The endpoint's HTTP status; null when no answer came.
    pub status_code: Option<i32>,
    /// How long the attempt took, in milliseconds.
    pub duration_ms: i64,
    /// Why the attempt failed; null when it succeeded.
    pub error: Option<String>,
    /// The start of the endpoint's answer body; null when none was read.
    pub response_excerpt: Option<String>,
    /// When the attempt was made.
    pub created_at: DateTime<Utc>,
    /// The webhook it was sent for.
    pub webhook_id: Uuid,
    /// `event`, under the name the origin service's admin reads (as the next four).
    pub event_type: String,
    /// `attempt`.
    pub attempt_number: i32,
    /// `created_at`.
    pub delivered_at: DateTime<Utc>,
    /// `error`.
    pub error_message: Option<String>,
    /// `response_excerpt`.
    pub response_body: Option<String>,
    /// The body the attempt sent (each attempt of a delivery sends the same);
    /// null once the delivery is no longer kept.
    #[schema(value_type = Option<Object>)]
    pub payload: Option<serde_json::Value>,
}

impl DeliveryLogEntry {
    /// The attempt `m`, sent with `payload` (its delivery's stored body).
    pub fn of(m: &webhook_attempt::Model, payload: Option<&str>) -> Self {
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
            webhook_id: m.webhook_id,
            event_type: m.event.clone(),
            attempt_number: m.attempt,
            delivered_at: m.created_at,
            error_message: m.error.clone(),
            response_body: m.response_excerpt.clone(),
            payload: payload.and_then(|body| serde_json::from_str(body).ok()),
        }
    }
}

/// A delivery (all its attempts share its id as `webhook-id`).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct DeliveryResponse {
    /// The delivery's id, sent as `webhook-id` with every attempt.
    pub id: Uuid,
    /// The webhook it is for.
    pub webhook_id: Uuid,
    /// The event name (`batch` for a debounced batch).
    pub event: String,
    /// pending, success, failed (will retry) or dead
    pub status: plinth_entities::values::DeliveryStatus,
    /// How many attempts were made.
    pub attempts: i32,
    /// When the next attempt is due; null when none is.
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// The HTTP status of the last attempt's answer; null when none came.
    pub last_status_code: Option<i32>,
    /// Why the last attempt failed; null when it did not.
    pub last_error: Option<String>,
    /// When the delivery was created.
    pub created_at: DateTime<Utc>,
}

impl From<&webhook_delivery::Model> for DeliveryResponse {
    fn from(m: &webhook_delivery::Model) -> Self {
        Self {
            id: m.id,
            webhook_id: m.webhook_id,
            event: m.event.clone(),
            status: m.status,
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
    /// The test delivery's id.
    pub delivery_id: Uuid,
    /// Whether the endpoint answered 2xx.
    pub success: bool,
    /// The endpoint's HTTP status; null when no answer came.
    pub status_code: Option<u16>,
    /// How long the call took, in milliseconds.
    pub duration_ms: i64,
    /// Why the call failed; null when it succeeded.
    pub error: Option<String>,
    /// The delivery as the origin service's admin reads a test's answer (a
    /// `WebhookDelivery`): `delivery_id` again.
    pub id: Uuid,
    /// The webhook tested.
    pub webhook_id: Uuid,
    /// `webhook.test`.
    pub event_type: String,
    /// The body that was sent.
    #[schema(value_type = Object)]
    pub payload: serde_json::Value,
    /// The start of the endpoint's answer body; null when none was read.
    pub response_body: Option<String>,
    /// `error`.
    pub error_message: Option<String>,
    /// Always 1: a test is not retried.
    pub attempt_number: i32,
    /// When the attempt was made.
    pub delivered_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EventStats {
    /// The event name.
    pub event_type: String,
    /// Deliveries of this event in the window.
    pub total: u64,
    /// Of those, delivered.
    pub successful: u64,
    /// Of those, failed (retrying or given up).
    pub failed: u64,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct WebhookStats {
    /// The webhook.
    pub webhook_id: Uuid,
    /// The window asked for: `1h`, `24h`, `7d` or `30d`.
    pub window: String,
    /// Deliveries created in the window.
    pub total_deliveries: u64,
    /// Of those, delivered.
    pub successful: u64,
    /// Of those, failed (retrying or given up).
    pub failed: u64,
    /// Of those, still to be sent: pending or failed and retrying.
    pub pending_retry: u64,
    /// Percent of deliveries that succeeded.
    pub success_rate: f64,
    /// When the webhook's last attempt was made (at any time); null when never.
    pub last_delivery_at: Option<DateTime<Utc>>,
    /// The same counts by event name, alphabetically.
    pub by_event: Vec<EventStats>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StatsQuery {
    /// 1h, 24h (default), 7d or 30d; anything else is WEBHOOK_INVALID_STATS_WINDOW.
    #[param(schema_with = stats_windows)]
    pub window: Option<String>,
}

fn stats_windows() -> utoipa::openapi::Object {
    crate::values::one_of(
        "The period the figures cover: `1h`, `24h` (default), `7d` or `30d`",
        &["1h", "24h", "7d", "30d"],
    )
}

/// Arrays of the names webhooks are sent (`events::is_known`); `null` as when left out.
fn event_names() -> utoipa::openapi::schema::Array {
    use utoipa::openapi::schema::{ArrayBuilder, SchemaType};
    let names: Vec<String> = crate::events::EventName::delivered().map(|name| name.to_string()).collect();
    ArrayBuilder::new()
        .schema_type(SchemaType::from_iter([utoipa::openapi::Type::Array, utoipa::openapi::Type::Null]))
        .items(crate::values::one_of("A known event name", &names.iter().map(String::as_str).collect::<Vec<_>>()))
        .description(Some("Event names to subscribe to; an empty list subscribes to every event"))
        .build()
}
