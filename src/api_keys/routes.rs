//! `/api-keys` endpoints.

use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use plinth_entities::api_key;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::service::{insert_key, NewKey};
use crate::audit::{self, Action, AuditEntry};
use crate::auth::{Capability, KeyCapability, KeyPermission, Principal};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::pagination::{fetch_page, PageParams, Paginated};
use crate::state::AppState;
use crate::values::required_text;

/// An API key as listed: never its secret.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ApiKeyResponse {
    pub id: Uuid,
    pub name: String,
    /// The first characters of the secret.
    pub key_prefix: String,
    /// `Read`, `Write`, `Admin` or `Master`.
    pub permission: String,
    pub site_id: Option<Uuid>,
    pub rate_limit_per_second: Option<i32>,
    pub rate_limit_per_minute: Option<i32>,
    pub rate_limit_per_hour: Option<i32>,
    pub rate_limit_per_day: Option<i32>,
    /// `active` or `revoked`.
    pub status: String,
    pub created_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub usage_count: i64,
}

impl From<&api_key::Model> for ApiKeyResponse {
    fn from(m: &api_key::Model) -> Self {
        Self {
            id: m.id,
            name: m.name.clone(),
            key_prefix: m.key_prefix.clone(),
            permission: m.permission.clone(),
            site_id: m.site_id,
            rate_limit_per_second: m.rate_limit_per_second,
            rate_limit_per_minute: m.rate_limit_per_minute,
            rate_limit_per_hour: m.rate_limit_per_hour,
            rate_limit_per_day: m.rate_limit_per_day,
            status: if m.revoked_at.is_some() { "revoked" } else { "active" }.to_string(),
            created_at: m.created_at,
            revoked_at: m.revoked_at,
            last_used_at: m.last_used_at,
            usage_count: m.usage_count,
        }
    }
}

/// The created key with its secret, shown this once.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CreatedApiKey {
    #[serde(flatten)]
    pub api_key: ApiKeyResponse,
    /// The secret to send as `X-API-Key`. It cannot be shown again.
    pub key: String,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateApiKey {
    pub name: String,
    /// `Read`, `Write`, `Admin` or `Master` (any case).
    /// `Read` when omitted.
    #[serde(default = "read_permission")]
    pub permission: String,
    /// Restricts the key to one site. Master keys are never scoped.
    pub site_id: Option<Uuid>,
    /// Requests allowed per window; omitted = not limited.
    pub rate_limit_per_second: Option<i32>,
    pub rate_limit_per_minute: Option<i32>,
    pub rate_limit_per_hour: Option<i32>,
    pub rate_limit_per_day: Option<i32>,
}

fn read_permission() -> String {
    KeyPermission::Read.as_str().to_string()
}

#[derive(Clone, Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListApiKeysQuery {
    /// Only keys scoped to this site. Required for callers who administer single sites.
    pub site_id: Option<Uuid>,
    /// `active` (default), `revoked` or `all`.
    pub status: Option<String>,
    pub page: Option<u64>,
    pub per_page: Option<u64>,
}

/// The highest permission `principal` may give a key scoped to `site_id`.
async fn grant_ceiling(state: &AppState, principal: &Principal, site_id: Option<Uuid>) -> ApiResult<KeyPermission> {
    if principal.is_system_admin() {
        return Ok(KeyPermission::Master);
    }
    if let Some(key) = principal.api_key() {
        if !key.permission.has(KeyCapability::ManageKeys) {
            return Err(ApiError::new(ErrorCode::AuthInsufficientRole, "managing API keys needs an Admin key"));
        }
        if key.site_id.is_some() && site_id.is_none() {
            return Err(ApiError::new(
                ErrorCode::ApiKeyPermissionExceeded,
                "a site-scoped key can only manage keys of its own site",
            ));
        }
    } else if site_id.is_none() {
        return Err(ApiError::new(
            ErrorCode::ApiKeyPermissionExceeded,
            "only system admins manage keys that are not scoped to a site",
        ));
    }
    if let Some(site_id) = site_id {
        principal.require(state, site_id, Capability::AdministerSite).await?;
    }
    Ok(KeyPermission::Admin)
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

#[utoipa::path(
    post,
    path = "/api-keys",
    tag = "API keys",
    request_body = CreateApiKey,
    responses(
        (status = 201, body = CreatedApiKey, description = "The key; its secret in `key` is shown only now"),
        (status = "4XX", body = crate::error::Problem, description = "API_KEY_INVALID_PERMISSION, API_KEY_PERMISSION_EXCEEDED, AUTH_*")
    )
)]
pub async fn create_api_key(
    state: web::Data<AppState>,
    principal: Principal,
    body: web::Json<CreateApiKey>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let body = body.into_inner();
    let permission = KeyPermission::parse(&body.permission).ok_or_else(|| {
        ApiError::new(
            ErrorCode::ApiKeyInvalidPermission,
            format!("'{}' is not a permission: use Read, Write, Admin or Master", body.permission),
        )
    })?;
    let mut errors = Vec::new();
    let name = required_text("name", &body.name, 200).map_err(|e| errors.push(e)).ok();
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

    let ceiling = grant_ceiling(&state, &principal, body.site_id).await?;
    if permission > ceiling {
        return Err(ApiError::new(
            ErrorCode::ApiKeyPermissionExceeded,
            format!("you may create keys up to {}, not {}", ceiling.as_str(), permission.as_str()),
        ));
    }
    if let Some(site_id) = body.site_id {
        state.site_state(site_id).await?;
    }

    let txn = crate::db::begin_write(&state.db).await?;
    let new_key = NewKey {
        name,
        permission,
        site_id: body.site_id,
        rate_limit_per_second: body.rate_limit_per_second,
        rate_limit_per_minute: body.rate_limit_per_minute,
        rate_limit_per_hour: body.rate_limit_per_hour,
        rate_limit_per_day: body.rate_limit_per_day,
        created_by: principal.actor_id(),
    };
    let (model, secret) = insert_key(&txn, now, new_key, None).await?;
    let response = ApiKeyResponse::from(&model);
    let entry = AuditEntry {
        actor: &principal.actor_id(),
        action: Action::Create,
        entity_type: "api_key",
        entity_id: model.id.to_string(),
        site_id: model.site_id,
    };
    audit::record(&txn, now, entry, &(), &response).await?;
    txn.commit().await?;
    Ok(HttpResponse::Created().json(CreatedApiKey { api_key: response, key: secret }))
}

#[utoipa::path(
    get,
    path = "/api-keys",
    tag = "API keys",
    params(ListApiKeysQuery),
    responses(
        (status = 200, body = Paginated<ApiKeyResponse>),
        (status = "4XX", body = crate::error::Problem, description = "API_KEY_SITE_FILTER_REQUIRED, API_KEY_INVALID_STATUS, AUTH_*")
    )
)]
pub async fn list_api_keys(
    state: web::Data<AppState>,
    principal: Principal,
    query: web::Query<ListApiKeysQuery>,
) -> ApiResult<HttpResponse> {
    let query = query.into_inner();
    let unscoped_admin =
        principal.api_key().is_some_and(|k| k.site_id.is_none() && k.permission.has(KeyCapability::ManageKeys));
    if !principal.is_system_admin() && !unscoped_admin {
        let site_id = query.site_id.ok_or_else(|| {
            ApiError::new(
                ErrorCode::ApiKeySiteFilterRequired,
                "pass site_id: you administer single sites, not the whole installation",
            )
        })?;
        principal.require(&state, site_id, Capability::AdministerSite).await?;
    }
    let mut select =
        api_key::Entity::find().order_by_desc(api_key::Column::CreatedAt).order_by_asc(api_key::Column::Id);
    select = match query.status.as_deref().unwrap_or("active") {
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
    if let Some(site_id) = query.site_id {
        select = select.filter(api_key::Column::SiteId.eq(site_id));
    }
    if !principal.is_system_admin() {
        select = select.filter(api_key::Column::Permission.ne(KeyPermission::Master.as_str()));
    }
    let page = PageParams { page: query.page, per_page: query.per_page }.resolve();
    let keys = fetch_page(&state.db, select, page).await?;
    Ok(HttpResponse::Ok().json(keys.map(|m| ApiKeyResponse::from(&m))))
}

#[utoipa::path(delete, path = "/api-keys/{id}", tag = "API keys", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Revoked; the key now gets 401 AUTH_API_KEY_INVALID")))]
pub async fn revoke_api_key(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let id = id.into_inner();
    let key =
        api_key::Entity::find_by_id(id).one(&state.db).await?.ok_or_else(|| ApiError::not_found("api_key", id))?;
    let is_master = key.permission == KeyPermission::Master.as_str();
    if is_master && !principal.is_system_admin() {
        return Err(ApiError::new(ErrorCode::AuthInsufficientRole, "only system admins revoke Master keys"));
    }
    grant_ceiling(&state, &principal, key.site_id).await?;
    // Permission checks read through the pool, so the write transaction starts after them.
    let txn = crate::db::begin_write(&state.db).await?;
    if key.revoked_at.is_none() {
        let before = ApiKeyResponse::from(&key);
        let site_id = key.site_id;
        let mut row: api_key::ActiveModel = key.into();
        row.revoked_at = Set(Some(now));
        let revoked = row.update(&txn).await?;
        let entry = AuditEntry {
            actor: &principal.actor_id(),
            action: Action::Revoke,
            entity_type: "api_key",
            entity_id: id.to_string(),
            site_id,
        };
        audit::record(&txn, now, entry, &before, &ApiKeyResponse::from(&revoked)).await?;
    }
    txn.commit().await?;
    state.keys.forget(id);
    state.rate_limits.forget_key(id);
    Ok(HttpResponse::NoContent().finish())
}
