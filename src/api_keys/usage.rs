//! A key's newest requests, as the origin service's admin shows a key's usage:
//! the ones this instance has not written yet, then the stored ones (every
//! instance's, written by the key usage flush, which keeps the newest
//! `KEPT_REQUESTS` per key).

use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use plinth_actors::key_usage::{KeyRequest, KEPT_REQUESTS};
use plinth_entities::api_key_request;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Select};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::routes::managed_key;
use crate::auth::Principal;
use crate::error::ApiResult;
use crate::state::AppState;

/// One request made with the key.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct KeyRequestRecord {
    pub id: Uuid,
    /// The route template the request matched (`/api/v1/sites/{site_id}/blogs`).
    pub endpoint: String,
    pub method: String,
    pub status_code: u16,
    /// From the request's arrival to its response head.
    pub response_time_ms: f64,
    pub created_at: DateTime<Utc>,
}

impl From<KeyRequest> for KeyRequestRecord {
    fn from(r: KeyRequest) -> Self {
        Self {
            id: r.id,
            endpoint: r.endpoint,
            method: r.method,
            status_code: r.status_code,
            response_time_ms: r.response_time_ms,
            created_at: r.at,
        }
    }
}

impl From<api_key_request::Model> for KeyRequestRecord {
    fn from(m: api_key_request::Model) -> Self {
        Self {
            id: m.id,
            endpoint: m.endpoint,
            method: m.method,
            status_code: u16::try_from(m.status_code).unwrap_or_default(),
            response_time_ms: m.response_time_ms,
            created_at: m.created_at,
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UsageQuery {
    /// How many, newest first (default 50, at most 100).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u64>,
    /// How many of the newest to skip (default 0).
    #[param(minimum = 0)]
    pub offset: Option<u64>,
}

const DEFAULT_LIMIT: u64 = 50;

/// The key's stored requests, newest first (`ix_api_key_requests_key_time`).
pub fn stored_query(key: Uuid) -> Select<api_key_request::Entity> {
    api_key_request::Entity::find()
        .filter(api_key_request::Column::ApiKeyId.eq(key))
        .order_by_desc(api_key_request::Column::CreatedAt)
        .order_by_desc(api_key_request::Column::Id)
}

/// List an API key's newest requests
///
/// Who may revoke it (see `DELETE /api-keys/{id}`). The route, method, status and time of each of its newest
/// requests (at most the last 100 are kept), newest first, as a plain array. Errors: AUTH_INSUFFICIENT_ROLE,
/// API_KEY_PERMISSION_EXCEEDED, ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/api-keys/{id}/usage", tag = "API keys", params(("id" = Uuid, Path), UsageQuery),
    responses(
        (status = 200, body = Vec<KeyRequestRecord>),
        (status = "4XX", body = crate::error::Problem, description = "AUTH_*, API_KEY_PERMISSION_EXCEEDED, ENTITY_NOT_FOUND")
    ))]
pub async fn api_key_usage(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    query: web::Query<UsageQuery>,
) -> ApiResult<HttpResponse> {
    let (key, _) = managed_key(&state, &principal, id.into_inner()).await?;
    // Requests are not site writes: never served from the response cache.
    crate::state::responses::depends_on_time();
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, 100);
    let offset = query.offset.unwrap_or(0).min(KEPT_REQUESTS as u64);
    // This instance's unwritten ones are the newest; the stored ones follow.
    let unwritten: Vec<KeyRequestRecord> =
        state.key_usage.unwritten_requests(key.id).into_iter().map(KeyRequestRecord::from).collect();
    let wanted = offset + limit;
    let stored = stored_query(key.id).limit(wanted).all(&state.db).await?;
    let mut records = unwritten;
    let known: std::collections::HashSet<Uuid> = records.iter().map(|r| r.id).collect();
    records.extend(stored.into_iter().filter(|m| !known.contains(&m.id)).map(KeyRequestRecord::from));
    records.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
    let page: Vec<KeyRequestRecord> = records.into_iter().skip(offset as usize).take(limit as usize).collect();
    Ok(HttpResponse::Ok().json(page))
}
