//! A signed-in user's own settings: preferences, help state and onboarding.
//! Each is one JSON column of `user_settings`; a user without a row, or with an
//! empty record, reads the defaults. Identity-provider users only.

use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use plinth_entities::user_setting;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, EntityTrait};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;

use crate::auth::Principal;
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::state::AppState;

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

fn user_id(principal: &Principal, code: ErrorCode) -> ApiResult<String> {
    Ok(principal.require_user(code)?.idp_user_id.clone())
}

/// The three records kept per user, one JSON column each.
#[derive(Clone, Copy)]
pub(super) enum Record {
    Preferences,
    HelpState,
    Onboarding,
}

impl Record {
    fn of(self, row: &user_setting::Model) -> &Value {
        match self {
            Record::Preferences => &row.preferences,
            Record::HelpState => &row.help_state,
            Record::Onboarding => &row.onboarding,
        }
    }

    fn set(self, row: &mut user_setting::ActiveModel, value: Value) {
        match self {
            Record::Preferences => row.preferences = Set(value),
            Record::HelpState => row.help_state = Set(value),
            Record::Onboarding => row.onboarding = Set(value),
        }
    }
}

/// Stored values missing from an older record take their defaults.
pub(super) fn decode<T: DeserializeOwned + Default>(row: Option<&user_setting::Model>, record: Record) -> T {
    row.and_then(|r| serde_json::from_value(record.of(r).clone()).ok()).unwrap_or_default()
}

async fn load<T: DeserializeOwned + Default>(state: &AppState, user: &str, record: Record) -> ApiResult<T> {
    let row = user_setting::Entity::find_by_id(user.to_string()).one(&state.db).await?;
    Ok(decode(row.as_ref(), record))
}

/// Reads, changes and stores one record inside a single write transaction, so two
/// concurrent partial updates cannot overwrite each other. `change` may refuse
/// with an error, in which case nothing is written.
async fn modify<T, F>(state: &AppState, user: &str, record: Record, change: F) -> ApiResult<T>
where
    T: DeserializeOwned + Serialize + Default,
    F: FnOnce(&mut T) -> ApiResult<()>,
{
    let txn = crate::db::begin_write(&state.db).await?;
    let existing = user_setting::Entity::find_by_id(user.to_string()).one(&txn).await?;
    let mut value: T = decode(existing.as_ref(), record);
    change(&mut value)?;
    let now = state.clock.now();
    let is_new = existing.is_none();
    let mut row: user_setting::ActiveModel = match existing {
        Some(model) => model.into(),
        None => user_setting::ActiveModel {
            idp_user_id: Set(user.to_string()),
            preferences: Set(json!({})),
            help_state: Set(json!({})),
            onboarding: Set(json!({})),
            updated_at: Set(now),
        },
    };
    record.set(&mut row, json!(value));
    row.updated_at = Set(now);
    if is_new {
        row.insert(&txn).await?;
    } else {
        row.update(&txn).await?;
    }
    txn.commit().await?;
    Ok(value)
}

impl UpdatePreferences {
    /// Applies the given fields, or refuses all of them if any is out of range.
    fn apply(self, prefs: &mut Preferences) -> ApiResult<()> {
        let mut next = prefs.clone();
        let mut errors = Vec::new();
        if let Some(v) = self.autosave_enabled {
            next.autosave_enabled = v;
        }
        if let Some(v) = self.autosave_debounce_seconds {
            next.autosave_debounce_seconds = v;
            if !(1..=60).contains(&v) {
                errors.push(FieldError::new(
                    "autosave_debounce_seconds",
                    ErrorCode::ValidationOutOfRange,
                    "must be 1 to 60",
                ));
            }
        }
        if let Some(v) = self.page_size {
            next.page_size = v;
            if !(1..=100).contains(&v) {
                errors.push(FieldError::new("page_size", ErrorCode::ValidationOutOfRange, "must be 1 to 100"));
            }
        }
        if let Some(v) = self.language {
            if !((2..=12).contains(&v.len()) && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')) {
                errors.push(FieldError::new(
                    "language",
                    ErrorCode::ValidationInvalidFormat,
                    "must be a language tag such as en or pt-BR",
                ));
            }
            next.language = v;
        }
        if let Some(v) = self.theme_id {
            if v.trim().is_empty() || v.len() > 64 {
                errors.push(FieldError::new(
                    "theme_id",
                    ErrorCode::ValidationInvalidFormat,
                    "must be 1 to 64 characters",
                ));
            }
            next.theme_id = v;
        }
        if !errors.is_empty() {
            return Err(ApiError::validation(errors));
        }
        *prefs = next;
        Ok(())
    }
}

#[utoipa::path(
    get,
    path = "/auth/preferences",
    tag = "Account",
    responses((status = 200, body = Preferences)),
    security(("bearer" = []))
)]
pub async fn get_preferences(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let user = user_id(&principal, ErrorCode::Forbidden)?;
    let prefs: Preferences = load(&state, &user, Record::Preferences).await?;
    Ok(HttpResponse::Ok().json(prefs))
}

#[utoipa::path(put, path = "/auth/preferences", tag = "Account", request_body = UpdatePreferences,
    responses((status = 200, body = Preferences, description = "The full preferences")), security(("bearer" = [])))]
pub async fn update_preferences(
    state: web::Data<AppState>,
    principal: Principal,
    body: web::Json<UpdatePreferences>,
) -> ApiResult<HttpResponse> {
    let user = user_id(&principal, ErrorCode::Forbidden)?;
    let update = body.into_inner();
    let prefs: Preferences = modify(&state, &user, Record::Preferences, |prefs| update.apply(prefs)).await?;
    Ok(HttpResponse::Ok().json(prefs))
}

#[utoipa::path(
    get,
    path = "/auth/help-state",
    tag = "Account",
    responses((status = 200, body = HelpState)),
    security(("bearer" = []))
)]
pub async fn get_help_state(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let user = user_id(&principal, ErrorCode::Forbidden)?;
    let help: HelpState = load(&state, &user, Record::HelpState).await?;
    Ok(HttpResponse::Ok().json(help))
}

#[utoipa::path(put, path = "/auth/help-state", tag = "Account", request_body = UpdateHelpState,
    responses((status = 200, body = HelpState)), security(("bearer" = [])))]
pub async fn update_help_state(
    state: web::Data<AppState>,
    principal: Principal,
    body: web::Json<UpdateHelpState>,
) -> ApiResult<HttpResponse> {
    let user = user_id(&principal, ErrorCode::Forbidden)?;
    let update = body.into_inner();
    let help: HelpState = modify(&state, &user, Record::HelpState, |help: &mut HelpState| {
        for (value, seen) in
            [(update.dismiss_hotspot, &mut help.hotspots_seen), (update.dismiss_field_help, &mut help.field_help_seen)]
        {
            if let Some(key) = value.map(|k| k.trim().to_string()).filter(|k| !k.is_empty()) {
                if !seen.contains(&key) {
                    seen.push(key);
                }
            }
        }
        if update.complete_tour == Some(true) {
            help.tour_completed = true;
        }
        Ok(())
    })
    .await?;
    Ok(HttpResponse::Ok().json(help))
}

#[utoipa::path(delete, path = "/auth/help-state", tag = "Account",
    responses((status = 200, body = HelpState, description = "Back to the defaults")), security(("bearer" = [])))]
pub async fn reset_help_state(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let user = user_id(&principal, ErrorCode::Forbidden)?;
    let help: HelpState = modify(&state, &user, Record::HelpState, |help: &mut HelpState| {
        *help = HelpState::default();
        Ok(())
    })
    .await?;
    Ok(HttpResponse::Ok().json(help))
}

#[utoipa::path(
    get,
    path = "/auth/onboarding",
    tag = "Account",
    responses((status = 200, body = Onboarding)),
    security(("bearer" = []))
)]
pub async fn get_onboarding(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let user = user_id(&principal, ErrorCode::OnboardingRequiresIdp)?;
    let onboarding: Onboarding = load(&state, &user, Record::Onboarding).await?;
    Ok(HttpResponse::Ok().json(onboarding))
}

#[utoipa::path(post, path = "/auth/onboarding/complete", tag = "Account", request_body = CompleteOnboarding,
    responses((status = 200, body = Onboarding)), security(("bearer" = [])))]
pub async fn complete_onboarding(
    state: web::Data<AppState>,
    principal: Principal,
    body: web::Json<CompleteOnboarding>,
) -> ApiResult<HttpResponse> {
    let user = user_id(&principal, ErrorCode::OnboardingRequiresIdp)?;
    let body = body.into_inner();
    let onboarding: Onboarding = modify(&state, &user, Record::Onboarding, |onboarding: &mut Onboarding| {
        let mut intents = Vec::with_capacity(body.intents.len());
        for intent in body.intents {
            if !intents.contains(&intent) {
                intents.push(intent);
            }
        }
        *onboarding = Onboarding {
            completed: true,
            user_type: Some(body.user_type),
            intents,
            completed_at: Some(state.clock.now()),
        };
        Ok(())
    })
    .await?;
    Ok(HttpResponse::Ok().json(onboarding))
}
