//! A form's fields and localizations: loading them in two queries, replacing
//! them inside the caller's transaction, and checking localizations against
//! the site's locales and the form's field labels.

use std::collections::{HashMap, HashSet};

use plinth_entities::{form_field, form_field_localization, form_localization};
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::Value;
use uuid::Uuid;

use super::model::{
    FieldInput, FieldLocalizationResponse, FieldResponse, FormLocalizationInput, FormLocalizationResponse,
};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::state::SiteState;
use crate::values::required_line;

use super::definition::{MAX_DESCRIPTION, MAX_NAME, MAX_TEXT};

/// A form's localizations as stored, field texts keyed by the field's label.
#[derive(Debug, Default)]
pub struct StoredLocalizations {
    pub form: Vec<form_localization::Model>,
    pub fields: Vec<(String, form_field_localization::Model)>,
}

/// The fields (in display order) and localizations of a form.
pub async fn load<C: ConnectionTrait>(
    db: &C,
    form_id: Uuid,
) -> ApiResult<(Vec<form_field::Model>, StoredLocalizations)> {
    let fields = form_field::Entity::find()
        .filter(form_field::Column::FormId.eq(form_id))
        .order_by_asc(form_field::Column::DisplayOrder)
        .order_by_asc(form_field::Column::Label)
        .all(db)
        .await?;
    let form = form_localization::Entity::find().filter(form_localization::Column::FormId.eq(form_id)).all(db).await?;
    let labels: HashMap<Uuid, &str> = fields.iter().map(|f| (f.id, f.label.as_str())).collect();
    let field_rows = if fields.is_empty() {
        Vec::new()
    } else {
        form_field_localization::Entity::find()
            .filter(form_field_localization::Column::FormFieldId.is_in(labels.keys().copied()))
            .all(db)
            .await?
    };
    let fields_localized = field_rows
        .into_iter()
        .filter_map(|l| labels.get(&l.form_field_id).map(|label| (label.to_string(), l)))
        .collect();
    Ok((fields, StoredLocalizations { form, fields: fields_localized }))
}

pub fn response(f: &form_field::Model) -> FieldResponse {
    FieldResponse {
        id: f.id,
        field: FieldInput {
            label: f.label.clone(),
            field_type: f.field_type,
            required: f.required,
            options: f.options.as_ref().and_then(|o| serde_json::from_value(o.clone()).ok()),
            min_length: f.min_length.and_then(|v| u32::try_from(v).ok()),
            max_length: f.max_length.and_then(|v| u32::try_from(v).ok()),
            pattern: f.pattern.clone(),
            min: f.min,
            max: f.max,
            placeholder: f.placeholder.clone(),
            help_text: f.help_text.clone(),
            display_order: Some(f.display_order),
        },
    }
}

fn to_i32(v: Option<u32>) -> Option<i32> {
    v.map(|v| i32::try_from(v).unwrap_or(i32::MAX))
}

/// Replaces the form's fields with `inputs`. Field texts of `keep` whose label
/// survives are carried over to the new field (an update that sends fields
/// but no localizations leaves the localizations as they were).
pub async fn replace_fields<C: ConnectionTrait>(
    db: &C,
    form_id: Uuid,
    inputs: &[FieldInput],
    keep: &[(String, form_field_localization::Model)],
) -> ApiResult<Vec<form_field::Model>> {
    form_field::Entity::delete_many().filter(form_field::Column::FormId.eq(form_id)).exec(db).await?;
    let rows: Vec<form_field::Model> = inputs
        .iter()
        .enumerate()
        .map(|(i, f)| form_field::Model {
            id: Uuid::new_v4(),
            form_id,
            label: f.label.clone(),
            field_type: f.field_type,
            required: f.required,
            options: f.options.as_ref().map(|o| Value::from(o.clone())),
            min_length: to_i32(f.min_length),
            max_length: to_i32(f.max_length),
            pattern: f.pattern.clone(),
            min: f.min,
            max: f.max,
            placeholder: f.placeholder.clone(),
            help_text: f.help_text.clone(),
            display_order: f.display_order.unwrap_or(i as i32),
        })
        .collect();
    if !rows.is_empty() {
        form_field::Entity::insert_many(rows.iter().cloned().map(form_field::ActiveModel::from))
            .exec_without_returning(db)
            .await?;
    }
    let ids: HashMap<&str, Uuid> = rows.iter().map(|f| (f.label.as_str(), f.id)).collect();
    let carried: Vec<form_field_localization::ActiveModel> = keep
        .iter()
        .filter_map(|(label, l)| {
            let id = ids.get(label.as_str())?;
            let mut l = l.clone();
            l.form_field_id = *id;
            Some(l.into())
        })
        .collect();
    if !carried.is_empty() {
        form_field_localization::Entity::insert_many(carried).exec_without_returning(db).await?;
    }
    Ok(rows)
}

/// A localization that passed its checks, with its locale resolved.
#[derive(Debug)]
pub struct CheckedLocalization {
    pub locale_id: Uuid,
    pub name: String,
    pub description: Option<String>,
    pub consent_text: Option<String>,
    pub fields: Vec<FieldTexts>,
}

/// A field's texts in one locale, the field named by its label.
#[derive(Debug)]
pub struct FieldTexts {
    pub label: String,
    pub display_label: Option<String>,
    pub placeholder: Option<String>,
    pub help_text: Option<String>,
}

fn trimmed(v: Option<String>) -> Option<String> {
    v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

/// Checks `input` (when sent) against the site's locales and the labels of
/// `fields`. A locale may be named by id or code.
pub fn check_localizations(
    site: &SiteState,
    fields: &[FieldInput],
    input: Option<Vec<FormLocalizationInput>>,
) -> ApiResult<Option<Vec<CheckedLocalization>>> {
    let Some(input) = input else { return Ok(None) };
    let labels: HashSet<&str> = fields.iter().map(|f| f.label.as_str()).collect();
    let mut errors = Vec::new();
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(input.len());
    for (i, l) in input.into_iter().enumerate() {
        let at = |name: &str| format!("localizations[{i}].{name}");
        let wanted = l.locale_id.as_deref().or(l.locale.as_deref()).unwrap_or("").trim().to_string();
        let named = crate::values::LocaleName::parse(&wanted);
        let Some(locale) = named.and_then(|name| site.locales.iter().find(|sl| name.names(sl.locale_id, &sl.code)))
        else {
            errors.push(FieldError::new(
                at("locale_id"),
                ErrorCode::ValidationInvalidFormat,
                "must name one of the site's locales (by id or code)",
            ));
            continue;
        };
        if !seen.insert(locale.locale_id) {
            errors.push(FieldError::new(at("locale_id"), ErrorCode::ValidationInvalidFormat, "locale given twice"));
        }
        let name = required_line(&at("name"), &l.name, MAX_NAME).map_err(|e| errors.push(e)).unwrap_or_default();
        let long = [&l.description, &l.consent_text]
            .iter()
            .any(|t| t.as_ref().is_some_and(|t| t.chars().count() > MAX_DESCRIPTION));
        if long {
            errors.push(FieldError::new(
                at("description"),
                ErrorCode::ValidationOutOfRange,
                format!("description and consent_text are at most {MAX_DESCRIPTION} characters"),
            ));
        }
        let mut field_texts = Vec::new();
        for (j, f) in l.fields.into_iter().enumerate() {
            if !labels.contains(f.label.trim()) {
                errors.push(FieldError::new(
                    at(&format!("fields[{j}].label")),
                    ErrorCode::ValidationInvalidFormat,
                    "is not a field of this form",
                ));
                continue;
            }
            let texts = [&f.display_label, &f.placeholder, &f.help_text];
            if texts.iter().any(|t| t.as_ref().is_some_and(|t| t.chars().count() > MAX_TEXT)) {
                errors.push(FieldError::new(
                    at(&format!("fields[{j}]")),
                    ErrorCode::ValidationOutOfRange,
                    format!("texts are at most {MAX_TEXT} characters"),
                ));
            }
            field_texts.push(FieldTexts {
                label: f.label.trim().to_string(),
                display_label: trimmed(f.display_label),
                placeholder: trimmed(f.placeholder),
                help_text: trimmed(f.help_text),
            });
        }
        out.push(CheckedLocalization {
            locale_id: locale.locale_id,
            name,
            description: trimmed(l.description),
            consent_text: trimmed(l.consent_text),
            fields: field_texts,
        });
    }
    if errors.is_empty() {
        Ok(Some(out))
    } else {
        Err(ApiError::validation(errors))
    }
}

/// Wipes the form's localizations (its own and its fields') and writes `localizations`.
pub async fn replace_localizations<C: ConnectionTrait>(
    db: &C,
    form_id: Uuid,
    fields: &[form_field::Model],
    localizations: Vec<CheckedLocalization>,
) -> ApiResult<()> {
    form_localization::Entity::delete_many().filter(form_localization::Column::FormId.eq(form_id)).exec(db).await?;
    let ids: HashMap<&str, Uuid> = fields.iter().map(|f| (f.label.as_str(), f.id)).collect();
    if !ids.is_empty() {
        form_field_localization::Entity::delete_many()
            .filter(form_field_localization::Column::FormFieldId.is_in(ids.values().copied()))
            .exec(db)
            .await?;
    }
    let mut form_rows = Vec::new();
    let mut field_rows = Vec::new();
    for l in localizations {
        for texts in l.fields {
            if let Some(id) = ids.get(texts.label.as_str()) {
                field_rows.push(form_field_localization::ActiveModel {
                    form_field_id: Set(*id),
                    locale_id: Set(l.locale_id),
                    display_label: Set(texts.display_label),
                    placeholder: Set(texts.placeholder),
                    help_text: Set(texts.help_text),
                });
            }
        }
        form_rows.push(form_localization::ActiveModel {
            form_id: Set(form_id),
            locale_id: Set(l.locale_id),
            name: Set(l.name),
            description: Set(l.description),
            consent_text: Set(l.consent_text),
        });
    }
    if !form_rows.is_empty() {
        form_localization::Entity::insert_many(form_rows).exec_without_returning(db).await?;
    }
    if !field_rows.is_empty() {
        form_field_localization::Entity::insert_many(field_rows).exec_without_returning(db).await?;
    }
    Ok(())
}

pub fn localization_responses(
    site: &SiteState,
    fields: &[form_field::Model],
    stored: StoredLocalizations,
) -> Vec<FormLocalizationResponse> {
    stored
        .form
        .into_iter()
        .map(|l| FormLocalizationResponse {
            locale_id: l.locale_id,
            locale_code: site.locales.iter().find(|sl| sl.locale_id == l.locale_id).map(|sl| sl.code.clone()),
            name: l.name,
            description: l.description,
            consent_text: l.consent_text,
            fields: fields
                .iter()
                .filter_map(|f| {
                    let (_, fl) =
                        stored.fields.iter().find(|(label, fl)| *label == f.label && fl.locale_id == l.locale_id)?;
                    Some(FieldLocalizationResponse {
                        field_id: f.id,
                        label: f.label.clone(),
                        display_label: fl.display_label.clone(),
                        placeholder: fl.placeholder.clone(),
                        help_text: fl.help_text.clone(),
                    })
                })
                .collect(),
        })
        .collect()
}
