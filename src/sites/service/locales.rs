//! Locales assigned to a site: add, update, remove (never the last), set default.

use chrono::{DateTime, Utc};
use plinth_entities::{locale, site_locale};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder,
};
use uuid::Uuid;

use crate::audit::{self, Action, Actor, AuditEntry};
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError};
use crate::sites::model::{SiteLocaleInput, UpdateSiteLocale};
use crate::state::{AppState, SiteLocaleResponse};

/// A locale's path prefix in its canonical, bare form: `de`, `de/at` or empty.
/// `/de`, `de/` and `/de/` are accepted and stored as `de`; segments are
/// lowercase letters, digits, `-` and `_`.
fn parse_url_prefix(field: &str, raw: &str) -> Result<String, FieldError> {
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
pub(in crate::sites) async fn assign<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    site_id: Uuid,
    input: &SiteLocaleInput,
    field: &str,
) -> ApiResult<(site_locale::Model, locale::Model)> {
    let global = crate::locales::named(db, &input.locale_id, &format!("{field}.locale_id")).await?;
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
        locale_id: Set(global.id),
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

fn audit_entry<'a>(actor: &'a Actor, action: Action, site_id: Uuid, locale_id: Uuid) -> AuditEntry<'a> {
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
    actor: &Actor,
    now: DateTime<Utc>,
    txn: &crate::db::WriteTxn,
    row: site_locale::ActiveModel,
    global: &locale::Model,
    before: SiteLocaleResponse,
) -> ApiResult<SiteLocaleResponse> {
    let updated = row.update(txn).await?;
    let after = SiteLocaleResponse::new(&updated, global);
    let entry = audit_entry(actor, Action::Update, updated.site_id, updated.locale_id);
    audit::record(txn, now, entry, &before, &after).await?;
    Ok(after)
}

/// Assigns a locale to an existing site; a site's first locale is its default.
pub async fn add(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    site_id: Uuid,
    mut input: SiteLocaleInput,
) -> ApiResult<SiteLocaleResponse> {
    state.site_state(site_id).await?;
    audit::write(&state.db, async |txn| {
        // A site's first locale is its default, whatever the body says.
        let existing = site_locale::Entity::find().filter(site_locale::Column::SiteId.eq(site_id)).count(txn).await?;
        input.is_default |= existing == 0;
        let (assignment, global) = assign(txn, now, site_id, &input, "body").await?;
        let response = SiteLocaleResponse::new(&assignment, &global);
        audit::record(txn, now, audit_entry(actor, Action::Create, site_id, global.id), &(), &response).await?;
        Ok(response)
    })
    .await
}

/// Activates or deactivates an assignment (never the default's) or changes its prefix.
pub async fn update(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    (site_id, locale_id): (Uuid, Uuid),
    body: UpdateSiteLocale,
) -> ApiResult<SiteLocaleResponse> {
    audit::write(&state.db, async |txn| {
        let (assignment, global) = find_assignment(txn, site_id, locale_id).await?;
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
        save_update(actor, now, txn, row, &global, before).await
    })
    .await
}

/// Removes an assignment unless it is the site's last; when it was the default,
/// the oldest remaining locale becomes the default.
pub async fn remove(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    (site_id, locale_id): (Uuid, Uuid),
) -> ApiResult<()> {
    audit::write(&state.db, async |txn| {
        let (assignment, global) = find_assignment(txn, site_id, locale_id).await?;
        let remaining = site_locale::Entity::find()
            .filter(site_locale::Column::SiteId.eq(site_id))
            .filter(site_locale::Column::LocaleId.ne(locale_id))
            .order_by_asc(site_locale::Column::CreatedAt)
            .one(txn)
            .await?;
        let Some(successor) = remaining else {
            return Err(ApiError::new(
                ErrorCode::SiteLocaleLastLanguage,
                "a site keeps at least one language; add another before removing this one",
            ));
        };
        let before = SiteLocaleResponse::new(&assignment, &global);
        site_locale::Entity::delete_by_id((site_id, locale_id)).exec(txn).await?;
        if assignment.is_default {
            let mut row: site_locale::ActiveModel = successor.into();
            row.is_default = Set(true);
            row.is_active = Set(true);
            row.update(txn).await?;
        }
        audit::record(txn, now, audit_entry(actor, Action::Delete, site_id, locale_id), &before, &()).await?;
        Ok(())
    })
    .await
}

/// Makes an assignment the site's only default (and active).
pub async fn set_default(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    (site_id, locale_id): (Uuid, Uuid),
) -> ApiResult<SiteLocaleResponse> {
    audit::write(&state.db, async |txn| {
        let (assignment, global) = find_assignment(txn, site_id, locale_id).await?;
        let before = SiteLocaleResponse::new(&assignment, &global);
        clear_default(txn, site_id).await?;
        let mut row: site_locale::ActiveModel = assignment.into();
        row.is_default = Set(true);
        row.is_active = Set(true);
        save_update(actor, now, txn, row, &global, before).await
    })
    .await
}
