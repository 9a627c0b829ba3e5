//! `GET /auth/profile` and `GET /auth/export`: who the caller is, and everything
//! Plinth holds about them in one JSON document (data portability).
//!
//! Plinth keeps no user table of its own: a user's name, email and avatar come
//! from the identity provider's token, so the profile reflects the current
//! sign-in. For an API key the profile describes the key.

use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use plinth_entities::{api_key, audit_log, user_setting};
use sea_orm::{ColumnTrait, Condition, EntityTrait, QueryFilter, QueryOrder};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use super::settings::{decode, HelpState, Onboarding, Preferences, Record};
use crate::api_keys::ApiKeyResponse;
use crate::auth::{Credential, Principal};
use crate::error::ApiResult;
use crate::members::{memberships_of, Membership};
use crate::state::AppState;

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

async fn profile(state: &AppState, principal: &Principal) -> ApiResult<(Profile, Option<api_key::Model>)> {
    Ok(match &principal.credential {
        Credential::User(user) => (
            Profile {
                id: user.idp_user_id.clone(),
                auth_method: "jwt".into(),
                email: user.email.clone(),
                name: user.name.clone(),
                avatar_url: user.picture.clone(),
                signed_in_at: user.signed_in_at,
                session_expires_at: user.session_expires_at,
                created_at: None,
                last_used_at: None,
            },
            None,
        ),
        Credential::ApiKey(key) => {
            let row = api_key::Entity::find_by_id(key.id).one(&state.db).await?;
            let profile = Profile {
                id: key.id.to_string(),
                auth_method: "api_key".into(),
                email: None,
                name: Some(key.name.clone()),
                avatar_url: None,
                signed_in_at: None,
                session_expires_at: None,
                created_at: row.as_ref().map(|r| r.created_at),
                last_used_at: row.as_ref().and_then(|r| r.last_used_at),
            };
            (profile, row)
        }
    })
}

#[utoipa::path(get, path = "/auth/profile", tag = "Account",
    responses((status = 200, body = Profile)))]
pub async fn get_profile(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(profile(&state, &principal).await?.0))
}

#[utoipa::path(
    get,
    path = "/auth/export",
    tag = "Account",
    responses(
        (status = 200, body = AccountExport, description = "Served as a download (Content-Disposition: attachment)")
    )
)]
pub async fn export_account(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let actor = principal.actor_id();
    let (profile, own_key) = profile(&state, &principal).await?;
    let mut keys_filter = Condition::any().add(api_key::Column::CreatedBy.eq(actor.as_str()));
    if let Some(key) = &own_key {
        keys_filter = keys_filter.add(api_key::Column::Id.eq(key.id));
    }
    let api_keys = api_key::Entity::find()
        .filter(keys_filter)
        .order_by_asc(api_key::Column::CreatedAt)
        .all(&state.db)
        .await?
        .iter()
        .map(ApiKeyResponse::from)
        .collect();
    let entries = audit_log::Entity::find()
        .filter(audit_log::Column::Actor.eq(actor.as_str()))
        .order_by_asc(audit_log::Column::CreatedAt)
        .order_by_asc(audit_log::Column::Id)
        .all(&state.db)
        .await?;
    let change_history = entries
        .iter()
        .filter(|e| e.changes.as_array().is_some_and(|c| !c.is_empty()))
        .map(|e| ChangeRecord {
            site_id: e.site_id,
            entity_type: e.entity_type.clone(),
            entity_id: e.entity_id.clone(),
            action: e.action.clone(),
            changes: e.changes.clone(),
            changed_at: e.created_at,
        })
        .collect();
    let audit_logs = entries
        .into_iter()
        .map(|e| ActivityEntry {
            id: e.id,
            site_id: e.site_id,
            action: e.action,
            entity_type: e.entity_type,
            entity_id: e.entity_id,
            created_at: e.created_at,
        })
        .collect();
    let (memberships, preferences, help_state, onboarding) = match principal.user() {
        Some(user) => {
            let settings = user_setting::Entity::find_by_id(user.idp_user_id.clone()).one(&state.db).await?;
            (
                memberships_of(&state, &user.idp_user_id).await?,
                Some(decode(settings.as_ref(), Record::Preferences)),
                Some(decode(settings.as_ref(), Record::HelpState)),
                Some(decode(settings.as_ref(), Record::Onboarding)),
            )
        }
        None => (Vec::new(), None, None, None),
    };
    let export = AccountExport {
        exported_at: state.clock.now(),
        profile,
        memberships,
        api_keys,
        audit_logs,
        change_history,
        preferences,
        help_state,
        onboarding,
    };
    Ok(HttpResponse::Ok()
        .insert_header(("Content-Disposition", "attachment; filename=\"plinth-account-export.json\""))
        .json(export))
}
