//! Moderation states and the request and response shapes of the moderation
//! endpoints.

use chrono::{DateTime, Utc};
use plinth_entities::user_moderation;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub use plinth_entities::values::ModerationStatus;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct ModerationResult {
    /// The user.
    pub idp_user_id: String,
    /// The user's moderation status now.
    pub status: ModerationStatus,
    /// Why; null when active.
    pub reason: Option<String>,
    /// When a suspension ends; null for none.
    pub expires_at: Option<DateTime<Utc>>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct SuspendUser {
    /// Why: 1 to 2000 characters, not only whitespace (trimmed).
    #[schema(min_length = 1, max_length = 2000, pattern = r"\S")]
    pub reason: String,
    /// 1 to 8784 (a year).
    #[schema(minimum = 1, maximum = 8784)]
    pub duration_hours: i64,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct BanUser {
    /// Why: 1 to 2000 characters, not only whitespace (trimmed).
    #[schema(min_length = 1, max_length = 2000, pattern = r"\S")]
    pub reason: String,
}

/// The moderation state in effect at `now`: an expired suspension is active.
pub(crate) fn effective(row: Option<&user_moderation::Model>, now: DateTime<Utc>) -> ModerationStatus {
    match row {
        None => ModerationStatus::Active,
        Some(r) => match r.status {
            ModerationStatus::Suspended if r.expires_at.is_some_and(|at| at <= now) => ModerationStatus::Active,
            status => status,
        },
    }
}
