//! The caller's own account: `GET /auth/me`, profile, export, deletion, preferences,
//! help state, onboarding.

mod deletion;
mod export;
mod model;
mod service;
mod settings;

pub(crate) use deletion::*;
pub(crate) use export::*;
pub(crate) use service::remove_user_data;
pub(crate) use settings::*;

use actix_web::web::{self};
use actix_web::HttpResponse;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::{Credential, Principal};
use crate::error::ApiResult;
use crate::members::{memberships_of, Membership};
use crate::permissions::KeyPermission;
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [me, delete_account, get_profile, export_account, get_preferences, update_preferences,
        get_help_state, update_help_state, patch_help_state, reset_help_state, reset_help_state_by_post, get_onboarding,
        complete_onboarding, put_onboarding]);
}

/// Who the caller is. The last three fields are null for API keys.
#[derive(Serialize, ToSchema)]
pub struct AuthInfo {
    /// The key's permission (`Read`, `Write`, `Admin`, `Master`). For a user
    /// signed in through the identity provider: `Master` for a system admin
    /// (who may do everything a Master key may), otherwise `Read`, the
    /// baseline every user has; what a user may do on a site is their role in
    /// `memberships`, since one permission cannot say it for every site. The
    /// origin service answers `Read` for every user, so its admin UI reads a
    /// user's rights from `is_system_admin` and `memberships` either way.
    #[schema(example = "Write")]
    pub permission: String,
    /// The key's site scope.
    pub site_id: Option<Uuid>,
    /// `api_key` or `jwt`.
    pub auth_method: String,
    /// The user's identity-provider id; null for keys.
    pub idp_user_id: Option<String>,
    /// The user's sites and roles; null for keys.
    pub memberships: Option<Vec<Membership>>,
    /// Whether the user is a system admin; null for keys.
    pub is_system_admin: Option<bool>,
}

/// The permission a caller acts with: a key's own; a user's is Master for a
/// system administrator and Read otherwise (what a user may do on a site is
/// the role of their membership there).
fn permission_of(principal: &Principal) -> KeyPermission {
    match &principal.credential {
        Credential::ApiKey(key) => key.permission,
        Credential::User(_) if principal.is_system_admin() => KeyPermission::Master,
        Credential::User(_) => KeyPermission::Read,
    }
}

/// Describe the caller's credentials
///
/// Any authenticated caller: the authentication method, the key's permission or the user's memberships.
#[utoipa::path(get, path = "/auth/me", tag = "Account",
    responses((status = 200, body = AuthInfo)))]
pub async fn me(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let permission = permission_of(&principal).as_str().to_string();
    let info = match &principal.credential {
        Credential::ApiKey(key) => AuthInfo {
            permission,
            site_id: key.site_id,
            auth_method: "api_key".into(),
            idp_user_id: None,
            memberships: None,
            is_system_admin: None,
        },
        Credential::User(user) => {
            let memberships = memberships_of(&state, &user.idp_user_id).await?;
            AuthInfo {
                permission,
                site_id: None,
                auth_method: "jwt".into(),
                idp_user_id: Some(user.idp_user_id.clone()),
                memberships: Some(memberships),
                is_system_admin: Some(principal.is_system_admin()),
            }
        }
    };
    Ok(HttpResponse::Ok().json(info))
}
