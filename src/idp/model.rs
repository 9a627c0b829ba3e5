//! Identity-provider user bodies.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::moderation::ModerationStatus;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct IdpUser {
    pub id: String,
    pub email: Option<String>,
    pub name: Option<String>,
    pub image_url: Option<String>,
    pub role: Option<String>,
    /// Epoch seconds.
    pub created_at: i64,
    pub updated_at: i64,
    pub last_sign_in_at: Option<i64>,
    /// `active`, `suspended` or `banned`.
    pub moderation_status: ModerationStatus,
    pub moderation_reason: Option<String>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct IdpUserList {
    pub data: Vec<IdpUser>,
    pub total_count: u64,
}

#[derive(Clone, Debug, Deserialize, IntoParams)]
pub struct ListQuery {
    /// 1 to 100, default 20.
    pub limit: Option<u64>,
    pub offset: Option<u64>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct SetRole {
    /// One of read, author, reviewer, editor, admin, owner (any letter case; `viewer` means read).
    #[schema(schema_with = role_names)]
    pub role: String,
}

fn role_names() -> utoipa::openapi::Object {
    crate::values::one_of(&crate::auth::Role::ALL.map(crate::auth::Role::as_str))
}
