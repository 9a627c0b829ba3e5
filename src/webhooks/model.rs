//! The request and response shapes of webhooks, their deliveries and stats.

use chrono::{DateTime, Utc};
use plinth_entities::{webhook, webhook_attempt, webhook_delivery};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::dispatcher::subscribed_events;

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
    #[schema(schema_with = event_names)]
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
    /// Event names; empty subscribes to every event.
    #[schema(schema_with = event_names)]
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
    /// 1h, 24h (default), 7d or 30d; anything else is WEBHOOK_INVALID_STATS_WINDOW.
    #[param(schema_with = stats_windows)]
    pub window: Option<String>,
}

fn stats_windows() -> utoipa::openapi::Object {
    crate::values::one_of(&["1h", "24h", "7d", "30d"])
}

/// Arrays of known event names (`events::is_known`); `null` as when left out.
fn event_names() -> utoipa::openapi::schema::Array {
    use utoipa::openapi::schema::{ArrayBuilder, SchemaType};
    let names: Vec<&str> =
        super::events::EVENT_NAMES.iter().copied().chain([super::events::FORM_SUBMISSION_CREATED]).collect();
    ArrayBuilder::new()
        .schema_type(SchemaType::from_iter([utoipa::openapi::Type::Array, utoipa::openapi::Type::Null]))
        .items(crate::values::one_of(&names))
        .build()
}
