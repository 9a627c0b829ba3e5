//! The account's request and response bodies: the profile and export, and the
//! three per-user records (preferences, help state, onboarding).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::api_keys::ApiKeyResponse;
use crate::members::Membership;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Profile {
    /// The identity-provider user id, or the API key's id.
    pub id: String,
    /// `jwt` or `api_key`.
    pub auth_method: String,
    pub email: Option<String>,
    /// The user's name, or the key's name.
    pub name: Option<String>,
    pub avatar_url: Option<String>,
    /// When the identity provider signed the user in (token `iat`); null for keys.
    pub signed_in_at: Option<DateTime<Utc>>,
    /// When the current token expires; null for keys.
    pub session_expires_at: Option<DateTime<Utc>>,
    /// Keys: when the key was created.
    pub created_at: Option<DateTime<Utc>>,
    /// Keys: the last request made with the key.
    pub last_used_at: Option<DateTime<Utc>>,
}

/// One thing the caller did.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ActivityEntry {
    pub id: Uuid,
    pub site_id: Option<Uuid>,
    pub action: String,
    pub entity_type: String,
    pub entity_id: String,
    pub created_at: DateTime<Utc>,
}

/// The field-level changes the caller made to one entity at one time.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ChangeRecord {
    pub site_id: Option<Uuid>,
    pub entity_type: String,
    pub entity_id: String,
    pub action: String,
    /// `[{field, old, new}]`.
    #[schema(value_type = Vec<Object>)]
    pub changes: Value,
    pub changed_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AccountExport {
    pub exported_at: DateTime<Utc>,
    pub profile: Profile,
    /// Sites the user belongs to; empty for keys.
    pub memberships: Vec<Membership>,
    /// Keys the caller created (and, for a key, the key itself). Secrets are never included.
    pub api_keys: Vec<ApiKeyResponse>,
    /// Every audited action of the caller, oldest first.
    pub audit_logs: Vec<ActivityEntry>,
    /// The actions that changed fields, with old and new values, oldest first.
    pub change_history: Vec<ChangeRecord>,
    /// Users only.
    pub preferences: Option<Preferences>,
    pub help_state: Option<HelpState>,
    pub onboarding: Option<Onboarding>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Preferences {
    pub autosave_enabled: bool,
    pub autosave_debounce_seconds: i64,
    pub language: String,
    pub theme_id: String,
    pub page_size: i64,
}

impl Default for Preferences {
    fn default() -> Self {
        Self {
            autosave_enabled: true,
            autosave_debounce_seconds: 3,
            language: "en".into(),
            theme_id: "default".into(),
            page_size: 10,
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdatePreferences {
    pub autosave_enabled: Option<bool>,
    /// 1 to 60.
    pub autosave_debounce_seconds: Option<i64>,
    pub language: Option<String>,
    pub theme_id: Option<String>,
    /// 1 to 100.
    pub page_size: Option<i64>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct HelpState {
    pub tour_completed: bool,
    pub hotspots_seen: Vec<String>,
    pub field_help_seen: Vec<String>,
}

/// Each given field records one more thing seen.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateHelpState {
    pub dismiss_hotspot: Option<String>,
    pub dismiss_field_help: Option<String>,
    /// `true` marks the tour as done.
    pub complete_tour: Option<bool>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum UserType {
    Solo,
    Team,
    Agency,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Intent {
    Blog,
    Portfolio,
    Marketing,
    Docs,
    Company,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Onboarding {
    pub completed: bool,
    pub user_type: Option<UserType>,
    pub intents: Vec<Intent>,
    pub completed_at: Option<DateTime<Utc>>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CompleteOnboarding {
    pub user_type: UserType,
    pub intents: Vec<Intent>,
}
