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
    /// The permission the caller acts with, as `GET /auth/me` answers it: a
    /// key's own (`Master`, `Admin`, `Write`, `Read`); a user's `Master` when a
    /// system administrator, else `Read`.
    pub permission: String,
    /// A key's role on its sites, from its permission (`read`, `editor`,
    /// `admin`, `owner`); a user's `system_admin` or `user` (their role on each
    /// site is their membership's, `GET /auth/me`).
    pub role: String,
    /// The user's e-mail address; null for keys.
    pub email: Option<String>,
    /// The user's name, or the key's name.
    pub name: Option<String>,
    /// The user's avatar; null for keys.
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
    /// The site of the item; null for items of no site.
    pub site_id: Option<Uuid>,
    /// What was done (`create`, `update`, …).
    pub action: String,
    /// The type of the item.
    pub entity_type: String,
    /// The id of the item.
    pub entity_id: String,
    /// When.
    pub created_at: DateTime<Utc>,
}

/// The field-level changes the caller made to one entity at one time.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ChangeRecord {
    /// The site of the item; null for items of no site.
    pub site_id: Option<Uuid>,
    /// The type of the item (`blog`, `site`, …).
    pub entity_type: String,
    /// The id of the item.
    pub entity_id: String,
    /// What was done (`create`, `update`, …).
    pub action: String,
    /// `[{field, old, new}]`.
    #[schema(value_type = Vec<Object>)]
    pub changes: Value,
    /// When.
    pub changed_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AccountExport {
    /// When the export was made.
    pub exported_at: DateTime<Utc>,
    /// Who the caller is.
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
    /// Users only.
    pub help_state: Option<HelpState>,
    /// Users only.
    pub onboarding: Option<Onboarding>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Preferences {
    /// Whether the editor saves drafts on its own.
    pub autosave_enabled: bool,
    /// Seconds of quiet before an autosave, 1 to 60.
    pub autosave_debounce_seconds: i64,
    /// The interface language, a tag such as `en` or `pt-BR`.
    pub language: String,
    /// The interface theme.
    pub theme_id: String,
    /// Items per page in the interface, 1 to 100.
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
    /// Whether the editor saves drafts on its own.
    pub autosave_enabled: Option<bool>,
    /// 1 to 60.
    #[schema(minimum = 1, maximum = 60)]
    pub autosave_debounce_seconds: Option<i64>,
    /// A language tag such as `en` or `pt-BR`: 2 to 12 ASCII letters, digits and hyphens.
    #[schema(pattern = "^[A-Za-z0-9-]{2,12}$")]
    pub language: Option<String>,
    /// 1 to 64 characters, not blank.
    #[schema(min_length = 1, max_length = 64)]
    pub theme_id: Option<String>,
    /// 1 to 100.
    #[schema(minimum = 1, maximum = 100)]
    pub page_size: Option<i64>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct HelpState {
    /// Whether the tour was completed.
    pub tour_completed: bool,
    /// Keys of the hotspots dismissed.
    pub hotspots_seen: Vec<String>,
    /// Keys of the field help dismissed.
    pub field_help_seen: Vec<String>,
}

/// Each given field records one more thing seen.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateHelpState {
    /// A hotspot key to record as dismissed (trimmed; blank is ignored).
    pub dismiss_hotspot: Option<String>,
    /// A field-help key to record as dismissed (trimmed; blank is ignored).
    pub dismiss_field_help: Option<String>,
    /// `true` marks the tour as done.
    pub complete_tour: Option<bool>,
    /// The tour's state as the origin service's admin sends it: `true` done,
    /// `false` not done (to take it again).
    pub tour_completed: Option<bool>,
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
    /// Whether the user finished onboarding.
    pub completed: bool,
    /// What the user said they are; null before.
    pub user_type: Option<UserType>,
    /// What the user said they want to do.
    pub intents: Vec<Intent>,
    /// When onboarding was finished; null before.
    pub completed_at: Option<DateTime<Utc>>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CompleteOnboarding {
    /// What the user is.
    pub user_type: UserType,
    /// What the user wants to do.
    pub intents: Vec<Intent>,
}
