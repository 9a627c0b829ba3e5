//! Redirect rules and writes: paths and destinations are normalized, a redirect
//! that points at itself or closes a loop is refused, and every write records
//! its audit entry in the same transaction.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use plinth_entities::redirect;
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::{json, Value};
use uuid::Uuid;

use super::model::{CreateRedirect, RedirectResponse, ResolvedRedirect, UpdateRedirect};
use crate::audit::{Action, Actor};
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError};
use crate::pagination::{fetch_page, Page, Paginated};
use crate::site_rows::{self, SiteRow};
use crate::state::AppState;

/// How many hops `resolve` follows (and loop detection looks ahead).
const MAX_HOPS: usize = 20;

impl SiteRow for redirect::Model {
    type Table = redirect::Entity;
    const KIND: &'static str = "redirect";

    fn id(&self) -> Uuid {
        self.id
    }

    fn site_id(&self) -> Uuid {
        self.site_id
    }
}

/// `/a/b/` → `/a/b`; paths only.
fn normalize_path(field: &str, raw: &str) -> Result<String, FieldError> {
    let trimmed = raw.trim();
    if !trimmed.starts_with('/') || trimmed.contains(char::is_whitespace) || trimmed.chars().count() > 500 {
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

fn source_taken(path: &str) -> ApiError {
    ApiError::new(ErrorCode::Conflict, format!("a redirect from {path} exists"))
}

pub async fn list(state: &AppState, site_id: Uuid, page: Page) -> ApiResult<Paginated<RedirectResponse>> {
    let select = redirect::Entity::find()
        .filter(redirect::Column::SiteId.eq(site_id))
        .order_by_asc(redirect::Column::SourcePath);
    Ok(fetch_page(&state.db, select, page).await?.map(|m| RedirectResponse::from(&m)))
}

/// Where a request for `raw_path` ends after following the active redirects.
pub async fn resolve(state: &AppState, site_id: Uuid, raw_path: &str) -> ApiResult<ResolvedRedirect> {
    let path = normalize_path("path", raw_path).map_err(|e| ApiError::validation(vec![e]))?;
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
    Ok(ResolvedRedirect { path, destination, status_code: first.status_code, hops })
}

pub async fn create(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    site_id: Uuid,
    body: CreateRedirect,
) -> ApiResult<RedirectResponse> {
    state.site_state(site_id).await?;
    let mut errors = Vec::new();
    let source = normalize_path("source_path", &body.source_path).map_err(|e| errors.push(e)).ok();
    let destination = normalize_destination(&body.destination).map_err(|e| errors.push(e)).ok();
    let status = check_status(body.status_code.unwrap_or(301)).map_err(|e| errors.push(e)).ok();
    let (Some(source), Some(destination), Some(status), true) = (source, destination, status, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let check_loops = async |txn: &_| {
        check_chain(txn, site_id, &source, &destination, None).await?;
        Ok(redirect::ActiveModel {
            id: Set(Uuid::new_v4()),
            site_id: Set(site_id),
            source_path: Set(source.clone()),
            destination: Set(destination.clone()),
            status_code: Set(status),
            is_active: Set(body.is_active.unwrap_or(true)),
            created_at: Set(now),
            updated_at: Set(now),
        })
    };
    let created = site_rows::audited_write(&state.db, now, actor, Action::Create, Value::Null)
        .run_prepared(
            check_loops,
            |m| RedirectResponse::from(m),
            on_constraint(Constraint::Unique, || source_taken(&source)),
        )
        .await?;
    Ok(created)
}

pub async fn update(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    current: redirect::Model,
    body: UpdateRedirect,
) -> ApiResult<RedirectResponse> {
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
    let before = json!(RedirectResponse::from(&current));
    let (site_id, id) = (current.site_id, current.id);
    let mut row: redirect::ActiveModel = current.into();
    row.source_path = Set(source.clone());
    row.destination = Set(destination.clone());
    row.status_code = Set(status);
    row.is_active = Set(active);
    row.updated_at = Set(now);
    // An inactive redirect is not followed, so it cannot close a loop.
    let check_loops = async |txn: &_| {
        if active {
            check_chain(txn, site_id, &source, &destination, Some(id)).await?;
        }
        Ok(row)
    };
    let updated = site_rows::audited_write(&state.db, now, actor, Action::Update, before)
        .run_prepared(
            check_loops,
            |m| RedirectResponse::from(m),
            on_constraint(Constraint::Unique, || source_taken(&source)),
        )
        .await?;
    Ok(updated)
}

pub async fn delete(state: &AppState, actor: &Actor, now: DateTime<Utc>, current: redirect::Model) -> ApiResult<()> {
    site_rows::audited_write(&state.db, now, actor, Action::Delete, json!(RedirectResponse::from(&current)))
        .remove(current)
        .await
}
