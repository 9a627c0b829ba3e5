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
    /// The site.
    pub site_id: Uuid,
    /// The member's identity-provider user id.
    pub idp_user_id: String,
    /// read, author, reviewer, editor, admin or owner
    pub role: Role,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&site_member::Model> for MemberResponse {
    fn from(m: &site_member::Model) -> Self {
        Self {
            id: m.id,
            site_id: m.site_id,
            idp_user_id: m.idp_user_id.clone(),
            role: m.role,
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

/// A member as the site's member list shows it: the membership and what the
/// identity provider says of the user (the origin admin's member screen).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ListedMember {
    #[serde(flatten)]
    pub member: MemberResponse,
    /// The user's name at the identity provider; null when it has none, no
    /// provider API is configured, or the provider did not answer in time.
    pub name: Option<String>,
    /// The user's primary email address there; null as `name`.
    pub email: Option<String>,
    /// The user's picture there; null as `name`.
    pub image_url: Option<String>,
}

/// One site the caller belongs to.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Membership {
    /// The site.
    pub site_id: Uuid,
    /// Its name.
    pub site_name: String,
    /// Its slug.
    pub site_slug: String,
    /// The caller's role there: read, author, reviewer, editor, admin or owner.
    pub role: Role,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct AddMember {
    /// The identity-provider user id of the new member: one line of 1 to 200 characters (trimmed).
    #[schema(min_length = 1, max_length = 200, pattern = "<line>")]
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
    /// Also accepted as `new_owner_idp_user_id`, and as `new_owner_clerk_user_id` (the origin admin's name).
    #[serde(alias = "new_owner_idp_user_id", alias = "new_owner_clerk_user_id")]
    pub idp_user_id: String,
}

/// Every role but owner.
fn member_roles() -> utoipa::openapi::Object {
    let roles: Vec<&str> = Role::ALL.iter().filter(|r| **r != Role::Owner).map(|r| r.as_str()).collect();
    crate::values::one_of(
        "The member's role on the site (any letter case; `viewer` means read); a site's one owner is made by transfer-ownership",
        &roles,
    )
}
