//! Environment rules and writes: names are slugs unique on the site, at most
//! one environment is the default, and every write records its audit entry in
//! the same transaction.

use chrono::{DateTime, Utc};
use plinth_entities::{environment, site};
use sea_orm::sea_query::{Expr, Query};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
};
use serde_json::{json, Value};
use uuid::Uuid;

use super::model::{CreateEnvironment, EnvironmentResponse, UpdateEnvironment};
use crate::audit::{Action, Actor};
use crate::auth::Visibility;
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError};
use crate::site_rows::{self, SiteRow};
use crate::state::AppState;
use crate::values::{BaseUrl, Slug};

impl SiteRow for environment::Model {
    type Table = environment::Entity;
    const KIND: &'static str = "environment";

    fn id(&self) -> Uuid {
        self.id
    }

    fn site_id(&self) -> Uuid {
        self.site_id
    }
}

/// A new site's environments: `production` (default, on the site's URL) and `staging`.
pub async fn seed<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    site_id: Uuid,
    site_base_url: Option<String>,
) -> ApiResult<()> {
    for (name, base_url, is_default) in [("production", site_base_url, true), ("staging", None, false)] {
        environment::ActiveModel {
            id: Set(Uuid::new_v4()),
            site_id: Set(site_id),
            name: Set(name.to_string()),
            base_url: Set(base_url),
            is_default: Set(is_default),
            created_at: Set(now),
            updated_at: Set(now),
        }
        .insert(db)
        .await?;
    }
    Ok(())
}

/// The site's default environment, if it has one.
pub async fn default_of<C: ConnectionTrait>(db: &C, site_id: Uuid) -> ApiResult<Option<environment::Model>> {
    Ok(environment::Entity::find()
        .filter(environment::Column::SiteId.eq(site_id))
        .filter(environment::Column::IsDefault.eq(true))
        .one(db)
        .await?)
}

fn parse_name(raw: &str) -> Result<String, FieldError> {
    Slug::parse("name", raw).map(Slug::into_inner)
}

fn parse_base_url(raw: Option<String>) -> Result<Option<String>, FieldError> {
    raw.filter(|u| !u.trim().is_empty()).map(|u| BaseUrl::parse("base_url", &u).map(BaseUrl::into_inner)).transpose()
}

/// Before another environment becomes the default, the current one stops being
/// it: a site has at most one.
async fn clear_default<C: ConnectionTrait>(db: &C, site_id: Uuid) -> ApiResult<()> {
    environment::Entity::update_many()
        .col_expr(environment::Column::IsDefault, Expr::value(false))
        .filter(environment::Column::SiteId.eq(site_id))
        .exec(db)
        .await?;
    Ok(())
}

fn name_taken(name: &str) -> ApiError {
    ApiError::new(ErrorCode::Conflict, format!("the site already has an environment named '{name}'"))
}

pub async fn list(state: &AppState, site_id: Uuid) -> ApiResult<Vec<EnvironmentResponse>> {
    state.site_state(site_id).await?;
    let all = environment::Entity::find()
        .filter(environment::Column::SiteId.eq(site_id))
        .order_by_desc(environment::Column::IsDefault)
        .order_by_asc(environment::Column::Name)
        .all(&state.db)
        .await?;
    Ok(all.iter().map(EnvironmentResponse::from).collect())
}

/// The most environments [`list_visible`] answers.
pub const MAX_VISIBLE: u64 = 500;

/// The environments of every live site `visibility` lets the caller see, by site and name
/// (`ux_environments_site_name`), at most [`MAX_VISIBLE`]. The caller's sites
/// stay a subquery, never one bound value per site.
pub async fn list_visible(state: &AppState, visibility: &Visibility) -> ApiResult<Vec<EnvironmentResponse>> {
    let mut sites = Query::select()
        .column(site::Column::Id)
        .from(site::Entity)
        .and_where(site::Column::DeletedAt.is_null())
        .to_owned();
    if let Some(visible) = visibility.sites_condition() {
        sites.and_where(visible);
    }
    let found = environment::Entity::find()
        .filter(environment::Column::SiteId.in_subquery(sites))
        .order_by_asc(environment::Column::SiteId)
        .order_by_asc(environment::Column::Name)
        .limit(MAX_VISIBLE)
        .all(&state.db)
        .await?;
    Ok(found.iter().map(EnvironmentResponse::from).collect())
}

/// The site's default environment, ENVIRONMENT_NO_DEFAULT when it has none.
pub async fn require_default(state: &AppState, site_id: Uuid) -> ApiResult<EnvironmentResponse> {
    state.site_state(site_id).await?;
    let found = default_of(&state.db, site_id)
        .await?
        .ok_or_else(|| ApiError::new(ErrorCode::EnvironmentNoDefault, "the site has no default environment"))?;
    Ok(EnvironmentResponse::from(&found))
}

pub async fn create(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    site_id: Uuid,
    body: CreateEnvironment,
) -> ApiResult<EnvironmentResponse> {
    state.site_state(site_id).await?;
    let mut errors = Vec::new();
    let name = parse_name(&body.name).map_err(|e| errors.push(e)).ok();
    let base_url = parse_base_url(body.base_url).map_err(|e| errors.push(e)).ok().flatten();
    let (Some(name), true) = (name, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let row = environment::ActiveModel {
        id: Set(Uuid::new_v4()),
        site_id: Set(site_id),
        name: Set(name.clone()),
        base_url: Set(base_url),
        is_default: Set(body.is_default),
        created_at: Set(now),
        updated_at: Set(now),
    };
    let write = site_rows::audited_write(&state.db, now, actor, Action::Create, Value::Null);
    store(write, site_id, body.is_default, row, &name).await
}

/// Stores an environment through `write`; one that becomes the site's default
/// first takes the flag from the old default, in the same transaction.
async fn store<'a, F>(
    write: crate::audit::Write<'a, F>,
    site_id: Uuid,
    make_default: bool,
    row: environment::ActiveModel,
    name: &str,
) -> ApiResult<EnvironmentResponse>
where
    F: for<'m> FnOnce(&'m environment::Model) -> crate::audit::AuditEntry<'a>,
{
    let prepare = async |txn: &crate::db::WriteTxn| {
        if make_default {
            clear_default(txn, site_id).await?;
        }
        Ok(row)
    };
    let taken = on_constraint(Constraint::Unique, || name_taken(name));
    write.run_prepared(prepare, |m| EnvironmentResponse::from(m), taken).await
}

pub async fn update(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    current: environment::Model,
    body: UpdateEnvironment,
) -> ApiResult<EnvironmentResponse> {
    let mut errors = Vec::new();
    let name = body.name.as_deref().and_then(|n| parse_name(n).map_err(|e| errors.push(e)).ok());
    let base_url = body.base_url.map(|u| parse_base_url(u).map_err(|e| errors.push(e)).ok().flatten());
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let before = json!(EnvironmentResponse::from(&current));
    let (site_id, make_default) = (current.site_id, body.is_default == Some(true));
    let mut row: environment::ActiveModel = current.into();
    if let Some(name) = &name {
        row.name = Set(name.clone());
    }
    if let Some(base_url) = base_url {
        row.base_url = Set(base_url);
    }
    if let Some(is_default) = body.is_default {
        row.is_default = Set(is_default);
    }
    row.updated_at = Set(now);
    let write = site_rows::audited_write(&state.db, now, actor, Action::Update, before);
    store(write, site_id, make_default, row, name.as_deref().unwrap_or_default()).await
}

/// Removes an environment; removing the default leaves the site without one.
pub async fn delete(state: &AppState, actor: &Actor, now: DateTime<Utc>, current: environment::Model) -> ApiResult<()> {
    site_rows::audited_write(&state.db, now, actor, Action::Delete, json!(EnvironmentResponse::from(&current)))
        .remove(current)
        .await
}
