//! Global locales: the rules of their codes and directions, and their writes,
//! each in one transaction with its audit entry.

use chrono::{DateTime, Utc};
use plinth_entities::{locale, site_locale};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, DatabaseConnection, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder,
};
use uuid::Uuid;

use super::model::{CreateLocale, LocaleResponse, UpdateLocale};
use crate::audit::{self, Action, Actor, AuditEntry};
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError};
use crate::values::required_line;

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

fn code_taken(code: &str) -> ApiError {
    ApiError::new(ErrorCode::LocaleCodeTaken, format!("a locale with code '{code}' exists"))
}

fn audit_entry(actor: &Actor, action: Action, id: Uuid) -> AuditEntry<'_> {
    AuditEntry { actor, action, entity_type: "locale", entity_id: id.to_string(), site_id: None }
}

/// Every locale, by code.
pub async fn list(db: &DatabaseConnection) -> ApiResult<Vec<LocaleResponse>> {
    let all = locale::Entity::find().order_by_asc(locale::Column::Code).all(db).await?;
    Ok(all.iter().map(LocaleResponse::from).collect())
}

pub async fn create(
    db: &crate::db::Db,
    actor: &Actor,
    now: DateTime<Utc>,
    body: CreateLocale,
) -> ApiResult<LocaleResponse> {
    let mut errors = Vec::new();
    let code = parse_code(&body.code).map_err(|e| errors.push(e)).ok();
    let name = required_line("name", &body.name, 100).map_err(|e| errors.push(e)).ok();
    let native_name = if body.native_name.trim().is_empty() { &body.name } else { &body.native_name };
    let native_name = required_line("native_name", native_name, 100).map_err(|e| errors.push(e)).ok();
    let direction = parse_direction(body.direction.as_deref().unwrap_or("ltr")).map_err(|e| errors.push(e)).ok();
    let (Some(code), Some(name), Some(native_name), Some(direction)) = (code, name, native_name, direction) else {
        return Err(ApiError::validation(errors));
    };
    audit::write(db, async |txn| {
        let id = Uuid::new_v4();
        let created = locale::ActiveModel {
            id: Set(id),
            code: Set(code.clone()),
            name: Set(name),
            native_name: Set(native_name),
            direction: Set(direction),
            created_at: Set(now),
        }
        .insert(txn)
        .await
        .map_err(on_constraint(Constraint::Unique, || code_taken(&code)))?;
        let response = LocaleResponse::from(&created);
        audit::record(txn, now, audit_entry(actor, Action::Create, id), &(), &response).await?;
        Ok(response)
    })
    .await
}

pub async fn update(
    db: &crate::db::Db,
    actor: &Actor,
    now: DateTime<Utc>,
    id: Uuid,
    body: UpdateLocale,
) -> ApiResult<LocaleResponse> {
    let mut errors = Vec::new();
    let code = body.code.as_deref().and_then(|c| parse_code(c).map_err(|e| errors.push(e)).ok());
    let name = body.name.as_deref().and_then(|n| required_line("name", n, 100).map_err(|e| errors.push(e)).ok());
    let native_name =
        body.native_name.as_deref().and_then(|n| required_line("native_name", n, 100).map_err(|e| errors.push(e)).ok());
    let direction = body.direction.as_deref().and_then(|d| parse_direction(d).map_err(|e| errors.push(e)).ok());
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    audit::write(db, async |txn| {
        let current =
            locale::Entity::find_by_id(id).one(txn).await?.ok_or_else(|| ApiError::not_found("locale", id))?;
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
            .update(txn)
            .await
            .map_err(on_constraint(Constraint::Unique, || code_taken(code.as_deref().unwrap_or_default())))?;
        let after = LocaleResponse::from(&updated);
        audit::record(txn, now, audit_entry(actor, Action::Update, id), &before, &after).await?;
        Ok(after)
    })
    .await
}

/// Deletes a locale that no site uses.
pub async fn delete(db: &crate::db::Db, actor: &Actor, now: DateTime<Utc>, id: Uuid) -> ApiResult<()> {
    audit::write(db, async |txn| {
        let current =
            locale::Entity::find_by_id(id).one(txn).await?.ok_or_else(|| ApiError::not_found("locale", id))?;
        let in_use = site_locale::Entity::find().filter(site_locale::Column::LocaleId.eq(id)).count(txn).await?;
        if in_use > 0 {
            let detail = format!("the locale is assigned to {in_use} site(s)");
            return Err(ApiError::new(ErrorCode::LocaleDeleteInUse, detail));
        }
        // No site has it any more, but translations made while one did still
        // refer to it (their foreign keys restrict the delete).
        let translated = || {
            ApiError::new(
                ErrorCode::LocaleDeleteInUse,
                "translations (content, taxonomy, forms or media) still use the locale",
            )
        };
        locale::Entity::delete_by_id(id).exec(txn).await.map_err(on_constraint(Constraint::ForeignKey, translated))?;
        audit::record(txn, now, audit_entry(actor, Action::Delete, id), &LocaleResponse::from(&current), &()).await?;
        Ok(())
    })
    .await
}

/// The global locale `name` names (its UUID, or its code in any letter
/// case), or 422 on `field` saying where the locales are listed.
pub async fn named(
    db: &impl sea_orm::ConnectionTrait,
    name: &crate::values::LocaleName,
    field: &str,
) -> ApiResult<locale::Model> {
    use sea_orm::sea_query::{Expr, ExprTrait, Func};
    let found = match name {
        crate::values::LocaleName::Id(id) => locale::Entity::find_by_id(*id),
        crate::values::LocaleName::Code(code) => locale::Entity::find()
            .filter(Expr::expr(Func::lower(Expr::col(locale::Column::Code))).eq(code.to_lowercase())),
    };
    found.one(db).await?.ok_or_else(|| {
        ApiError::validation(vec![crate::error::FieldError::new(
            field,
            crate::error::ErrorCode::ValidationInvalidFormat,
            format!("no locale `{name}`; GET /locales lists them (a code or a UUID), POST /locales adds one"),
        )])
    })
}
