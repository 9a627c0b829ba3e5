//! API keys: storing them (shared by the endpoint, the CLI and the start-up
//! bootstrap), and the rules and audited writes behind the endpoints.

use chrono::{DateTime, Utc};
use plinth_entities::api_key;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseConnection, DbErr, EntityTrait,
    PaginatorTrait, QueryFilter, QueryOrder, Select,
};
use uuid::Uuid;

use super::model::{ApiKeyResponse, CreateApiKey, CreatedApiKey};
use crate::audit::{self, Action, AuditEntry};
use crate::auth::KeyPermission;
use crate::config::Config;
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::pagination::{fetch_page, Page, Paginated};
use crate::state::keys::{display_prefix, generate_secret, hash_secret};
use crate::state::AppState;
use crate::values::required_line;

pub struct NewKey {
    pub name: String,
    pub permission: KeyPermission,
    pub site_id: Option<Uuid>,
    pub rate_limit_per_second: Option<i32>,
    pub rate_limit_per_minute: Option<i32>,
    pub rate_limit_per_hour: Option<i32>,
    pub rate_limit_per_day: Option<i32>,
    pub created_by: String,
}

impl NewKey {
    pub fn unlimited(name: &str, permission: KeyPermission, site_id: Option<Uuid>, created_by: &str) -> Self {
        Self {
            name: name.to_string(),
            permission,
            site_id,
            rate_limit_per_second: None,
            rate_limit_per_minute: None,
            rate_limit_per_hour: None,
            rate_limit_per_day: None,
            created_by: created_by.to_string(),
        }
    }
}

/// Stores a key and returns it with its secret. `secret` is generated unless given.
pub async fn insert_key<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    key: NewKey,
    secret: Option<String>,
) -> Result<(api_key::Model, String), DbErr> {
    let secret = secret.unwrap_or_else(generate_secret);
    let model = api_key::ActiveModel {
        id: Set(Uuid::new_v4()),
        name: Set(key.name),
        key_hash: Set(hash_secret(&secret)),
        key_prefix: Set(display_prefix(&secret)),
        permission: Set(key.permission.as_str().to_string()),
        site_id: Set(key.site_id),
        rate_limit_per_second: Set(key.rate_limit_per_second),
        rate_limit_per_minute: Set(key.rate_limit_per_minute),
        rate_limit_per_hour: Set(key.rate_limit_per_hour),
        rate_limit_per_day: Set(key.rate_limit_per_day),
        created_by: Set(Some(key.created_by)),
        created_at: Set(now),
        revoked_at: Set(None),
        last_used_at: Set(None),
        usage_count: Set(0),
    }
    .insert(db)
    .await?;
    Ok((model, secret))
}

/// Start-up: with `PLINTH_BOOTSTRAP_API_KEY`, a live Master key with exactly that
/// secret exists afterwards (idempotent). Without it, and with no key at all, a
/// Master key is generated and its secret returned to be printed once.
pub async fn bootstrap(db: &DatabaseConnection, now: DateTime<Utc>, config: &Config) -> Result<Option<String>, DbErr> {
    if let Some(secret) = &config.bootstrap_api_key {
        let existing = api_key::Entity::find().filter(api_key::Column::KeyHash.eq(hash_secret(secret))).one(db).await?;
        match existing {
            Some(key)
                if key.revoked_at.is_none()
                    && key.permission == KeyPermission::Master.as_str()
                    && key.site_id.is_none() => {}
            Some(key) => {
                let mut row: api_key::ActiveModel = key.into();
                row.revoked_at = Set(None);
                row.permission = Set(KeyPermission::Master.as_str().to_string());
                row.site_id = Set(None);
                row.update(db).await?;
            }
            None => {
                insert_key(
                    db,
                    now,
                    NewKey::unlimited("bootstrap", KeyPermission::Master, None, "bootstrap"),
                    Some(secret.clone()),
                )
                .await?;
            }
        }
        return Ok(None);
    }
    if api_key::Entity::find().count(db).await? > 0 {
        return Ok(None);
    }
    let (_, secret) =
        insert_key(db, now, NewKey::unlimited("first admin", KeyPermission::Master, None, "bootstrap"), None).await?;
    Ok(Some(secret))
}

fn check_limit(field: &str, value: Option<i32>, errors: &mut Vec<FieldError>) {
    if value.is_some_and(|v| v < 1) {
        errors.push(FieldError::new(
            field,
            ErrorCode::ValidationOutOfRange,
            "must be at least 1 (omit it for no limit)",
        ));
    }
}

/// Checks a create request on its own (before any permission check): the
/// permission named, the name, the scope of Master keys and the rate limits.
pub fn check_new(body: CreateApiKey, created_by: String) -> ApiResult<NewKey> {
    let permission = KeyPermission::parse(&body.permission).ok_or_else(|| {
        ApiError::new(
            ErrorCode::ApiKeyInvalidPermission,
            format!("'{}' is not a permission: use Read, Write, Admin or Master", body.permission),
        )
    })?;
    let mut errors = Vec::new();
    let name = required_line("name", &body.name, 200).map_err(|e| errors.push(e)).ok();
    if permission == KeyPermission::Master && body.site_id.is_some() {
        errors.push(FieldError::new(
            "site_id",
            ErrorCode::ValidationInvalidFormat,
            "Master keys are never scoped to a site",
        ));
    }
    check_limit("rate_limit_per_second", body.rate_limit_per_second, &mut errors);
    check_limit("rate_limit_per_minute", body.rate_limit_per_minute, &mut errors);
    check_limit("rate_limit_per_hour", body.rate_limit_per_hour, &mut errors);
    check_limit("rate_limit_per_day", body.rate_limit_per_day, &mut errors);
    let (Some(name), true) = (name, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    Ok(NewKey {
        name,
        permission,
        site_id: body.site_id,
        rate_limit_per_second: body.rate_limit_per_second,
        rate_limit_per_minute: body.rate_limit_per_minute,
        rate_limit_per_hour: body.rate_limit_per_hour,
        rate_limit_per_day: body.rate_limit_per_day,
        created_by,
    })
}

/// Stores a checked key on an existing site (or unscoped) with its audit entry.
pub async fn create(state: &AppState, actor: &str, now: DateTime<Utc>, key: NewKey) -> ApiResult<CreatedApiKey> {
    if let Some(site_id) = key.site_id {
        state.site_state(site_id).await?;
    }
    let txn = crate::db::begin_write(&state.db).await?;
    let (model, secret) = insert_key(&txn, now, key, None).await?;
    let response = ApiKeyResponse::from(&model);
    let entry = AuditEntry {
        actor,
        action: Action::Create,
        entity_type: "api_key",
        entity_id: model.id.to_string(),
        site_id: model.site_id,
    };
    audit::record(&txn, now, entry, &(), &response).await?;
    txn.commit().await?;
    Ok(CreatedApiKey { api_key: response, key: secret })
}

/// Which keys a listing shows.
pub struct KeyFilter<'a> {
    /// `active` (default), `revoked` or `all`.
    pub status: Option<&'a str>,
    pub site_id: Option<Uuid>,
    /// Master keys are listed to system admins only.
    pub include_master: bool,
}

/// Newest first (`ix_api_keys_site_created` for a site's keys, else `ix_api_keys_created`).
pub fn list_query(filter: &KeyFilter<'_>) -> ApiResult<Select<api_key::Entity>> {
    let mut select =
        api_key::Entity::find().order_by_desc(api_key::Column::CreatedAt).order_by_desc(api_key::Column::Id);
    select = match filter.status.unwrap_or("active") {
        "active" => select.filter(api_key::Column::RevokedAt.is_null()),
        "revoked" => select.filter(api_key::Column::RevokedAt.is_not_null()),
        "all" => select,
        other => {
            return Err(ApiError::new(
                ErrorCode::ApiKeyInvalidStatus,
                format!("'{other}' is not a key status: use active, revoked or all"),
            ))
        }
    };
    if let Some(site_id) = filter.site_id {
        select = select.filter(api_key::Column::SiteId.eq(site_id));
    }
    if !filter.include_master {
        select = select.filter(api_key::Column::Permission.ne(KeyPermission::Master.as_str()));
    }
    Ok(select)
}

pub async fn list(db: &DatabaseConnection, filter: KeyFilter<'_>, page: Page) -> ApiResult<Paginated<ApiKeyResponse>> {
    let keys = fetch_page(db, list_query(&filter)?, page).await?;
    Ok(keys.map(|m| ApiKeyResponse::from(&m)))
}

pub async fn find(db: &DatabaseConnection, id: Uuid) -> ApiResult<api_key::Model> {
    api_key::Entity::find_by_id(id).one(db).await?.ok_or_else(|| ApiError::not_found("api_key", id))
}

/// Revokes the key (once: a revoked key stays as it was) and forgets its cached
/// verification and rate-limit counters.
pub async fn revoke(state: &AppState, actor: &str, now: DateTime<Utc>, key: api_key::Model) -> ApiResult<()> {
    let id = key.id;
    let txn = crate::db::begin_write(&state.db).await?;
    if key.revoked_at.is_none() {
        let before = ApiKeyResponse::from(&key);
        let site_id = key.site_id;
        let mut row: api_key::ActiveModel = key.into();
        row.revoked_at = Set(Some(now));
        let revoked = row.update(&txn).await?;
        let entry =
            AuditEntry { actor, action: Action::Revoke, entity_type: "api_key", entity_id: id.to_string(), site_id };
        audit::record(&txn, now, entry, &before, &ApiKeyResponse::from(&revoked)).await?;
    }
    txn.commit().await?;
    state.forget_key(id);
    state.rate_limits.forget_key(id);
    Ok(())
}
