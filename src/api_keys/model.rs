//! API key request and response bodies.

use chrono::{DateTime, Utc};
use plinth_entities::api_key;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::auth::KeyPermission;

/// An API key as listed: never its secret.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ApiKeyResponse {
    pub id: Uuid,
    /// The key's name.
    pub name: String,
    /// The first characters of the secret.
    pub key_prefix: String,
    /// `Read`, `Write`, `Admin` or `Master`.
    pub permission: String,
    /// The one site the key is scoped to; null for every site its permission reaches.
    pub site_id: Option<Uuid>,
    /// Requests allowed per second; null for not limited.
    pub rate_limit_per_second: Option<i32>,
    /// Per minute; null for not limited.
    pub rate_limit_per_minute: Option<i32>,
    /// Per hour; null for not limited.
    pub rate_limit_per_hour: Option<i32>,
    /// Per day; null for not limited.
    pub rate_limit_per_day: Option<i32>,
    /// `active` or `revoked`.
    pub status: String,
    pub created_at: DateTime<Utc>,
    /// When it was revoked; null while active.
    pub revoked_at: Option<DateTime<Utc>>,
    /// When it last authenticated a request; null when never.
    pub last_used_at: Option<DateTime<Utc>>,
    /// Requests it authenticated.
    pub usage_count: i64,
    /// `usage_count`, under the name the origin service's admin reads.
    pub total_requests: i64,
}

impl From<&api_key::Model> for ApiKeyResponse {
    fn from(m: &api_key::Model) -> Self {
        Self {
            id: m.id,
            name: m.name.clone(),
            key_prefix: m.key_prefix.clone(),
            permission: m.permission.clone(),
            site_id: m.site_id,
            rate_limit_per_second: m.rate_limit_per_second,
            rate_limit_per_minute: m.rate_limit_per_minute,
            rate_limit_per_hour: m.rate_limit_per_hour,
            rate_limit_per_day: m.rate_limit_per_day,
            status: if m.revoked_at.is_some() { "revoked" } else { "active" }.to_string(),
            created_at: m.created_at,
            revoked_at: m.revoked_at,
            last_used_at: m.last_used_at,
            usage_count: m.usage_count,
            total_requests: m.usage_count,
        }
    }
}

/// The created key with its secret, shown this once.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CreatedApiKey {
    #[serde(flatten)]
    pub api_key: ApiKeyResponse,
    /// The secret to send as `X-API-Key`. It cannot be shown again.
    pub key: String,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateApiKey {
    /// One line of 1 to 200 characters.
    #[schema(min_length = 1, max_length = 200, pattern = "<line>")]
    pub name: String,
    /// `Read`, `Write`, `Admin` or `Master` (any case).
    /// `Read` when omitted.
    #[serde(default = "read_permission")]
    #[schema(schema_with = key_permissions)]
    pub permission: String,
    /// Restricts the key to one site. Master keys are never scoped.
    pub site_id: Option<Uuid>,
    /// Requests allowed per second, at least 1; omitted = not limited.
    #[schema(minimum = 1)]
    pub rate_limit_per_second: Option<i32>,
    /// Per minute, at least 1; omitted = not limited.
    #[schema(minimum = 1)]
    pub rate_limit_per_minute: Option<i32>,
    /// Per hour, at least 1; omitted = not limited.
    #[schema(minimum = 1)]
    pub rate_limit_per_hour: Option<i32>,
    /// Per day, at least 1; omitted = not limited.
    #[schema(minimum = 1)]
    pub rate_limit_per_day: Option<i32>,
}

fn read_permission() -> String {
    KeyPermission::Read.as_str().to_string()
}

#[derive(Clone, Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListApiKeysQuery {
    /// Only keys scoped to this site. Required for callers who administer single sites.
    pub site_id: Option<Uuid>,
    /// `active` (default), `revoked` or `all`; anything else is API_KEY_INVALID_STATUS.
    #[param(schema_with = key_statuses)]
    pub status: Option<String>,
    #[param(schema_with = crate::pagination::page_number_schema)]
    pub page: Option<u64>,
    /// Items per page (default 10, at most 100). Also accepted as `page_size`.
    #[serde(alias = "page_size")]
    #[param(schema_with = crate::pagination::per_page_schema)]
    pub per_page: Option<u32>,
}

fn key_statuses() -> utoipa::openapi::Object {
    crate::values::one_of("Which keys: `active` (default), `revoked` or `all`", &["active", "revoked", "all"])
}

fn key_permissions() -> utoipa::openapi::Object {
    crate::values::one_of(
        "What the key may do: `Read` (default), `Write`, `Admin` or `Master` (any letter case)",
        &KeyPermission::ALL.map(KeyPermission::as_str),
    )
}
