//! Locales assigned to a site: add, update, remove (never the last), set default.

use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use plinth_entities::{locale, site_locale};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait, PaginatorTrait,
    QueryFilter, QueryOrder,
};
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::model::SiteLocaleInput;
use crate::audit::{self, Action, AuditEntry};
use crate::auth::{Capability, Principal};
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError};
use crate::state::AppState;

pub use crate::state::SiteLocaleResponse;

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateSiteLocale {
    pub is_active: Option<bool>,
    /// Stored and returned bare (`de`, `de/at`, or empty); `/de` and `/de/` are
    /// accepted too.
    pub url_prefix: Option<String>,
}

/// A locale's path prefix in its canonical, bare form: `de`, `de/at` or empty.
/// `/de`, `de/` and `/de/` are accepted and stored as `de`; segments are
/// lowercase letters, digits, `-` and `_`.
pub(super) fn parse_url_prefix(field: &str, raw: &str) -> Result<String, FieldError> {
    let bare = raw.trim().trim_matches('/');
    let valid = bare.len() <= 50
        && (bare.is_empty()
            || bare.split('/').all(|seg| {
                !seg.is_empty()
                    && seg.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
            }));
    if valid {
        Ok(bare.to_string())
    } else {
        Err(FieldError::new(field, ErrorCode::ValidationInvalidFormat, "must be empty or a prefix such as de or /de"))
    }
}

/// The path a stored prefix puts in front of a site path: `""` or `/de`.
pub fn prefix_path(url_prefix: &str) -> String {
    if url_prefix.is_empty() {
        String::new()
    } else {
        format!("/{url_prefix}")
    }
}

/// Assigns one locale inside an open transaction (site creation and POST).
pub(super) async fn assign<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    site_id: Uuid,
    input: &SiteLocaleInput,
    field: &str,
) -> ApiResult<(site_locale::Model, locale::Model)> {
    let global = locale::Entity::find_by_id(input.locale_id).one(db).await?.ok_or_else(|| {
        ApiError::validation(vec![FieldError::new(
            format!("{field}.locale_id"),
            ErrorCode::ValidationInvalidFormat,
            "no such locale",
        )])
    })?;
    let url_prefix = match &input.url_prefix {
        Some(p) => parse_url_prefix(&format!("{field}.url_prefix"), p).map_err(|e| ApiError::validation(vec![e]))?,
        None if input.is_default => String::new(),
        None => global.code.to_ascii_lowercase(),
    };
    if input.is_default {
        clear_default(db, site_id).await?;
    }
    let assignment = site_locale::ActiveModel {
        site_id: Set(site_id),
        locale_id: Set(input.locale_id),
        is_default: Set(input.is_default),
        is_active: Set(true),
        url_prefix: Set(url_prefix),
        created_at: Set(now),
    }
    .insert(db)
    .await
    .map_err(on_constraint(Constraint::Unique, || {
        ApiError::new(ErrorCode::Conflict, format!("the locale {} is already assigned to this site", global.code))
    }))?;
    Ok((assignment, global))
}

async fn clear_default<C: ConnectionTrait>(db: &C, site_id: Uuid) -> ApiResult<()> {
    site_locale::Entity::update_many()
        .col_expr(site_locale::Column::IsDefault, Expr::value(false))
        .filter(site_locale::Column::SiteId.eq(site_id))
        .exec(db)
        .await?;
    Ok(())
}

async fn find_assignment<C: ConnectionTrait>(
    db: &C,
    site_id: Uuid,
    locale_id: Uuid,
) -> ApiResult<(site_locale::Model, locale::Model)> {
    let (assignment, global) = site_locale::Entity::find_by_id((site_id, locale_id))
        .find_also_related(locale::Entity)
        .one(db)
        .await?
        .ok_or_else(|| ApiError::not_found("site_locale", locale_id))?;
    let global = global.ok_or_else(|| ApiError::not_found("locale", locale_id))?;
    Ok((assignment, global))
}

fn audit_entry<'a>(actor: &'a str, action: Action, site_id: Uuid, locale_id: Uuid) -> AuditEntry<'a> {
    AuditEntry {
        actor,
        action,
        entity_type: "site_locale",
        entity_id: format!("{site_id}:{locale_id}"),
        site_id: Some(site_id),
    }
}

/// Stores a changed assignment with its audit entry and answers with it.
async fn save_update(
    state: &AppState,
    principal: &Principal,
    txn: DatabaseTransaction,
    row: site_locale::ActiveModel,
    global: &locale::Model,
    before: SiteLocaleResponse,
) -> ApiResult<HttpResponse> {
    let updated = row.update(&txn).await?;
    let after = SiteLocaleResponse::new(&updated, global);
    let actor = principal.actor_id();
    let entry = audit_entry(&actor, Action::Update, updated.site_id, updated.locale_id);
    audit::record(&txn, state.clock.now(), entry, &before, &after).await?;
    txn.commit().await?;
    state.invalidate_site(updated.site_id);
    Ok(HttpResponse::Ok().json(after))
}

#[utoipa::path(get, path = "/sites/{site_id}/locales", tag = "Site locales",
    params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<SiteLocaleResponse>)))]
pub async fn list_site_locales(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    Ok(HttpResponse::Ok().json(&state.site_state(site_id).await?.locales))
}

#[utoipa::path(post, path = "/sites/{site_id}/locales", tag = "Site locales",
    params(("site_id" = Uuid, Path)), request_body = SiteLocaleInput,
    responses((status = 201, body = SiteLocaleResponse)))]
pub async fn add_site_locale(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: web::Json<SiteLocaleInput>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    state.site_state(site_id).await?;
    let txn = crate::db::begin_write(&state.db).await?;
    // A site's first locale is its default, whatever the body says.
    let mut input = body.into_inner();
    let existing = site_locale::Entity::find().filter(site_locale::Column::SiteId.eq(site_id)).count(&txn).await?;
    input.is_default |= existing == 0;
    let (assignment, global) = assign(&txn, now, site_id, &input, "body").await?;
    let response = SiteLocaleResponse::new(&assignment, &global);
    audit::record(&txn, now, audit_entry(&principal.actor_id(), Action::Create, site_id, global.id), &(), &response)
        .await?;
    txn.commit().await?;
    state.invalidate_site(site_id);
    Ok(HttpResponse::Created().json(response))
}

#[utoipa::path(put, path = "/sites/{site_id}/locales/{locale_id}", tag = "Site locales",
    params(("site_id" = Uuid, Path), ("locale_id" = Uuid, Path)), request_body = UpdateSiteLocale,
    responses((status = 200, body = SiteLocaleResponse)))]
pub async fn update_site_locale(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<UpdateSiteLocale>,
) -> ApiResult<HttpResponse> {
    let (site_id, locale_id) = path.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    let body = body.into_inner();
    let txn = crate::db::begin_write(&state.db).await?;
    let (assignment, global) = find_assignment(&txn, site_id, locale_id).await?;
    let before = SiteLocaleResponse::new(&assignment, &global);
    if body.is_active == Some(false) && assignment.is_default {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            "the default locale cannot be deactivated; make another locale the default first",
        ));
    }
    let mut row: site_locale::ActiveModel = assignment.into();
    if let Some(active) = body.is_active {
        row.is_active = Set(active);
    }
    if let Some(prefix) = body.url_prefix {
        row.url_prefix = Set(parse_url_prefix("url_prefix", &prefix).map_err(|e| ApiError::validation(vec![e]))?);
    }
    save_update(&state, &principal, txn, row, &global, before).await
}

#[utoipa::path(
    delete,
    path = "/sites/{site_id}/locales/{locale_id}",
    tag = "Site locales",
    params(("site_id" = Uuid, Path), ("locale_id" = Uuid, Path)),
    responses(
        (status = 204, description = "Removed; when it was the default, the oldest remaining locale becomes the default"),
        (status = 409, body = crate::error::Problem, description = "SITE_LOCALE_LAST_LANGUAGE")
    )
)]
pub async fn delete_site_locale(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, Uuid)>,
) -> ApiResult<HttpResponse> {
    let (site_id, locale_id) = path.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    let txn = crate::db::begin_write(&state.db).await?;
    let (assignment, global) = find_assignment(&txn, site_id, locale_id).await?;
    let remaining = site_locale::Entity::find()
        .filter(site_locale::Column::SiteId.eq(site_id))
        .filter(site_locale::Column::LocaleId.ne(locale_id))
        .order_by_asc(site_locale::Column::CreatedAt)
        .one(&txn)
        .await?;
    let Some(successor) = remaining else {
        return Err(ApiError::new(
            ErrorCode::SiteLocaleLastLanguage,
            "a site keeps at least one language; add another before removing this one",
        ));
    };
    let before = SiteLocaleResponse::new(&assignment, &global);
    site_locale::Entity::delete_by_id((site_id, locale_id)).exec(&txn).await?;
    if assignment.is_default {
        let mut row: site_locale::ActiveModel = successor.into();
        row.is_default = Set(true);
        row.is_active = Set(true);
        row.update(&txn).await?;
    }
    audit::record(
        &txn,
        state.clock.now(),
        audit_entry(&principal.actor_id(), Action::Delete, site_id, locale_id),
        &before,
        &(),
    )
    .await?;
    txn.commit().await?;
    state.invalidate_site(site_id);
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(put, path = "/sites/{site_id}/locales/{locale_id}/default", tag = "Site locales",
    params(("site_id" = Uuid, Path), ("locale_id" = Uuid, Path)),
    responses((status = 200, body = SiteLocaleResponse)))]
pub async fn set_default_site_locale(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, Uuid)>,
) -> ApiResult<HttpResponse> {
    let (site_id, locale_id) = path.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    let txn = crate::db::begin_write(&state.db).await?;
    let (assignment, global) = find_assignment(&txn, site_id, locale_id).await?;
    let before = SiteLocaleResponse::new(&assignment, &global);
    clear_default(&txn, site_id).await?;
    let mut row: site_locale::ActiveModel = assignment.into();
    row.is_default = Set(true);
    row.is_active = Set(true);
    save_update(&state, &principal, txn, row, &global, before).await
}
