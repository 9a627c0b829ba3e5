//! Forms: create, update (fields and localizations replaced in one
//! transaction), soft delete and the list. Who may do it is answered by
//! `super::access`; changing a form someone else made needs `form:*:any`.

use plinth_entities::{form, form_field};
use sea_orm::sea_query::{Expr, ExprTrait, Func};
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, Select};
use uuid::Uuid;

use super::access::require_editable;
use super::definition::{self, MAX_DESCRIPTION, MAX_NAME, MAX_RETENTION_DAYS};
use super::model::{
    BotProtection, CreateForm, FieldInput, FormListQuery, FormResponse, FormSortBy, SortDir, StorageMode, UpdateForm,
};
use super::{fields, templates};
use crate::audit::{self, Action, Actor, AuditEntry};
use crate::auth::{Granted, SiteGrant};
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError};
use crate::pagination::{fetch_page, PageParams, Paginated};
use crate::site_rows::SiteRow;
use crate::state::AppState;
use crate::values::{required_line, Slug};

impl SiteRow for form::Model {
    type Table = form::Entity;
    const KIND: &'static str = "form";

    fn id(&self) -> Uuid {
        self.id
    }

    fn site_id(&self) -> Uuid {
        self.site_id
    }
}

pub async fn by_slug(state: &AppState, site_id: Uuid, slug: &str) -> ApiResult<form::Model> {
    form::Entity::find()
        .filter(form::Column::SiteId.eq(site_id))
        .filter(form::Column::Slug.eq(slug))
        .filter(form::Column::DeletedAt.is_null())
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found("form", slug))
}

pub fn summary(f: &form::Model) -> FormResponse {
    FormResponse {
        id: f.id,
        site_id: f.site_id,
        slug: f.slug.clone(),
        name: f.name.clone(),
        description: f.description.clone(),
        is_active: f.is_active,
        requires_consent: f.requires_consent,
        bot_protection: BotProtection::parse(&f.bot_protection),
        storage_mode: StorageMode::parse(&f.storage_mode),
        retention_days: f.retention_days,
        fields: None,
        localizations: None,
        created_by: f.created_by.as_ref().map(ToString::to_string),
        created_at: f.created_at,
        updated_at: f.updated_at,
    }
}

/// The form with its fields and localizations.
pub async fn full(state: &AppState, f: &form::Model) -> ApiResult<FormResponse> {
    let site = state.site_state(f.site_id).await?;
    let (field_rows, localizations) = fields::load(&state.db, f.id).await?;
    let mut out = summary(f);
    out.localizations = Some(fields::localization_responses(&site, &field_rows, localizations));
    out.fields = Some(field_rows.iter().map(fields::response).collect());
    Ok(out)
}

fn checked_name(field: &str, raw: &str) -> Result<String, FieldError> {
    required_line(field, raw, MAX_NAME)
}

fn checked_description(raw: Option<String>) -> Result<Option<String>, FieldError> {
    match raw.map(|d| d.trim().to_string()).filter(|d| !d.is_empty()) {
        Some(d) if d.chars().count() > MAX_DESCRIPTION => Err(FieldError::new(
            "description",
            ErrorCode::ValidationOutOfRange,
            format!("must be at most {MAX_DESCRIPTION} characters"),
        )),
        other => Ok(other),
    }
}

fn checked_retention(days: Option<i32>) -> Result<Option<i32>, FieldError> {
    match days {
        Some(d) if !(0..=MAX_RETENTION_DAYS).contains(&d) => Err(FieldError::new(
            "retention_days",
            ErrorCode::ValidationOutOfRange,
            format!("must be between 0 and {MAX_RETENTION_DAYS} (0 or null keeps submissions)"),
        )),
        other => Ok(other),
    }
}

fn collect<T>(result: Result<T, FieldError>, errors: &mut Vec<FieldError>) -> Option<T> {
    result.map_err(|e| errors.push(e)).ok()
}

fn audit_entry<'a>(actor: &'a Actor, action: Action, f: &form::Model) -> AuditEntry<'a> {
    f.audit_entry(actor, action)
}

/// A new form on the grant's site (the caller's capability checked by the handler).
pub async fn create(state: &AppState, site: &SiteGrant, body: CreateForm) -> ApiResult<FormResponse> {
    let site_id = site.site_id();
    let template = match body.template_id {
        Some(id) => Some(templates::definition_of(state, site_id, id).await?),
        None => None,
    };
    let template = template.unwrap_or_default();
    let mut errors = Vec::new();
    let slug = collect(Slug::parse("slug", &body.slug), &mut errors);
    let name = collect(checked_name("name", &body.name), &mut errors);
    let description = collect(checked_description(body.description), &mut errors);
    let retention = collect(checked_retention(body.retention_days.or(template.retention_days)), &mut errors);
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let (Some(slug), Some(name), Some(description), Some(retention)) = (slug, name, description, retention) else {
        return Err(ApiError::internal("form checks passed without values"));
    };
    let field_inputs = definition::check_fields(body.fields.unwrap_or(template.fields))?;
    let site_state = state.site_state(site_id).await?;
    let localizations = fields::check_localizations(&site_state, &field_inputs, body.localizations)?;
    let now = state.clock.now();
    let actor = site.actor();
    let row = form::Model {
        id: Uuid::new_v4(),
        site_id,
        slug: slug.into_inner(),
        name,
        description,
        is_active: body.is_active,
        requires_consent: body.requires_consent.or(template.requires_consent).unwrap_or(false),
        bot_protection: body.bot_protection.or(template.bot_protection).unwrap_or_default().as_str().into(),
        storage_mode: body.storage_mode.or(template.storage_mode).unwrap_or_default().as_str().into(),
        retention_days: retention,
        created_by: Some(actor.clone()),
        created_at: now,
        updated_at: now,
        deleted_at: None,
    };
    audit::write(&state.db, async |txn| {
        let slug_taken = || ApiError::slug_taken("form", &row.slug);
        form::Entity::insert(form::ActiveModel::from(row.clone()))
            .exec_without_returning(txn)
            .await
            .map_err(on_constraint(Constraint::Unique, slug_taken))?;
        let stored = fields::replace_fields(txn, row.id, &field_inputs, &[]).await?;
        fields::replace_localizations(txn, row.id, &stored, localizations.unwrap_or_default()).await?;
        audit::record(txn, now, audit_entry(actor, Action::Create, &row), &serde_json::Value::Null, &summary(&row))
            .await?;
        Ok(())
    })
    .await?;
    full(state, &row).await
}

pub async fn update(state: &AppState, granted: Granted<form::Model>, body: UpdateForm) -> ApiResult<FormResponse> {
    let (current, grant) = granted.into_parts();
    require_editable(&grant, &current)?;
    let mut errors = Vec::new();
    let mut row = current.clone();
    if let Some(slug) = &body.slug {
        if let Some(s) = collect(Slug::parse("slug", slug), &mut errors) {
            row.slug = s.into_inner();
        }
    }
    if let Some(name) = &body.name {
        if let Some(n) = collect(checked_name("name", name), &mut errors) {
            row.name = n;
        }
    }
    if let Some(description) = body.description {
        if let Some(d) = collect(checked_description(description), &mut errors) {
            row.description = d;
        }
    }
    if let Some(days) = body.retention_days {
        if let Some(d) = collect(checked_retention(days), &mut errors) {
            row.retention_days = d;
        }
    }
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    row.is_active = body.is_active.unwrap_or(row.is_active);
    row.requires_consent = body.requires_consent.unwrap_or(row.requires_consent);
    if let Some(level) = body.bot_protection {
        row.bot_protection = level.as_str().into();
    }
    if let Some(mode) = body.storage_mode {
        row.storage_mode = mode.as_str().into();
    }
    let new_fields: Option<Vec<FieldInput>> = body.fields.map(definition::check_fields).transpose()?;
    let site = state.site_state(row.site_id).await?;
    if crate::preconditions::pending() {
        // Its entry records a summary; its `GET` answers the whole form.
        crate::preconditions::compare_with(&full(state, &current).await?);
    }
    audit::write(&state.db, async |txn| {
        let (old_fields, old_localizations) = fields::load(txn, row.id).await?;
        // Localizations name fields by label: check them against the fields the
        // form will have once this update is applied.
        let labels: Vec<FieldInput> = match &new_fields {
            Some(f) => f.clone(),
            None => old_fields.iter().map(|f| fields::response(f).field).collect(),
        };
        let localizations = fields::check_localizations(&site, &labels, body.localizations)?;
        row.updated_at = state.clock.now();
        let slug_taken = || ApiError::slug_taken("form", &row.slug);
        form::Entity::update(form::ActiveModel::from(row.clone()).reset_all())
            .exec(txn)
            .await
            .map_err(on_constraint(Constraint::Unique, slug_taken))?;
        let stored: Vec<form_field::Model> = match &new_fields {
            Some(inputs) => fields::replace_fields(txn, row.id, inputs, &old_localizations.fields).await?,
            None => old_fields,
        };
        if let Some(localizations) = localizations {
            fields::replace_localizations(txn, row.id, &stored, localizations).await?;
        }
        audit::record(
            txn,
            row.updated_at,
            audit_entry(grant.actor(), Action::Update, &row),
            &summary(&current),
            &summary(&row),
        )
        .await?;
        Ok(())
    })
    .await?;
    full(state, &row).await
}

/// Soft delete: the form leaves lists and public pages, its slug is free
/// again, its submissions stay readable by id until purged with the site.
pub async fn delete(state: &AppState, granted: Granted<form::Model>) -> ApiResult<()> {
    let (current, grant) = granted.into_parts();
    require_editable(&grant, &current)?;
    let now = state.clock.now();
    if crate::preconditions::pending() {
        crate::preconditions::compare_with(&full(state, &current).await?);
    }
    audit::write(&state.db, async |txn| {
        let mut row: form::ActiveModel = current.clone().into();
        row.deleted_at = Set(Some(now));
        row.updated_at = Set(now);
        form::Entity::update(row).exec(txn).await?;
        audit::record(
            txn,
            now,
            audit_entry(grant.actor(), Action::Delete, &current),
            &summary(&current),
            &serde_json::Value::Null,
        )
        .await?;
        Ok(())
    })
    .await
}

/// A site's forms in the order asked for (`ix_forms_site_*`).
pub fn list_query(site_id: Uuid, query: &FormListQuery) -> Select<form::Entity> {
    let mut select =
        form::Entity::find().filter(form::Column::SiteId.eq(site_id)).filter(form::Column::DeletedAt.is_null());
    if let Some(search) = query.search.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        let pattern = format!("%{}%", search.to_lowercase().replace(['%', '_'], ""));
        let lower = |col: form::Column| Expr::expr(Func::lower(Expr::col(col)));
        select = select.filter(
            sea_orm::Condition::any()
                .add(lower(form::Column::Name).like(pattern.as_str()))
                .add(lower(form::Column::Slug).like(pattern.as_str())),
        );
    }
    let column = match query.sort_by.unwrap_or_default() {
        FormSortBy::Name => form::Column::Name,
        FormSortBy::Slug => form::Column::Slug,
        FormSortBy::CreatedAt => form::Column::CreatedAt,
        FormSortBy::UpdatedAt => form::Column::UpdatedAt,
    };
    // The id breaks ties in the same direction, as the `ix_forms_site_*` indexes end.
    match query.sort_dir.unwrap_or_default() {
        SortDir::Asc => select.order_by_asc(column).order_by_asc(form::Column::Id),
        SortDir::Desc => select.order_by_desc(column).order_by_desc(form::Column::Id),
    }
}

pub async fn list(state: &AppState, site_id: Uuid, query: FormListQuery) -> ApiResult<Paginated<FormResponse>> {
    let page = PageParams { page: query.page, per_page: query.page_size.or(query.per_page) }.resolve();
    Ok(fetch_page(&state.db, list_query(site_id, &query), page).await?.map(|f| summary(&f)))
}
