//! Identity-provider user bodies.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::moderation::ModerationStatus;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct IdpUser {
    /// The provider's user id.
    pub id: String,
    /// The primary e-mail address; null when none.
    pub email: Option<String>,
    /// Display name; null when none.
    pub name: Option<String>,
    /// Avatar URL; null when none.
    pub image_url: Option<String>,
    /// The role in the provider's metadata; null when none.
    pub role: Option<String>,
    /// Epoch seconds.
    pub created_at: i64,
    /// Epoch seconds.
    pub updated_at: i64,
    /// Epoch seconds; null when never.
    pub last_sign_in_at: Option<i64>,
    /// `active`, `suspended` or `banned`.
    pub moderation_status: ModerationStatus,
    /// Why the user was suspended or banned; null when active.
    pub moderation_reason: Option<String>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct IdpUserList {
    /// This page's users.
    pub data: Vec<IdpUser>,
    /// Users the provider has in all.
    pub total_count: u64,
}

#[derive(Clone, Debug, Deserialize, IntoParams)]
pub struct ListQuery {
    /// 1 to 100, default 20.
    pub limit: Option<u64>,
    /// How many users to skip (default 0).
    pub offset: Option<u64>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct SetRole {
    /// One of read, author, reviewer, editor, admin, owner (any letter case; `viewer` means read).
    #[schema(schema_with = role_names)]
    pub role: String,
}

fn role_names() -> utoipa::openapi::Object {
    crate::values::one_of(
        "The user's role (any letter case; `viewer` means read)",
        &crate::auth::Role::ALL.map(crate::auth::Role::as_str),
    )
}
