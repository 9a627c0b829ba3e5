//! API key request and response bodies.

use chrono::{DateTime, Utc};
use plinth_entities::api_key;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::auth::KeyPermission;

/// What a key can do now: `Active`; `Blocked` (until unblocked); `Expired`
/// (its `expires_at` has passed); `Revoked` (for good). The first that holds of
/// revoked, blocked, expired. Spelled as the origin service's admin compares
/// them (`status === 'Active'`), like the permissions beside them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyStatus {
    Active,
    Blocked,
    Expired,
    Revoked,
}

impl KeyStatus {
    pub const ALL: [KeyStatus; 4] = [KeyStatus::Active, KeyStatus::Blocked, KeyStatus::Expired, KeyStatus::Revoked];

    pub fn as_str(self) -> &'static str {
        match self {
            KeyStatus::Active => "Active",
            KeyStatus::Blocked => "Blocked",
            KeyStatus::Expired => "Expired",
            KeyStatus::Revoked => "Revoked",
        }
    }

    /// Any letter case (`active` as well as `Active`).
    pub fn parse(raw: &str) -> Option<KeyStatus> {
        Self::ALL.into_iter().find(|s| s.as_str().eq_ignore_ascii_case(raw))
    }

    pub fn of(key: &api_key::Model, now: DateTime<Utc>) -> KeyStatus {
        if key.revoked_at.is_some() {
            KeyStatus::Revoked
        } else if key.blocked_at.is_some() {
            KeyStatus::Blocked
        } else if key.expires_at.is_some_and(|at| at <= now) {
            KeyStatus::Expired
        } else {
            KeyStatus::Active
        }
    }
}

/// An API key as listed: never its secret.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ApiKeyResponse {
    pub id: Uuid,
    /// The key's name.
    pub name: String,
    /// What it is for; null when not given.
    pub description: Option<String>,
    /// The first characters of the secret.
    pub key_prefix: String,
    /// `Read`, `Write`, `Admin` or `Master`.
    pub permission: String,
    /// The one site the key is scoped to; null for every site its permission reaches.
    pub site_id: Option<Uuid>,
    /// The identity-provider user who created it; null when a key or the command line did.
    pub user_id: Option<String>,
    /// Requests allowed per second; null for not limited.
    pub rate_limit_per_second: Option<i32>,
    /// Per minute; null for not limited.
    pub rate_limit_per_minute: Option<i32>,
    /// Per hour; null for not limited.
    pub rate_limit_per_hour: Option<i32>,
    /// Per day; null for not limited.
    pub rate_limit_per_day: Option<i32>,
    /// `Active`, `Blocked`, `Expired` or `Revoked`: only an active key authenticates.
    #[schema(schema_with = key_status_values)]
    pub status: String,
    pub created_at: DateTime<Utc>,
    /// When its settings last changed (its creation when never).
    pub updated_at: DateTime<Utc>,
    /// When it stops authenticating; null for never.
    pub expires_at: Option<DateTime<Utc>>,
    /// When it was blocked; null unless blocked.
    pub blocked_at: Option<DateTime<Utc>>,
    /// Why it was blocked; null unless blocked.
    pub blocked_reason: Option<String>,
    /// When it was revoked; null while not revoked.
    pub revoked_at: Option<DateTime<Utc>>,
    /// When it last authenticated a request; null when never.
    pub last_used_at: Option<DateTime<Utc>>,
    /// Requests it authenticated.
    pub usage_count: i64,
    /// `usage_count`, under the name the origin service's admin reads.
    pub total_requests: i64,
}

impl ApiKeyResponse {
    /// `key` as it stands at `now` (its status depends on the time).
    pub fn at(m: &api_key::Model, now: DateTime<Utc>) -> Self {
        Self {
            id: m.id,
            name: m.name.clone(),
            description: m.description.clone(),
            key_prefix: m.key_prefix.clone(),
            permission: m.permission.as_str().to_string(),
            site_id: m.site_id,
            user_id: m.created_by.as_deref().and_then(|by| by.strip_prefix("user:")).map(str::to_string),
            rate_limit_per_second: m.rate_limit_per_second,
            rate_limit_per_minute: m.rate_limit_per_minute,
            rate_limit_per_hour: m.rate_limit_per_hour,
            rate_limit_per_day: m.rate_limit_per_day,
            status: KeyStatus::of(m, now).as_str().to_string(),
            created_at: m.created_at,
            updated_at: m.updated_at.unwrap_or(m.created_at),
            expires_at: m.expires_at,
            blocked_at: m.blocked_at,
            blocked_reason: m.blocked_reason.clone(),
            revoked_at: m.revoked_at,
            last_used_at: m.last_used_at,
            usage_count: m.usage_count,
            total_requests: m.usage_count,
        }
    }
}

fn key_status_values() -> utoipa::openapi::Object {
    crate::values::one_of(
        "What the key can do now: only `Active` authenticates",
        &KeyStatus::ALL.map(KeyStatus::as_str),
    )
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
#[schema(example = json!({"name": "front end", "permission": "Read", "site_id": "3f2b8c1e-6a4d-4e8f-9b2a-1c5d7e9f0a12"}))]
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
    /// What the key is for: at most 1,000 characters; empty or omitted = none.
    #[schema(max_length = 1000, pattern = "<text>")]
    pub description: Option<String>,
    /// When the key stops authenticating (it is then `expired`); must lie in the future. Omitted = never.
    pub expires_at: Option<DateTime<Utc>>,
}

/// A change to a key's settings: what is omitted stays; `null` clears a
/// description, a rate limit (not limited) or an expiry (never). The secret,
/// the site and the status never change here (see block, unblock, revoke).
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateApiKey {
    /// One line of 1 to 200 characters.
    #[schema(min_length = 1, max_length = 200, pattern = "<line>")]
    pub name: Option<String>,
    /// At most 1,000 characters; empty or `null` clears it.
    #[serde(default, deserialize_with = "crate::values::double_option")]
    #[schema(value_type = Option<String>, max_length = 1000, pattern = "<text>")]
    pub description: Option<Option<String>>,
    /// `Read`, `Write`, `Admin` or `Master` (any case), up to what the caller may grant.
    #[schema(schema_with = key_permissions)]
    pub permission: Option<String>,
    /// Accepted when it names the key's own site (clients send the whole key back); another site is
    /// VALIDATION_INVALID_FORMAT.
    pub site_id: Option<Uuid>,
    /// At least 1; `null` = not limited.
    #[serde(default, deserialize_with = "crate::values::double_option")]
    #[schema(value_type = Option<i32>, minimum = 1)]
    pub rate_limit_per_second: Option<Option<i32>>,
    /// At least 1; `null` = not limited.
    #[serde(default, deserialize_with = "crate::values::double_option")]
    #[schema(value_type = Option<i32>, minimum = 1)]
    pub rate_limit_per_minute: Option<Option<i32>>,
    /// At least 1; `null` = not limited.
    #[serde(default, deserialize_with = "crate::values::double_option")]
    #[schema(value_type = Option<i32>, minimum = 1)]
    pub rate_limit_per_hour: Option<Option<i32>>,
    /// At least 1; `null` = not limited.
    #[serde(default, deserialize_with = "crate::values::double_option")]
    #[schema(value_type = Option<i32>, minimum = 1)]
    pub rate_limit_per_day: Option<Option<i32>>,
    /// A moment in the future; `null` = never expires.
    #[serde(default, deserialize_with = "crate::values::double_option")]
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub expires_at: Option<Option<DateTime<Utc>>>,
}

/// Why a key is blocked (shown to its administrators, never to its caller).
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct BlockApiKey {
    /// One line of at most 500 characters; omitted or empty = no reason given.
    #[schema(max_length = 500, pattern = "<line>")]
    pub reason: Option<String>,
}

fn read_permission() -> String {
    KeyPermission::Read.as_str().to_string()
}

#[derive(Clone, Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListApiKeysQuery {
    /// Only keys scoped to this site. Required for callers who administer single sites.
    pub site_id: Option<Uuid>,
    /// `Active` (default), `Blocked`, `Expired`, `Revoked` or `all` (any letter case); anything else is
    /// API_KEY_INVALID_STATUS.
    #[param(schema_with = key_statuses)]
    pub status: Option<String>,
    /// Only keys with this permission: `Read`, `Write`, `Admin` or `Master` (any letter case); anything else is
    /// API_KEY_INVALID_PERMISSION.
    #[param(schema_with = key_permissions)]
    pub permission: Option<String>,
    #[param(schema_with = crate::pagination::page_number_schema)]
    pub page: Option<u64>,
    /// Items per page (default 10, at most 100). Also accepted as `page_size`.
    #[serde(alias = "page_size")]
    #[param(schema_with = crate::pagination::per_page_schema)]
    pub per_page: Option<u32>,
}

fn key_statuses() -> utoipa::openapi::Object {
    crate::values::one_of(
        "Which keys: `Active` (default), `Blocked`, `Expired`, `Revoked` or `all` (any letter case)",
        &["Active", "Blocked", "Expired", "Revoked", "all"],
    )
}

fn key_permissions() -> utoipa::openapi::Object {
    crate::values::one_of(
        "What the key may do: `Read` (default), `Write`, `Admin` or `Master` (any letter case)",
        &KeyPermission::ALL.map(KeyPermission::as_str),
    )
}

/// The windows a key's own rate limits count in. Each is a column of the
/// key and a field of its bodies (`rate_limit_per_{window}`); updates pair a
/// value with its window, never with a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitWindow {
    Second,
    Minute,
    Hour,
    Day,
}

impl LimitWindow {
    pub const ALL: [LimitWindow; 4] = [Self::Second, Self::Minute, Self::Hour, Self::Day];

    /// The body field and column name.
    pub fn field(self) -> &'static str {
        match self {
            Self::Second => "rate_limit_per_second",
            Self::Minute => "rate_limit_per_minute",
            Self::Hour => "rate_limit_per_hour",
            Self::Day => "rate_limit_per_day",
        }
    }

    pub fn column(self) -> api_key::Column {
        match self {
            Self::Second => api_key::Column::RateLimitPerSecond,
            Self::Minute => api_key::Column::RateLimitPerMinute,
            Self::Hour => api_key::Column::RateLimitPerHour,
            Self::Day => api_key::Column::RateLimitPerDay,
        }
    }
}

impl CreateApiKey {
    /// The limit given for `window`.
    pub fn limit(&self, window: LimitWindow) -> Option<i32> {
        match window {
            LimitWindow::Second => self.rate_limit_per_second,
            LimitWindow::Minute => self.rate_limit_per_minute,
            LimitWindow::Hour => self.rate_limit_per_hour,
            LimitWindow::Day => self.rate_limit_per_day,
        }
    }
}

impl UpdateApiKey {
    /// What the body says of `window`: not given, `null` (not limited) or a limit.
    pub fn limit(&self, window: LimitWindow) -> Option<Option<i32>> {
        match window {
            LimitWindow::Second => self.rate_limit_per_second,
            LimitWindow::Minute => self.rate_limit_per_minute,
            LimitWindow::Hour => self.rate_limit_per_hour,
            LimitWindow::Day => self.rate_limit_per_day,
        }
    }
}
