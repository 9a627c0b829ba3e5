//! Global locales: listed to any caller, managed by system admins and
//! unscoped Admin keys.

use actix_web::{web, HttpResponse};
use chrono::Utc;
use plinth_entities::{locale, site_locale};
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::audit::{self, Action, AuditEntry};
use crate::auth::{KeyCapability, Principal};
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError};
use crate::routes::Routes;
use crate::state::AppState;
use crate::values::required_text;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_locales, create_locale, update_locale, delete_locale]);
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct LocaleResponse {
    pub id: Uuid,
    pub code: String,
    pub name: String,
    pub native_name: String,
    /// `ltr` or `rtl`.
    pub direction: String,
    pub created_at: chrono::DateTime<Utc>,
}

impl From<&locale::Model> for LocaleResponse {
    fn from(m: &locale::Model) -> Self {
        Self {
            id: m.id,
            code: m.code.clone(),
            name: m.name.clone(),
            native_name: m.native_name.clone(),
            direction: m.direction.clone(),
            created_at: m.created_at,
        }
    }
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateLocale {
    /// BCP 47 language tag, e.g. `en`, `pt-BR`.
    pub code: String,
    pub name: String,
    /// `name` when omitted.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub native_name: String,
    /// `ltr` (default) or `rtl`, in any letter case.
    #[serde(default)]
    pub direction: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateLocale {
    pub code: Option<String>,
    pub name: Option<String>,
    pub native_name: Option<String>,
    pub direction: Option<String>,
}

/// `ll`, `lll`, optionally followed by `-` subtags of 2 to 8 letters or digits.
fn parse_code(raw: &str) -> Result<String, FieldError> {
    let mut parts = raw.split('-');
    let language = parts.next().unwrap_or_default();
    let ok = (2..=3).contains(&language.len())
        && language.chars().all(|c| c.is_ascii_lowercase())
        && parts.all(|p| (2..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()));
    if ok {
        Ok(raw.to_string())
    } else {
        Err(FieldError::new("code", ErrorCode::ValidationInvalidFormat, "must be a language tag such as en or pt-BR"))
    }
}

fn parse_direction(raw: &str) -> Result<String, FieldError> {
    match raw.to_ascii_lowercase().as_str() {
        direction @ ("ltr" | "rtl") => Ok(direction.to_string()),
        _ => Err(FieldError::new("direction", ErrorCode::ValidationInvalidFormat, "must be ltr or rtl")),
    }
}

fn require_locale_admin(principal: &Principal) -> ApiResult<()> {
    let unscoped_admin_key = principal
        .api_key()
        .is_some_and(|k| k.site_id.is_none() && k.permission.has(KeyCapability::ManageGlobalLocales));
    if principal.is_system_admin() || unscoped_admin_key {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::AuthInsufficientRole,
            "managing global locales needs a system admin or an unscoped Admin key",
        ))
    }
}

fn code_taken(code: &str) -> ApiError {
    ApiError::new(ErrorCode::LocaleCodeTaken, format!("a locale with code '{code}' exists"))
}

fn audit_entry(actor: &str, action: Action, id: Uuid) -> AuditEntry<'_> {
    AuditEntry { actor, action, entity_type: "locale", entity_id: id.to_string(), site_id: None }
}

#[utoipa::path(get, path = "/locales", tag = "Locales",
    responses((status = 200, body = Vec<LocaleResponse>)))]
pub async fn list_locales(state: web::Data<AppState>, _principal: Principal) -> ApiResult<HttpResponse> {
    let all = locale::Entity::find().order_by_asc(locale::Column::Code).all(&state.db).await?;
    Ok(HttpResponse::Ok().json(all.iter().map(LocaleResponse::from).collect::<Vec<_>>()))
}

#[utoipa::path(
    post,
    path = "/locales",
    tag = "Locales",
    request_body = CreateLocale,
    responses(
        (status = 201, body = LocaleResponse),
        (status = 409, body = crate::error::Problem, description = "LOCALE_CODE_TAKEN")
    )
)]
pub async fn create_locale(
    state: web::Data<AppState>,
    principal: Principal,
    body: web::Json<CreateLocale>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    require_locale_admin(&principal)?;
    let body = body.into_inner();
    let mut errors = Vec::new();
    let code = parse_code(&body.code).map_err(|e| errors.push(e)).ok();
    let name = required_text("name", &body.name, 100).map_err(|e| errors.push(e)).ok();
    let native_name = if body.native_name.trim().is_empty() { &body.name } else { &body.native_name };
    let native_name = required_text("native_name", native_name, 100).map_err(|e| errors.push(e)).ok();
    let direction = parse_direction(body.direction.as_deref().unwrap_or("ltr")).map_err(|e| errors.push(e)).ok();
    let (Some(code), Some(name), Some(native_name), Some(direction)) = (code, name, native_name, direction) else {
        return Err(ApiError::validation(errors));
    };
    let txn = crate::db::begin_write(&state.db).await?;
    let id = Uuid::new_v4();
    let created = locale::ActiveModel {
        id: Set(id),
        code: Set(code.clone()),
        name: Set(name),
        native_name: Set(native_name),
        direction: Set(direction),
        created_at: Set(now),
    }
    .insert(&txn)
    .await
    .map_err(on_constraint(Constraint::Unique, || code_taken(&code)))?;
    let response = LocaleResponse::from(&created);
    audit::record(&txn, now, audit_entry(&principal.actor_id(), Action::Create, id), &(), &response).await?;
    txn.commit().await?;
    Ok(HttpResponse::Created().json(response))
}

#[utoipa::path(put, path = "/locales/{id}", tag = "Locales", params(("id" = Uuid, Path)), request_body = UpdateLocale,
    responses((status = 200, body = LocaleResponse)))]
pub async fn update_locale(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: web::Json<UpdateLocale>,
) -> ApiResult<HttpResponse> {
    require_locale_admin(&principal)?;
    let id = id.into_inner();
    let body = body.into_inner();
    let mut errors = Vec::new();
    let code = body.code.as_deref().and_then(|c| parse_code(c).map_err(|e| errors.push(e)).ok());
    let name = body.name.as_deref().and_then(|n| required_text("name", n, 100).map_err(|e| errors.push(e)).ok());
    let native_name =
        body.native_name.as_deref().and_then(|n| required_text("native_name", n, 100).map_err(|e| errors.push(e)).ok());
    let direction = body.direction.as_deref().and_then(|d| parse_direction(d).map_err(|e| errors.push(e)).ok());
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let txn = crate::db::begin_write(&state.db).await?;
    let current = locale::Entity::find_by_id(id).one(&txn).await?.ok_or_else(|| ApiError::not_found("locale", id))?;
    let before = LocaleResponse::from(&current);
    let mut row: locale::ActiveModel = current.into();
    if let Some(code) = &code {
        row.code = Set(code.clone());
    }
    if let Some(name) = name {
        row.name = Set(name);
    }
    if let Some(native_name) = native_name {
        row.native_name = Set(native_name);
    }
    if let Some(direction) = direction {
        row.direction = Set(direction);
    }
    let updated = row
        .update(&txn)
        .await
        .map_err(on_constraint(Constraint::Unique, || code_taken(code.as_deref().unwrap_or_default())))?;
    let after = LocaleResponse::from(&updated);
    audit::record(&txn, state.clock.now(), audit_entry(&principal.actor_id(), Action::Update, id), &before, &after)
        .await?;
    txn.commit().await?;
    // Every site's cached locale list may show this locale.
    state.invalidate_all_sites();
    Ok(HttpResponse::Ok().json(after))
}

#[utoipa::path(delete, path = "/locales/{id}", tag = "Locales", params(("id" = Uuid, Path)),
    responses((status = 204), (status = 409, body = crate::error::Problem, description = "LOCALE_DELETE_IN_USE")))]
pub async fn delete_locale(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    require_locale_admin(&principal)?;
    let id = id.into_inner();
    let txn = crate::db::begin_write(&state.db).await?;
    let current = locale::Entity::find_by_id(id).one(&txn).await?.ok_or_else(|| ApiError::not_found("locale", id))?;
    let in_use = site_locale::Entity::find().filter(site_locale::Column::LocaleId.eq(id)).count(&txn).await?;
    let in_use_error =
        || ApiError::new(ErrorCode::LocaleDeleteInUse, format!("the locale is assigned to {in_use} site(s)"));
    if in_use > 0 {
        return Err(in_use_error());
    }
    locale::Entity::delete_by_id(id).exec(&txn).await.map_err(on_constraint(Constraint::ForeignKey, in_use_error))?;
    audit::record(
        &txn,
        state.clock.now(),
        audit_entry(&principal.actor_id(), Action::Delete, id),
        &LocaleResponse::from(&current),
        &(),
    )
    .await?;
    txn.commit().await?;
    Ok(HttpResponse::NoContent().finish())
}
