//! API keys: storing them (shared by the endpoint, the CLI and the start-up
//! bootstrap), and the rules and audited writes behind the endpoints.

use chrono::{DateTime, Utc};
use plinth_entities::api_key;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseConnection, DbErr, EntityTrait,
    PaginatorTrait, QueryFilter, QueryOrder, Select,
};
use uuid::Uuid;

use serde_json::{json, Value};

use super::model::{ApiKeyResponse, BlockApiKey, CreateApiKey, CreatedApiKey, KeyStatus, LimitWindow, UpdateApiKey};
use crate::audit::{self, Action, Actor, AuditEntry};
use crate::auth::KeyPermission;
use crate::config::Config;
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::pagination::{fetch_page, Page, Paginated};
use crate::state::keys::{display_prefix, generate_secret, hash_secret};
use crate::state::AppState;
use crate::values::{required_line, required_text};

pub struct NewKey {
    pub name: String,
    pub permission: KeyPermission,
    pub site_id: Option<Uuid>,
    pub rate_limit_per_second: Option<i32>,
    pub rate_limit_per_minute: Option<i32>,
    pub rate_limit_per_hour: Option<i32>,
    pub rate_limit_per_day: Option<i32>,
    pub description: Option<String>,
    pub expires_at: Option<DateTime<Utc>>,
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
            description: None,
            expires_at: None,
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
    let model = key_row(now, key, &secret).insert(db).await?;
    Ok((model, secret))
}

/// The row of a new key whose secret is `secret`.
fn key_row(now: DateTime<Utc>, key: NewKey, secret: &str) -> api_key::ActiveModel {
    api_key::ActiveModel {
        id: Set(Uuid::new_v4()),
        name: Set(key.name),
        key_hash: Set(hash_secret(secret)),
        key_prefix: Set(display_prefix(secret)),
        permission: Set(key.permission),
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
        description: Set(key.description),
        expires_at: Set(key.expires_at),
        blocked_at: Set(None),
        blocked_reason: Set(None),
        updated_at: Set(None),
    }
}

/// Start-up: with `PLINTH_BOOTSTRAP_API_KEY`, a live Master key with exactly that
/// secret exists afterwards (idempotent). Without it, and with no key at all, a
/// Master key is generated and its secret returned to be printed once.
pub async fn bootstrap(db: &DatabaseConnection, now: DateTime<Utc>, config: &Config) -> Result<Option<String>, DbErr> {
    if let Some(secret) = &config.bootstrap_api_key {
        let existing = api_key::Entity::find().filter(api_key::Column::KeyHash.eq(hash_secret(secret))).one(db).await?;
        match existing {
            Some(key)
                if key.revoked_at.is_none() && key.permission == KeyPermission::Master && key.site_id.is_none() => {}
            Some(key) => {
                let mut row: api_key::ActiveModel = key.into();
                row.revoked_at = Set(None);
                row.permission = Set(KeyPermission::Master);
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

/// A permission named in a request (any letter case).
fn parse_permission(raw: &str) -> ApiResult<KeyPermission> {
    KeyPermission::parse(raw).ok_or_else(|| {
        ApiError::new(
            ErrorCode::ApiKeyInvalidPermission,
            format!("'{raw}' is not a permission: use Read, Write, Admin or Master"),
        )
    })
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

/// A description as stored: empty means none; at most 1,000 characters of text.
fn description(raw: Option<String>, errors: &mut Vec<FieldError>) -> Option<String> {
    let raw = raw.filter(|d| !d.trim().is_empty())?;
    required_text("description", &raw, 1000).map_err(|e| errors.push(e)).ok()
}

/// An expiry must lie ahead: a key made already expired is a mistake.
fn check_expiry(expires_at: Option<DateTime<Utc>>, now: DateTime<Utc>, errors: &mut Vec<FieldError>) {
    if expires_at.is_some_and(|at| at <= now) {
        errors.push(FieldError::new("expires_at", ErrorCode::ValidationOutOfRange, "must lie in the future"));
    }
}

/// Checks a create request on its own (before any permission check): the
/// permission named, the name, the scope of Master keys, the rate limits, the
/// description and the expiry.
pub fn check_new(body: CreateApiKey, created_by: String, now: DateTime<Utc>) -> ApiResult<NewKey> {
    let permission = parse_permission(&body.permission)?;
    let mut errors = Vec::new();
    let name = required_line("name", &body.name, 200).map_err(|e| errors.push(e)).ok();
    if permission == KeyPermission::Master && body.site_id.is_some() {
        errors.push(FieldError::new(
            "site_id",
            ErrorCode::ValidationInvalidFormat,
            "Master keys are never scoped to a site",
        ));
    }
    for window in LimitWindow::ALL {
        check_limit(window.field(), body.limit(window), &mut errors);
    }
    let description = description(body.description, &mut errors);
    check_expiry(body.expires_at, now, &mut errors);
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
        description,
        expires_at: body.expires_at,
        created_by,
    })
}

/// Stores a checked key on an existing site (or unscoped) with its audit entry.
pub async fn create(state: &AppState, actor: &Actor, now: DateTime<Utc>, key: NewKey) -> ApiResult<CreatedApiKey> {
    if let Some(site_id) = key.site_id {
        state.site_state(site_id).await?;
    }
    let secret = generate_secret();
    let response = audited(state, actor, now, Action::Create, Value::Null)
        .run(key_row(now, key, &secret), |m| ApiKeyResponse::at(m, now), ApiError::from)
        .await?;
    Ok(CreatedApiKey { api_key: response, key: secret })
}

/// The one audited write of a key row (see `audit::Write`).
fn audited<'a>(
    state: &'a AppState,
    actor: &'a Actor,
    now: DateTime<Utc>,
    action: Action,
    before: Value,
) -> audit::Write<'a, impl FnOnce(&api_key::Model) -> AuditEntry<'a>> {
    audit::Write {
        db: &state.db,
        at: now,
        action,
        entry: move |m: &api_key::Model| AuditEntry {
            actor,
            action,
            entity_type: "api_key",
            entity_id: m.id.to_string(),
            site_id: m.site_id,
        },
        before,
        after: None,
    }
}

/// Which keys a listing shows.
pub struct KeyFilter<'a> {
    /// A [`KeyStatus`] (`active` by default) or `all`.
    pub status: Option<&'a str>,
    /// Only keys with this permission.
    pub permission: Option<&'a str>,
    pub site_id: Option<Uuid>,
    /// Master keys are listed to system admins only.
    pub include_master: bool,
}

/// Newest first (`ix_api_keys_site_created` for a site's keys, else
/// `ix_api_keys_created`); the status, as it stands at `now`, filters that walk.
pub fn list_query(filter: &KeyFilter<'_>, now: DateTime<Utc>) -> ApiResult<Select<api_key::Entity>> {
    use api_key::Column;
    use sea_orm::ExprTrait;
    let mut select = api_key::Entity::find().order_by_desc(Column::CreatedAt).order_by_desc(Column::Id);
    let raw = filter.status.unwrap_or("active");
    if !raw.eq_ignore_ascii_case("all") {
        let status = KeyStatus::parse(raw).ok_or_else(|| {
            ApiError::new(
                ErrorCode::ApiKeyInvalidStatus,
                format!("'{raw}' is not a key status: use active, blocked, expired, revoked or all"),
            )
        })?;
        let live = Column::RevokedAt.is_null();
        let unexpired = Column::ExpiresAt.is_null().or(Column::ExpiresAt.gt(now));
        select = select.filter(match status {
            KeyStatus::Revoked => Column::RevokedAt.is_not_null(),
            KeyStatus::Blocked => live.and(Column::BlockedAt.is_not_null()),
            KeyStatus::Expired => live.and(Column::BlockedAt.is_null()).and(Column::ExpiresAt.lte(now)),
            KeyStatus::Active => live.and(Column::BlockedAt.is_null()).and(unexpired),
        });
    }
    if let Some(site_id) = filter.site_id {
        select = select.filter(api_key::Column::SiteId.eq(site_id));
    }
    if let Some(raw) = filter.permission {
        select = select.filter(Column::Permission.eq(parse_permission(raw)?));
    }
    if !filter.include_master {
        select = select.filter(api_key::Column::Permission.ne(KeyPermission::Master.as_str()));
    }
    Ok(select)
}

pub async fn list(
    db: &DatabaseConnection,
    filter: KeyFilter<'_>,
    page: Page,
    now: DateTime<Utc>,
) -> ApiResult<Paginated<ApiKeyResponse>> {
    let keys = fetch_page(db, list_query(&filter, now)?, page).await?;
    Ok(keys.map(|m| ApiKeyResponse::at(&m, now)))
}

pub async fn find(db: &DatabaseConnection, id: Uuid) -> ApiResult<api_key::Model> {
    api_key::Entity::find_by_id(id).one(db).await?.ok_or_else(|| ApiError::not_found("api_key", id))
}

/// Revokes the key (once: a revoked key stays as it was) and forgets its cached
/// verification and rate-limit counters, here and on every instance.
pub async fn revoke(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    key: api_key::Model,
) -> ApiResult<ApiKeyResponse> {
    if key.revoked_at.is_some() {
        return Ok(ApiKeyResponse::at(&key, now));
    }
    let before = json!(ApiKeyResponse::at(&key, now));
    let mut row: api_key::ActiveModel = key.into();
    row.revoked_at = Set(Some(now));
    change(state, actor, now, Action::Revoke, before, row).await
}

/// Stores a changed key row with its audit entry, then makes every instance
/// read the key again (its status and limits) on its next request.
async fn change(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    action: Action,
    before: Value,
    row: api_key::ActiveModel,
) -> ApiResult<ApiKeyResponse> {
    let changed =
        audited(state, actor, now, action, before).run(row, |m| ApiKeyResponse::at(m, now), ApiError::from).await?;
    state.forget_key(changed.id);
    state.rate_limits.forget_key(changed.id);
    Ok(changed)
}

/// A checked change of a key's settings (see [`check_update`]).
pub struct KeyUpdate {
    name: Option<String>,
    description: Option<Option<String>>,
    /// The permission asked for; the caller's ceiling is checked by the handler.
    pub permission: Option<KeyPermission>,
    /// The limits the body changes, each with its window.
    limits: Vec<(LimitWindow, Option<i32>)>,
    expires_at: Option<Option<DateTime<Utc>>>,
}

/// Checks an update on its own, against the key it changes.
pub fn check_update(key: &api_key::Model, body: UpdateApiKey, now: DateTime<Utc>) -> ApiResult<KeyUpdate> {
    let permission = body.permission.as_deref().map(parse_permission).transpose()?;
    let limits: Vec<(LimitWindow, Option<i32>)> =
        LimitWindow::ALL.into_iter().filter_map(|window| Some((window, body.limit(window)?))).collect();
    let mut errors = Vec::new();
    let name = body.name.and_then(|n| required_line("name", &n, 200).map_err(|e| errors.push(e)).ok());
    let description = body.description.map(|d| description(d, &mut errors));
    if body.site_id.is_some_and(|site| Some(site) != key.site_id) {
        errors.push(FieldError::new(
            "site_id",
            ErrorCode::ValidationInvalidFormat,
            "a key's site never changes: create a key for the other site",
        ));
    }
    if permission == Some(KeyPermission::Master) && key.site_id.is_some() {
        errors.push(FieldError::new(
            "permission",
            ErrorCode::ValidationInvalidFormat,
            "Master keys are never scoped to a site",
        ));
    }
    for (window, limit) in &limits {
        check_limit(window.field(), *limit, &mut errors);
    }
    check_expiry(body.expires_at.flatten(), now, &mut errors);
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    Ok(KeyUpdate { name, description, permission, limits, expires_at: body.expires_at })
}

/// Changes a key's settings.
pub async fn update(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    key: api_key::Model,
    update: KeyUpdate,
) -> ApiResult<ApiKeyResponse> {
    let before = json!(ApiKeyResponse::at(&key, now));
    let mut row: api_key::ActiveModel = key.into();
    if let Some(name) = update.name {
        row.name = Set(name);
    }
    if let Some(description) = update.description {
        row.description = Set(description);
    }
    if let Some(permission) = update.permission {
        row.permission = Set(permission);
    }
    for (window, limit) in update.limits {
        row.set(window.column(), limit.into());
    }
    if let Some(expires_at) = update.expires_at {
        row.expires_at = Set(expires_at);
    }
    row.updated_at = Set(Some(now));
    change(state, actor, now, Action::Update, before, row).await
}

/// A revoked key is over: it is neither blocked nor unblocked.
fn refuse_revoked(key: &api_key::Model) -> ApiResult<()> {
    match key.revoked_at {
        Some(_) => Err(ApiError::new(ErrorCode::ApiKeyInvalidStatus, "the key is revoked; it cannot change status")),
        None => Ok(()),
    }
}

/// Blocks a key: from its next request on, on every instance, it gets 401
/// AUTH_API_KEY_INVALID until unblocked. Blocking a blocked key replaces the reason.
pub async fn block(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    key: api_key::Model,
    body: BlockApiKey,
) -> ApiResult<ApiKeyResponse> {
    refuse_revoked(&key)?;
    let reason = body
        .reason
        .filter(|r| !r.trim().is_empty())
        .map(|r| required_line("reason", &r, 500))
        .transpose()
        .map_err(|e| ApiError::validation(vec![e]))?;
    let before = json!(ApiKeyResponse::at(&key, now));
    let blocked_at = key.blocked_at.unwrap_or(now);
    let mut row: api_key::ActiveModel = key.into();
    row.blocked_at = Set(Some(blocked_at));
    row.blocked_reason = Set(reason);
    row.updated_at = Set(Some(now));
    change(state, actor, now, Action::Update, before, row).await
}

/// Lifts a block (a key that is not blocked stays as it is).
pub async fn unblock(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    key: api_key::Model,
) -> ApiResult<ApiKeyResponse> {
    refuse_revoked(&key)?;
    if key.blocked_at.is_none() {
        return Ok(ApiKeyResponse::at(&key, now));
    }
    let before = json!(ApiKeyResponse::at(&key, now));
    let mut row: api_key::ActiveModel = key.into();
    row.blocked_at = Set(None);
    row.blocked_reason = Set(None);
    row.updated_at = Set(Some(now));
    change(state, actor, now, Action::Update, before, row).await
}
