//! `/api-keys` endpoints.

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::model::{ApiKeyResponse, BlockApiKey, CreateApiKey, CreatedApiKey, ListApiKeysQuery, UpdateApiKey};
use super::service::{self, KeyFilter};
use crate::auth::{Capability, KeyCapability, KeyGrants, KeyPermission, Principal};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::pagination::{PageParams, Paginated};
use crate::state::AppState;

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

/// Create an API key
///
/// An API key with Admin permission or higher, or a JWT user who administers the key's site (system admins any); nobody
/// creates a key above their own permission. The secret is shown only in this answer. Errors:
/// API_KEY_PERMISSION_EXCEEDED, API_KEY_INVALID_PERMISSION, AUTH_INSUFFICIENT_ROLE, VALIDATION_INVALID_FORMAT,
/// VALIDATION_OUT_OF_RANGE.
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
    body: crate::body::Json<CreateApiKey>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    // The body is checked before the caller's rights: a malformed request is
    // refused the same way whoever sends it.
    let key = service::check_new(body.into_inner(), principal.actor().to_string(), now)?;
    let ceiling = grant_ceiling(&state, &principal, key.site_id).await?;
    if !key.permission.within(ceiling) {
        return Err(ApiError::new(
            ErrorCode::ApiKeyPermissionExceeded,
            format!("you may create keys up to {}, not {}", ceiling.as_str(), key.permission.as_str()),
        ));
    }
    let created = service::create(&state, &principal.actor(), now, key).await?;
    Ok(HttpResponse::Created().json(created))
}

/// List API keys
///
/// An API key with Admin permission or higher, or a JWT user who is admin of the filtered site; a caller who is no
/// system admin must filter by site. Errors: API_KEY_SITE_FILTER_REQUIRED, API_KEY_INVALID_STATUS,
/// API_KEY_INVALID_PERMISSION, AUTH_INSUFFICIENT_ROLE.
#[utoipa::path(
    get,
    path = "/api-keys",
    tag = "API keys",
    params(ListApiKeysQuery),
    responses(
        (status = 200, body = Paginated<ApiKeyResponse>),
        (status = "4XX", body = crate::error::Problem, description = "API_KEY_SITE_FILTER_REQUIRED, API_KEY_INVALID_STATUS, API_KEY_INVALID_PERMISSION, AUTH_*")
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
    // Usage figures (last used, counts) move with every request the keys make,
    // not with writes to the site: never answered from the response cache.
    crate::state::responses::depends_on_time();
    let filter = KeyFilter {
        status: query.status.as_deref(),
        permission: query.permission.as_deref(),
        site_id: query.site_id,
        include_master: principal.is_system_admin(),
    };
    let page = PageParams { page: query.page, per_page: query.per_page }.resolve();
    Ok(HttpResponse::Ok().json(service::list(&state.db, filter, page, state.clock.now()).await?))
}

/// The key `id`, once `principal` may manage it: only system admins manage
/// Master keys; others need what creating a key of its site needs, and a
/// permission at least the key's. Answers the key and the caller's ceiling.
pub(super) async fn managed_key(
    state: &AppState,
    principal: &Principal,
    id: Uuid,
) -> ApiResult<(plinth_entities::api_key::Model, KeyPermission)> {
    let key = service::find(&state.db, id).await?;
    if key.permission == KeyPermission::Master && !principal.is_system_admin() {
        return Err(ApiError::new(ErrorCode::AuthInsufficientRole, "only system admins manage Master keys"));
    }
    let ceiling = grant_ceiling(state, principal, key.site_id).await?;
    if !key.permission.within(ceiling) {
        return Err(ApiError::new(
            ErrorCode::ApiKeyPermissionExceeded,
            format!("you manage keys up to {}, this one is {}", ceiling.as_str(), key.permission.as_str()),
        ));
    }
    Ok((key, ceiling))
}

/// Get an API key
///
/// Who may revoke it (see `DELETE /api-keys/{id}`). Never its secret. Errors: AUTH_INSUFFICIENT_ROLE,
/// API_KEY_PERMISSION_EXCEEDED, ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/api-keys/{id}", tag = "API keys", params(("id" = Uuid, Path)),
    responses(
        (status = 200, body = ApiKeyResponse),
        (status = "4XX", body = crate::error::Problem, description = "AUTH_*, API_KEY_PERMISSION_EXCEEDED, ENTITY_NOT_FOUND")
    ))]
pub async fn get_api_key(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let (key, _) = managed_key(&state, &principal, id.into_inner()).await?;
    // Its status and usage move with time and requests, not with site writes.
    crate::state::responses::depends_on_time();
    Ok(HttpResponse::Ok().json(ApiKeyResponse::at(&key, state.clock.now())))
}

/// Update an API key
///
/// Who may revoke it; a new `permission` up to the caller's own (as on create). Changes name, description, permission,
/// rate limits and expiry; omitted fields stay. Every instance applies the change from the key's next request. Errors:
/// API_KEY_PERMISSION_EXCEEDED, API_KEY_INVALID_PERMISSION, AUTH_INSUFFICIENT_ROLE, ENTITY_NOT_FOUND,
/// VALIDATION_INVALID_FORMAT, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(put, path = "/api-keys/{id}", tag = "API keys", params(("id" = Uuid, Path)), request_body = UpdateApiKey,
    responses(
        (status = 200, body = ApiKeyResponse, description = "The key as changed"),
        (status = "4XX", body = crate::error::Problem, description = "API_KEY_*, AUTH_*, ENTITY_NOT_FOUND, VALIDATION_*")
    ))]
pub async fn update_api_key(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateApiKey>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let (key, ceiling) = managed_key(&state, &principal, id.into_inner()).await?;
    let update = service::check_update(&key, body.into_inner(), now)?;
    if let Some(asked) = update.permission.filter(|asked| !asked.within(ceiling)) {
        return Err(ApiError::new(
            ErrorCode::ApiKeyPermissionExceeded,
            format!("you may give keys up to {}, not {}", ceiling.as_str(), asked.as_str()),
        ));
    }
    let updated = service::update(&state, &principal.actor(), now, key, update).await?;
    Ok(HttpResponse::Ok().json(updated))
}

/// Block an API key
///
/// Who may revoke it. From its next request on, on every instance, the key gets 401 AUTH_API_KEY_INVALID until
/// unblocked; blocking it again replaces the reason. Errors: API_KEY_INVALID_STATUS (a revoked key),
/// AUTH_INSUFFICIENT_ROLE, API_KEY_PERMISSION_EXCEEDED, ENTITY_NOT_FOUND, VALIDATION_*.
#[utoipa::path(post, path = "/api-keys/{id}/block", tag = "API keys", params(("id" = Uuid, Path)), request_body = BlockApiKey,
    responses(
        (status = 200, body = ApiKeyResponse, description = "The key, `blocked`"),
        (status = "4XX", body = crate::error::Problem, description = "API_KEY_INVALID_STATUS, AUTH_*, ENTITY_NOT_FOUND")
    ))]
pub async fn block_api_key(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<BlockApiKey>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let (key, _) = managed_key(&state, &principal, id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(service::block(&state, &principal.actor(), now, key, body.into_inner()).await?))
}

/// Unblock an API key
///
/// Who may revoke it. The key authenticates again (unless it expired meanwhile). Errors: API_KEY_INVALID_STATUS (a
/// revoked key), AUTH_INSUFFICIENT_ROLE, API_KEY_PERMISSION_EXCEEDED, ENTITY_NOT_FOUND.
#[utoipa::path(post, path = "/api-keys/{id}/unblock", tag = "API keys", params(("id" = Uuid, Path)),
    responses(
        (status = 200, body = ApiKeyResponse, description = "The key, no longer blocked"),
        (status = "4XX", body = crate::error::Problem, description = "API_KEY_INVALID_STATUS, AUTH_*, ENTITY_NOT_FOUND")
    ))]
pub async fn unblock_api_key(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let (key, _) = managed_key(&state, &principal, id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(service::unblock(&state, &principal.actor(), now, key).await?))
}

/// Revoke an API key, answering it
///
/// `DELETE /api-keys/{id}` under the origin service's path: the same rights and effect, answering the revoked key
/// instead of 204. Errors: AUTH_INSUFFICIENT_ROLE, API_KEY_PERMISSION_EXCEEDED, ENTITY_NOT_FOUND.
#[utoipa::path(post, path = "/api-keys/{id}/revoke", tag = "API keys", params(("id" = Uuid, Path)),
    responses(
        (status = 200, body = ApiKeyResponse, description = "The key, `revoked`; it now gets 401 AUTH_API_KEY_INVALID"),
        (status = "4XX", body = crate::error::Problem, description = "AUTH_*, ENTITY_NOT_FOUND")
    ))]
pub async fn revoke_api_key_answering(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let (key, _) = managed_key(&state, &principal, id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(service::revoke(&state, &principal.actor(), now, key).await?))
}

/// Revoke an API key
///
/// Admin role on the key's site, or an API key with Admin permission; only system admins revoke Master keys. Errors:
/// AUTH_INSUFFICIENT_ROLE, ENTITY_NOT_FOUND.
#[utoipa::path(delete, path = "/api-keys/{id}", tag = "API keys", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Revoked; the key now gets 401 AUTH_API_KEY_INVALID")))]
pub async fn revoke_api_key(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    // Permission checks read through the pool, so the write transaction starts after them.
    let (key, _) = managed_key(&state, &principal, id.into_inner()).await?;
    service::revoke(&state, &principal.actor(), now, key).await?;
    Ok(HttpResponse::NoContent().finish())
}
