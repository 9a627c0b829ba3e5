//! Redirects of a site: `source_path` → `destination` (a path on the site or an
//! absolute URL) with 301, 302, 307 or 308. A redirect to itself is refused
//! (REDIRECT_SAME_PATH), and so is one that would close a loop through others.

use std::collections::HashMap;

use actix_web::web::{self};
use actix_web::HttpResponse;
use chrono::{DateTime, Utc};
use plinth_entities::redirect;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::audit::{self, Action, AuditEntry};
use crate::auth::{Capability, Principal};
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError, Problem};
use crate::pagination::{fetch_page, PageParams, Paginated};
use crate::routes::Routes;
use crate::state::AppState;

/// How many hops `resolve` follows (and loop detection looks ahead).
const MAX_HOPS: usize = 20;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_redirects, create_redirect, resolve_redirect, get_redirect, update_redirect,
        delete_redirect]);
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RedirectResponse {
    pub id: Uuid,
    pub site_id: Uuid,
    pub source_path: String,
    pub destination: String,
    pub status_code: i32,
    pub is_active: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&redirect::Model> for RedirectResponse {
    fn from(m: &redirect::Model) -> Self {
        Self {
            id: m.id,
            site_id: m.site_id,
            source_path: m.source_path.clone(),
            destination: m.destination.clone(),
            status_code: m.status_code,
            is_active: m.is_active,
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateRedirect {
    /// A path on the site, e.g. `/old-page`.
    pub source_path: String,
    /// A path on the site or an absolute http(s) URL.
    /// `destination_path` is accepted too.
    #[serde(alias = "destination_path")]
    pub destination: String,
    /// 301 (default), 302, 307 or 308.
    pub status_code: Option<i32>,
    pub is_active: Option<bool>,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateRedirect {
    pub source_path: Option<String>,
    #[serde(alias = "destination_path")]
    pub destination: Option<String>,
    pub status_code: Option<i32>,
    pub is_active: Option<bool>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ResolveQuery {
    pub path: String,
}

#[derive(Serialize, ToSchema)]
pub struct ResolvedRedirect {
    pub path: String,
    /// Where the chain of active redirects ends.
    pub destination: String,
    /// The status of the first hop.
    pub status_code: i32,
    pub hops: usize,
}

/// `/a/b/` → `/a/b`; paths only.
fn normalize_path(field: &str, raw: &str) -> Result<String, FieldError> {
    let trimmed = raw.trim();
    if !trimmed.starts_with('/') || trimmed.contains(char::is_whitespace) || trimmed.len() > 500 {
        return Err(FieldError::new(field, ErrorCode::ValidationInvalidFormat, "must be a path starting with /"));
    }
    let path = trimmed.trim_end_matches('/');
    Ok(if path.is_empty() { "/".to_string() } else { path.to_string() })
}

fn normalize_destination(raw: &str) -> Result<String, FieldError> {
    let trimmed = raw.trim();
    if trimmed.starts_with("http://") || trimmed.starts_with("https://") {
        return crate::values::link_target("destination", trimmed, false);
    }
    normalize_path("destination", trimmed)
}

fn check_status(code: i32) -> Result<i32, FieldError> {
    if matches!(code, 301 | 302 | 307 | 308) {
        Ok(code)
    } else {
        Err(FieldError::new("status_code", ErrorCode::ValidationOutOfRange, "must be 301, 302, 307 or 308"))
    }
}

/// The site's active redirects by source path.
async fn active_map<C: ConnectionTrait>(
    db: &C,
    site_id: Uuid,
    except: Option<Uuid>,
) -> ApiResult<HashMap<String, redirect::Model>> {
    let mut query = redirect::Entity::find()
        .filter(redirect::Column::SiteId.eq(site_id))
        .filter(redirect::Column::IsActive.eq(true));
    if let Some(id) = except {
        query = query.filter(redirect::Column::Id.ne(id));
    }
    Ok(query.all(db).await?.into_iter().map(|r| (r.source_path.clone(), r)).collect())
}

/// Refuses `source → destination` when it points at itself or when following
/// the existing redirects from `destination` leads back to `source`.
async fn check_chain<C: ConnectionTrait>(
    db: &C,
    site_id: Uuid,
    source: &str,
    destination: &str,
    except: Option<Uuid>,
) -> ApiResult<()> {
    if source == destination {
        return Err(ApiError::new(ErrorCode::RedirectSamePath, "a redirect cannot point at its own source path"));
    }
    let map = active_map(db, site_id, except).await?;
    let mut at = destination.to_string();
    for _ in 0..MAX_HOPS {
        match map.get(&at) {
            Some(next) if next.destination == source => {
                return Err(ApiError::new(
                    ErrorCode::Conflict,
                    format!("{source} → {destination} would close a redirect loop through {at}"),
                ));
            }
            Some(next) => at = next.destination.clone(),
            None => return Ok(()),
        }
    }
    Err(ApiError::new(ErrorCode::Conflict, "the redirect chain would be longer than 20 hops"))
}

fn audit_entry<'a>(actor: &'a str, action: Action, r: &redirect::Model) -> AuditEntry<'a> {
    AuditEntry { actor, action, entity_type: "redirect", entity_id: r.id.to_string(), site_id: Some(r.site_id) }
}

fn source_taken(path: &str) -> ApiError {
    ApiError::new(ErrorCode::Conflict, format!("a redirect from {path} exists"))
}

async fn find(state: &AppState, principal: &Principal, id: Uuid, capability: Capability) -> ApiResult<redirect::Model> {
    let found =
        redirect::Entity::find_by_id(id).one(&state.db).await?.ok_or_else(|| ApiError::not_found("redirect", id))?;
    principal.require(state, found.site_id, capability).await?;
    Ok(found)
}

#[utoipa::path(
    get,
    path = "/sites/{site_id}/redirects",
    tag = "Redirects",
    params(("site_id" = Uuid, Path), PageParams),
    responses((status = 200, body = Paginated<RedirectResponse>))
)]
pub async fn list_redirects(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    page: web::Query<PageParams>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    let select = redirect::Entity::find()
        .filter(redirect::Column::SiteId.eq(site_id))
        .order_by_asc(redirect::Column::SourcePath);
    let found = fetch_page(&state.db, select, page.resolve()).await?;
    Ok(HttpResponse::Ok().json(found.map(|m| RedirectResponse::from(&m))))
}

#[utoipa::path(
    get,
    path = "/sites/{site_id}/redirects/resolve",
    tag = "Redirects",
    params(("site_id" = Uuid, Path), ResolveQuery),
    responses(
        (status = 200, body = ResolvedRedirect),
        (status = 404, body = Problem, description = "No active redirect from this path")
    )
)]
pub async fn resolve_redirect(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<ResolveQuery>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    let path = normalize_path("path", &query.path).map_err(|e| ApiError::validation(vec![e]))?;
    let map = active_map(&state.db, site_id, None).await?;
    let first = map.get(&path).ok_or_else(|| ApiError::not_found("redirect", &path))?;
    let (mut destination, mut hops) = (first.destination.clone(), 1);
    while let Some(next) = map.get(&destination) {
        if hops >= MAX_HOPS {
            break;
        }
        destination = next.destination.clone();
        hops += 1;
    }
    Ok(HttpResponse::Ok().json(ResolvedRedirect { path, destination, status_code: first.status_code, hops }))
}

#[utoipa::path(get, path = "/redirects/{id}", tag = "Redirects", params(("id" = Uuid, Path)),
    responses((status = 200, body = RedirectResponse)))]
pub async fn get_redirect(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok()
        .json(RedirectResponse::from(&find(&state, &principal, id.into_inner(), Capability::Read).await?)))
}

#[utoipa::path(
    post,
    path = "/sites/{site_id}/redirects",
    tag = "Redirects",
    params(("site_id" = Uuid, Path)),
    request_body = CreateRedirect,
    responses(
        (status = 201, body = RedirectResponse),
        (status = "4XX", body = Problem, description = "REDIRECT_SAME_PATH; 409 for a taken source or a loop")
    )
)]
pub async fn create_redirect(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: web::Json<CreateRedirect>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::EditAnyContent).await?;
    state.site_state(site_id).await?;
    let body = body.into_inner();
    let mut errors = Vec::new();
    let source = normalize_path("source_path", &body.source_path).map_err(|e| errors.push(e)).ok();
    let destination = normalize_destination(&body.destination).map_err(|e| errors.push(e)).ok();
    let status = check_status(body.status_code.unwrap_or(301)).map_err(|e| errors.push(e)).ok();
    let (Some(source), Some(destination), Some(status), true) = (source, destination, status, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let txn = crate::db::begin_write(&state.db).await?;
    check_chain(&txn, site_id, &source, &destination, None).await?;
    let now = state.clock.now();
    let created = redirect::ActiveModel {
        id: Set(Uuid::new_v4()),
        site_id: Set(site_id),
        source_path: Set(source.clone()),
        destination: Set(destination),
        status_code: Set(status),
        is_active: Set(body.is_active.unwrap_or(true)),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&txn)
    .await
    .map_err(on_constraint(Constraint::Unique, || source_taken(&source)))?;
    let response = RedirectResponse::from(&created);
    audit::record(&txn, now, audit_entry(&principal.actor_id(), Action::Create, &created), &(), &response).await?;
    txn.commit().await?;
    Ok(HttpResponse::Created().json(response))
}

#[utoipa::path(
    put,
    path = "/redirects/{id}",
    tag = "Redirects",
    params(("id" = Uuid, Path)),
    request_body = UpdateRedirect,
    responses((status = 200, body = RedirectResponse))
)]
pub async fn update_redirect(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: web::Json<UpdateRedirect>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = find(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    let body = body.into_inner();
    let mut errors = Vec::new();
    let source = match &body.source_path {
        Some(raw) => normalize_path("source_path", raw).map_err(|e| errors.push(e)).ok(),
        None => Some(current.source_path.clone()),
    };
    let destination = match &body.destination {
        Some(raw) => normalize_destination(raw).map_err(|e| errors.push(e)).ok(),
        None => Some(current.destination.clone()),
    };
    let status = check_status(body.status_code.unwrap_or(current.status_code)).map_err(|e| errors.push(e)).ok();
    let (Some(source), Some(destination), Some(status), true) = (source, destination, status, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let active = body.is_active.unwrap_or(current.is_active);
    let txn = crate::db::begin_write(&state.db).await?;
    if active {
        check_chain(&txn, current.site_id, &source, &destination, Some(current.id)).await?;
    }
    let before = RedirectResponse::from(&current);
    let mut row: redirect::ActiveModel = current.into();
    row.source_path = Set(source.clone());
    row.destination = Set(destination);
    row.status_code = Set(status);
    row.is_active = Set(active);
    row.updated_at = Set(now);
    let updated = row.update(&txn).await.map_err(on_constraint(Constraint::Unique, || source_taken(&source)))?;
    let after = RedirectResponse::from(&updated);
    audit::record(&txn, now, audit_entry(&principal.actor_id(), Action::Update, &updated), &before, &after).await?;
    txn.commit().await?;
    Ok(HttpResponse::Ok().json(after))
}

#[utoipa::path(delete, path = "/redirects/{id}", tag = "Redirects", params(("id" = Uuid, Path)),
    responses((status = 204)))]
pub async fn delete_redirect(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let current = find(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    let txn = crate::db::begin_write(&state.db).await?;
    redirect::Entity::delete_by_id(current.id).exec(&txn).await?;
    audit::record(
        &txn,
        state.clock.now(),
        audit_entry(&principal.actor_id(), Action::Delete, &current),
        &RedirectResponse::from(&current),
        &(),
    )
    .await?;
    txn.commit().await?;
    Ok(HttpResponse::NoContent().finish())
}
