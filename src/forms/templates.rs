//! Form templates: reusable definitions (fields and settings) of a site, named
//! uniquely per site; `POST /sites/{site_id}/forms` may start from one.

use plinth_entities::form_template;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

use super::definition;
use super::definition::{MAX_DESCRIPTION, MAX_NAME, MAX_RETENTION_DAYS};
use super::model::{CreateTemplate, TemplateDefinition, TemplateResponse, UpdateTemplate};
use crate::audit::{self, Action};
use crate::auth::{Granted, SiteGrant};
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError};
use crate::site_rows::SiteRow;
use crate::state::AppState;
use crate::values::required_line;

impl SiteRow for form_template::Model {
    type Table = form_template::Entity;
    const KIND: &'static str = "form_template";

    fn id(&self) -> Uuid {
        self.id
    }

    fn site_id(&self) -> Uuid {
        self.site_id
    }
}

fn definition_from(row: &form_template::Model) -> TemplateDefinition {
    serde_json::from_value(row.definition.clone()).unwrap_or_default()
}

pub fn response(row: &form_template::Model) -> TemplateResponse {
    TemplateResponse {
        id: row.id,
        site_id: row.site_id,
        name: row.name.clone(),
        description: row.description.clone(),
        definition: definition_from(row),
        created_at: row.created_at,
        updated_at: row.updated_at,
    }
}

/// The definition of the site's template `id` (a template of another site is unknown here).
pub async fn definition_of(state: &AppState, site_id: Uuid, id: Uuid) -> ApiResult<TemplateDefinition> {
    form_template::Entity::find_by_id(id)
        .filter(form_template::Column::SiteId.eq(site_id))
        .one(&state.db)
        .await?
        .map(|t| definition_from(&t))
        .ok_or_else(|| ApiError::not_found("form_template", id))
}

pub async fn list(state: &AppState, site_id: Uuid) -> ApiResult<Vec<TemplateResponse>> {
    let rows = form_template::Entity::find()
        .filter(form_template::Column::SiteId.eq(site_id))
        .order_by_asc(form_template::Column::Name)
        .all(&state.db)
        .await?;
    Ok(rows.iter().map(response).collect())
}

fn checked(
    name: &str,
    description: Option<String>,
    mut def: TemplateDefinition,
) -> ApiResult<(String, Option<String>, TemplateDefinition)> {
    let mut errors = Vec::new();
    let name = required_line("name", name, MAX_NAME).map_err(|e| errors.push(e)).unwrap_or_default();
    let description = description.map(|d| d.trim().to_string()).filter(|d| !d.is_empty());
    if description.as_ref().is_some_and(|d| d.chars().count() > MAX_DESCRIPTION) {
        errors.push(FieldError::new("description", ErrorCode::ValidationOutOfRange, "too long"));
    }
    if def.retention_days.is_some_and(|d| !(0..=MAX_RETENTION_DAYS).contains(&d)) {
        errors.push(FieldError::new(
            "retention_days",
            ErrorCode::ValidationOutOfRange,
            format!("must be between 0 and {MAX_RETENTION_DAYS}"),
        ));
    }
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    def.fields = definition::check_fields(def.fields)?;
    Ok((name, description, def))
}

fn name_taken(name: &str) -> ApiError {
    ApiError::new(ErrorCode::FormTemplateNameExists, format!("this site already has a form template named '{name}'"))
}

/// A new template on the grant's site (the caller's capability checked by the handler).
pub async fn create(state: &AppState, site: &SiteGrant, body: CreateTemplate) -> ApiResult<TemplateResponse> {
    let (name, description, def) = checked(&body.name, body.description, body.definition)?;
    let now = state.clock.now();
    let row = form_template::Model {
        id: Uuid::new_v4(),
        site_id: site.site_id(),
        name,
        description,
        definition: serde_json::to_value(&def).map_err(ApiError::internal)?,
        created_by: Some(site.actor().clone()),
        created_at: now,
        updated_at: now,
    };
    let actor = site.actor();
    audit::write(&state.db, async |txn| {
        form_template::Entity::insert(form_template::ActiveModel::from(row.clone()))
            .exec_without_returning(txn)
            .await
            .map_err(on_constraint(Constraint::Unique, || name_taken(&row.name)))?;
        audit::record(txn, now, row.audit_entry(actor, Action::Create), &serde_json::Value::Null, &response(&row))
            .await?;
        Ok(response(&row))
    })
    .await
}

pub async fn update(
    state: &AppState,
    granted: Granted<form_template::Model>,
    body: UpdateTemplate,
) -> ApiResult<TemplateResponse> {
    let (current, site) = granted.into_parts();
    let mut def = definition_from(&current);
    if let Some(fields) = body.fields {
        def.fields = fields;
    }
    def.requires_consent = body.requires_consent.or(def.requires_consent);
    def.bot_protection = body.bot_protection.or(def.bot_protection);
    def.storage_mode = body.storage_mode.or(def.storage_mode);
    if let Some(days) = body.retention_days {
        def.retention_days = days;
    }
    let description = body.description.unwrap_or_else(|| current.description.clone());
    let (name, description, def) = checked(body.name.as_deref().unwrap_or(&current.name), description, def)?;
    let mut row = current.clone();
    row.name = name;
    row.description = description;
    row.definition = serde_json::to_value(&def).map_err(ApiError::internal)?;
    row.updated_at = state.clock.now();
    let actor = site.actor();
    audit::write(&state.db, async |txn| {
        form_template::Entity::update(form_template::ActiveModel::from(row.clone()).reset_all())
            .exec(txn)
            .await
            .map_err(on_constraint(Constraint::Unique, || name_taken(&row.name)))?;
        audit::record(
            txn,
            row.updated_at,
            row.audit_entry(actor, Action::Update),
            &response(&current),
            &response(&row),
        )
        .await?;
        Ok(response(&row))
    })
    .await
}

pub async fn delete(state: &AppState, granted: Granted<form_template::Model>) -> ApiResult<()> {
    let (current, site) = granted.into_parts();
    let actor = site.actor();
    let now = state.clock.now();
    audit::write(&state.db, async |txn| {
        form_template::Entity::delete_by_id(current.id).exec(txn).await?;
        audit::record(
            txn,
            now,
            current.audit_entry(actor, Action::Delete),
            &response(&current),
            &serde_json::Value::Null,
        )
        .await?;
        Ok(())
    })
    .await
}
