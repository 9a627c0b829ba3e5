//! The caller's own account: leaving Plinth, the profile and data export, and
//! the per-user records (preferences, help state, onboarding), each one JSON
//! column of `user_settings`.

use chrono::{DateTime, Utc};
use plinth_entities::{api_key, audit_log, site, site_member, site_onboarding_step, user_setting};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, Condition, DatabaseConnection, DbErr, EntityTrait, QueryFilter,
    QueryOrder,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use uuid::Uuid;

use super::model::{
    AccountExport, ActivityEntry, ChangeRecord, CompleteOnboarding, HelpState, Onboarding, Preferences, Profile,
    UpdateHelpState, UpdatePreferences,
};
use crate::api_keys::ApiKeyResponse;
use crate::audit::{self, Action, Actor, AuditEntry};
use crate::auth::{Credential, Role};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::members::memberships_of;
use crate::permissions::{KeyGrants, KeyPermission};
use crate::state::AppState;

/// Removes what Plinth keeps per user (memberships, settings, onboarding
/// progress) inside the caller's transaction. Shared by account deletion and
/// the moderation delete.
/// Returns the sites the user was a member of: their cached state holds the
/// memberships, so the caller drops it after the commit.
pub(crate) async fn remove_user_data(txn: &crate::db::WriteTxn, user: &str) -> Result<(), DbErr> {
    let sites: Vec<Uuid> = site_member::Entity::find()
        .filter(site_member::Column::IdpUserId.eq(user))
        .all(txn)
        .await?
        .into_iter()
        .map(|m| m.site_id)
        .collect();
    site_member::Entity::delete_many().filter(site_member::Column::IdpUserId.eq(user)).exec(txn).await?;
    site_onboarding_step::Entity::delete_many()
        .filter(site_onboarding_step::Column::IdpUserId.eq(user))
        .exec(txn)
        .await?;
    user_setting::Entity::delete_by_id(user.to_string()).exec(txn).await?;
    // Their sites' members changed.
    for site_id in sites {
        txn.touch(crate::db::Touched::Site(site_id));
    }
    Ok(())
}

/// Deletes the account of `user` unless they are the only owner of a site.
pub async fn delete_account(state: &AppState, now: DateTime<Utc>, user: &str) -> ApiResult<()> {
    audit::write(&state.db, async |txn| {
        let memberships = site_member::Entity::find().filter(site_member::Column::IdpUserId.eq(user)).all(txn).await?;
        let owned: Vec<_> = memberships.iter().filter(|m| m.role == Role::Owner).map(|m| m.site_id).collect();
        // A site (also one in the trash, which may yet be restored) must keep an owner.
        let co_owned: Vec<_> = site_member::Entity::find()
            .filter(site_member::Column::SiteId.is_in(owned.clone()))
            .filter(site_member::Column::Role.eq(Role::Owner))
            .filter(site_member::Column::IdpUserId.ne(user))
            .all(txn)
            .await?
            .into_iter()
            .map(|m| m.site_id)
            .collect();
        let sole: Vec<_> = owned.iter().filter(|id| !co_owned.contains(id)).copied().collect();
        if !sole.is_empty() {
            let slugs: Vec<String> = site::Entity::find()
                .filter(site::Column::Id.is_in(sole))
                .all(txn)
                .await?
                .into_iter()
                .map(|s| s.slug)
                .collect();
            return Err(ApiError::new(
                ErrorCode::AuthAccountSoleOwner,
                format!("you are the only owner of {}; transfer ownership or delete the site first", slugs.join(", ")),
            ));
        }
        remove_user_data(txn, user).await?;
        let actor = Actor::User(user.to_string());
        let entry = AuditEntry {
            actor: &actor,
            action: Action::Delete,
            entity_type: "account",
            entity_id: user.to_string(),
            site_id: None,
        };
        let before = json!({"idp_user_id": user, "memberships": memberships.len()});
        audit::record(txn, now, entry, &before, &Value::Null).await?;
        Ok(())
    })
    .await
}

/// Who the caller is (its credential: a user's identity or an API key); for
/// an API key, also its stored row.
/// `permission` is the one the caller acts with (`/auth/me`'s).
pub async fn profile(
    state: &AppState,
    credential: &Credential,
    permission: KeyPermission,
) -> ApiResult<(Profile, Option<api_key::Model>)> {
    Ok(match credential {
        Credential::User(user) => (
            Profile {
                id: user.idp_user_id.clone(),
                auth_method: "jwt".into(),
                permission: permission.as_str().to_string(),
                role: match permission {
                    KeyPermission::Master => "system_admin",
                    _ => "user",
                }
                .to_string(),
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
                permission: permission.as_str().to_string(),
                role: permission.site_role().as_str().to_string(),
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

/// Everything Plinth holds about the caller: `credential`, acting as `actor`.
pub async fn export(
    state: &AppState,
    credential: &Credential,
    permission: KeyPermission,
    actor: &Actor,
    now: DateTime<Utc>,
) -> ApiResult<AccountExport> {
    let (profile, own_key) = profile(state, credential, permission).await?;
    let mut keys_filter = Condition::any().add(api_key::Column::CreatedBy.eq(actor.to_string()));
    if let Some(key) = &own_key {
        keys_filter = keys_filter.add(api_key::Column::Id.eq(key.id));
    }
    let api_keys = api_key::Entity::find()
        .filter(keys_filter)
        .order_by_asc(api_key::Column::CreatedAt)
        .all(&state.db)
        .await?
        .iter()
        .map(|key| ApiKeyResponse::at(key, now))
        .collect();
    let entries = audit_log::Entity::find()
        .filter(audit_log::Column::Actor.eq(actor.to_string()))
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
            action: e.action.as_str().to_string(),
            changes: e.changes.clone(),
            changed_at: e.created_at,
        })
        .collect();
    let audit_logs = entries
        .into_iter()
        .map(|e| ActivityEntry {
            id: e.id,
            site_id: e.site_id,
            action: e.action.as_str().to_string(),
            entity_type: e.entity_type,
            entity_id: e.entity_id,
            created_at: e.created_at,
        })
        .collect();
    let (memberships, preferences, help_state, onboarding) = match credential {
        Credential::User(user) => {
            let settings = user_setting::Entity::find_by_id(user.idp_user_id.clone()).one(&state.db).await?;
            (
                memberships_of(state, &user.idp_user_id).await?,
                Some(decode(settings.as_ref(), Record::Preferences)),
                Some(decode(settings.as_ref(), Record::HelpState)),
                Some(decode(settings.as_ref(), Record::Onboarding)),
            )
        }
        Credential::ApiKey(_) => (Vec::new(), None, None, None),
    };
    Ok(AccountExport {
        exported_at: now,
        profile,
        memberships,
        api_keys,
        audit_logs,
        change_history,
        preferences,
        help_state,
        onboarding,
    })
}

/// The three records kept per user, one JSON column each.
#[derive(Clone, Copy)]
pub enum Record {
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
fn decode<T: DeserializeOwned + Default>(row: Option<&user_setting::Model>, record: Record) -> T {
    row.and_then(|r| serde_json::from_value(record.of(r).clone()).ok()).unwrap_or_default()
}

/// One record of `user`, the defaults when nothing is stored.
pub async fn load<T: DeserializeOwned + Default>(db: &DatabaseConnection, user: &str, record: Record) -> ApiResult<T> {
    let row = user_setting::Entity::find_by_id(user.to_string()).one(db).await?;
    Ok(decode(row.as_ref(), record))
}

/// Reads, changes and stores one record inside a single write transaction, so two
/// concurrent partial updates cannot overwrite each other. `change` may refuse
/// with an error, in which case nothing is written.
async fn modify<T, F>(db: &crate::db::Db, now: DateTime<Utc>, user: &str, record: Record, change: F) -> ApiResult<T>
where
    T: DeserializeOwned + Serialize + Default,
    F: FnOnce(&mut T) -> ApiResult<()>,
{
    let txn = crate::db::begin_unaudited(db, "the caller's own settings").await?;
    let existing = user_setting::Entity::find_by_id(user.to_string()).one(&txn).await?;
    let mut value: T = decode(existing.as_ref(), record);
    change(&mut value)?;
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
            if v.trim().is_empty() || v.chars().count() > 64 {
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

pub async fn update_preferences(
    db: &crate::db::Db,
    now: DateTime<Utc>,
    user: &str,
    update: UpdatePreferences,
) -> ApiResult<Preferences> {
    modify(db, now, user, Record::Preferences, |prefs| update.apply(prefs)).await
}

/// Records each hotspot or field help seen (once), and the tour when completed.
pub async fn update_help_state(
    db: &crate::db::Db,
    now: DateTime<Utc>,
    user: &str,
    update: UpdateHelpState,
) -> ApiResult<HelpState> {
    modify(db, now, user, Record::HelpState, |help: &mut HelpState| {
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
        if let Some(done) = update.tour_completed {
            help.tour_completed = done;
        }
        Ok(())
    })
    .await
}

pub async fn reset_help_state(db: &crate::db::Db, now: DateTime<Utc>, user: &str) -> ApiResult<HelpState> {
    modify(db, now, user, Record::HelpState, |help: &mut HelpState| {
        *help = HelpState::default();
        Ok(())
    })
    .await
}

/// Marks onboarding completed now, with the user's type and intents (each once).
pub async fn complete_onboarding(
    db: &crate::db::Db,
    now: DateTime<Utc>,
    user: &str,
    body: CompleteOnboarding,
) -> ApiResult<Onboarding> {
    modify(db, now, user, Record::Onboarding, |onboarding: &mut Onboarding| {
        let mut intents = Vec::with_capacity(body.intents.len());
        for intent in body.intents {
            if !intents.contains(&intent) {
                intents.push(intent);
            }
        }
        *onboarding = Onboarding { completed: true, user_type: Some(body.user_type), intents, completed_at: Some(now) };
        Ok(())
    })
    .await
}
