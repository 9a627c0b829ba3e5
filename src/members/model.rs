//! The request and response shapes of site members.

use chrono::{DateTime, Utc};
use plinth_entities::site_member;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::Role;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MemberResponse {
    pub id: Uuid,
    pub site_id: Uuid,
    pub idp_user_id: String,
    /// read, author, reviewer, editor, admin or owner
    pub role: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&site_member::Model> for MemberResponse {
    fn from(m: &site_member::Model) -> Self {
        Self {
            id: m.id,
            site_id: m.site_id,
            idp_user_id: m.idp_user_id.clone(),
            role: m.role.clone(),
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

/// One site the caller belongs to.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Membership {
    pub site_id: Uuid,
    pub site_name: String,
    pub site_slug: String,
    pub role: String,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct AddMember {
    pub idp_user_id: String,
    /// read, author, reviewer, editor or admin (any letter case; `viewer` means read); a site has one owner, made
    /// by transfer-ownership.
    #[schema(schema_with = member_roles)]
    pub role: Role,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct UpdateMember {
    /// read, author, reviewer, editor or admin (any letter case; `viewer` means read); a site has one owner, made
    /// by transfer-ownership.
    #[schema(schema_with = member_roles)]
    pub role: Role,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct TransferOwnership {
    /// A member of the site who becomes its owner; the current owner becomes an admin.
    #[serde(alias = "new_owner_idp_user_id")]
    pub idp_user_id: String,
}

/// Every role but owner.
fn member_roles() -> utoipa::openapi::Object {
    let roles: Vec<&str> = Role::ALL.iter().filter(|r| **r != Role::Owner).map(|r| r.as_str()).collect();
    crate::values::one_of(&roles)
}
