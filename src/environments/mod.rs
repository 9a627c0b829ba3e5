//! Environments: a site's deployment targets (`production` by default, `staging`),
//! each with a base URL that content preview links are built on.

use actix_web::web::{self};
use actix_web::HttpResponse;
use chrono::{DateTime, Utc};
use plinth_entities::environment;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::audit::{self, Action, AuditEntry};
use crate::auth::{Capability, Principal};
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError, Problem};
use crate::routes::Routes;
use crate::state::AppState;
use crate::values::{double_option, BaseUrl, Slug};

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_environments, create_environment, get_default_environment, update_environment,
        delete_environment]);
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EnvironmentResponse {
    pub id: Uuid,
    pub site_id: Uuid,
    pub name: String,
    pub base_url: Option<String>,
    pub is_default: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&environment::Model> for EnvironmentResponse {
    fn from(m: &environment::Model) -> Self {
        Self {
            id: m.id,
            site_id: m.site_id,
            name: m.name.clone(),
            base_url: m.base_url.clone(),
            is_default: m.is_default,
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateEnvironment {
    /// Lowercase letters, digits and hyphens, e.g. `staging`.
    pub name: String,
    pub base_url: Option<String>,
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub is_default: bool,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateEnvironment {
    pub name: Option<String>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>)]
    pub base_url: Option<Option<String>>,
    /// `true` makes this the site's default; the previous default stops being one.
    pub is_default: Option<bool>,
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

pub async fn find<C: ConnectionTrait>(db: &C, id: Uuid) -> ApiResult<environment::Model> {
    environment::Entity::find_by_id(id).one(db).await?.ok_or_else(|| ApiError::not_found("environment", id))
}

fn parse_name(raw: &str) -> Result<String, FieldError> {
    Slug::parse("name", raw).map(Slug::into_inner)
}

fn parse_base_url(raw: Option<String>) -> Result<Option<String>, FieldError> {
    raw.filter(|u| !u.trim().is_empty()).map(|u| BaseUrl::parse("base_url", &u).map(BaseUrl::into_inner)).transpose()
}

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

fn audit_entry<'a>(actor: &'a str, action: Action, env: &environment::Model) -> AuditEntry<'a> {
    AuditEntry { actor, action, entity_type: "environment", entity_id: env.id.to_string(), site_id: Some(env.site_id) }
}

#[utoipa::path(get, path = "/sites/{site_id}/environments", tag = "Environments", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<EnvironmentResponse>)))]
pub async fn list_environments(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    state.site_state(site_id).await?;
    let all = environment::Entity::find()
        .filter(environment::Column::SiteId.eq(site_id))
        .order_by_desc(environment::Column::IsDefault)
        .order_by_asc(environment::Column::Name)
        .all(&state.db)
        .await?;
    Ok(HttpResponse::Ok().json(all.iter().map(EnvironmentResponse::from).collect::<Vec<_>>()))
}

#[utoipa::path(
    get,
    path = "/sites/{site_id}/environments/default",
    tag = "Environments",
    params(("site_id" = Uuid, Path)),
    responses(
        (status = 200, body = EnvironmentResponse),
        (status = 404, body = Problem, description = "ENVIRONMENT_NO_DEFAULT")
    )
)]
pub async fn get_default_environment(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    state.site_state(site_id).await?;
    let found = default_of(&state.db, site_id)
        .await?
        .ok_or_else(|| ApiError::new(ErrorCode::EnvironmentNoDefault, "the site has no default environment"))?;
    Ok(HttpResponse::Ok().json(EnvironmentResponse::from(&found)))
}

#[utoipa::path(
    post,
    path = "/sites/{site_id}/environments",
    tag = "Environments",
    params(("site_id" = Uuid, Path)),
    request_body = CreateEnvironment,
    responses((status = 201, body = EnvironmentResponse))
)]
pub async fn create_environment(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: web::Json<CreateEnvironment>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    state.site_state(site_id).await?;
    let body = body.into_inner();
    let mut errors = Vec::new();
    let name = parse_name(&body.name).map_err(|e| errors.push(e)).ok();
    let base_url = parse_base_url(body.base_url).map_err(|e| errors.push(e)).ok().flatten();
    let (Some(name), true) = (name, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let txn = crate::db::begin_write(&state.db).await?;
    if body.is_default {
        clear_default(&txn, site_id).await?;
    }
    let now = state.clock.now();
    let created = environment::ActiveModel {
        id: Set(Uuid::new_v4()),
        site_id: Set(site_id),
        name: Set(name.clone()),
        base_url: Set(base_url),
        is_default: Set(body.is_default),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&txn)
    .await
    .map_err(on_constraint(Constraint::Unique, || name_taken(&name)))?;
    let response = EnvironmentResponse::from(&created);
    audit::record(&txn, now, audit_entry(&principal.actor_id(), Action::Create, &created), &(), &response).await?;
    txn.commit().await?;
    Ok(HttpResponse::Created().json(response))
}

#[utoipa::path(
    put,
    path = "/environments/{id}",
    tag = "Environments",
    params(("id" = Uuid, Path)),
    request_body = UpdateEnvironment,
    responses((status = 200, body = EnvironmentResponse))
)]
pub async fn update_environment(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: web::Json<UpdateEnvironment>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = find(&state.db, id.into_inner()).await?;
    principal.require(&state, current.site_id, Capability::AdministerSite).await?;
    let body = body.into_inner();
    let mut errors = Vec::new();
    let name = body.name.as_deref().and_then(|n| parse_name(n).map_err(|e| errors.push(e)).ok());
    let base_url = body.base_url.map(|u| parse_base_url(u).map_err(|e| errors.push(e)).ok().flatten());
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let before = EnvironmentResponse::from(&current);
    let txn = crate::db::begin_write(&state.db).await?;
    if body.is_default == Some(true) {
        clear_default(&txn, current.site_id).await?;
    }
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
    let updated = row
        .update(&txn)
        .await
        .map_err(on_constraint(Constraint::Unique, || name_taken(name.as_deref().unwrap_or_default())))?;
    let after = EnvironmentResponse::from(&updated);
    audit::record(&txn, now, audit_entry(&principal.actor_id(), Action::Update, &updated), &before, &after).await?;
    txn.commit().await?;
    Ok(HttpResponse::Ok().json(after))
}

#[utoipa::path(
    delete,
    path = "/environments/{id}",
    tag = "Environments",
    params(("id" = Uuid, Path)),
    responses(
        (status = 204, description = "Removed; removing the default leaves the site without one until another is made default")
    )
)]
pub async fn delete_environment(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let current = find(&state.db, id.into_inner()).await?;
    principal.require(&state, current.site_id, Capability::AdministerSite).await?;
    let txn = crate::db::begin_write(&state.db).await?;
    environment::Entity::delete_by_id(current.id).exec(&txn).await?;
    audit::record(
        &txn,
        state.clock.now(),
        audit_entry(&principal.actor_id(), Action::Delete, &current),
        &EnvironmentResponse::from(&current),
        &(),
    )
    .await?;
    txn.commit().await?;
    Ok(HttpResponse::NoContent().finish())
}
