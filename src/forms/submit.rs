//! What visitors do: read a form's public definition, submit it, and later
//! look their submission up, read it or delete it by its reference code.

use std::sync::Arc;
use std::time::Duration;

use plinth_entities::{form, form_field, form_submission, form_submission_history, form_submission_value};
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use uuid::Uuid;

use super::bot::{self, Passed};
use super::model::{
    BotProtection, PublicField, PublicForm, StorageMode, SubmissionLookup, SubmissionReceipt, SubmissionStatus,
    SubmitForm, VisitorSubmission,
};
use super::{fields, reference, validate};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::events::{DomainEvent, EventAction, EventName, Subject};
use crate::state::{AppState, CachedBody, SiteState};

/// How long a built public definition is answered from memory (form writes
/// drop it at once; this bounds a site-cache entry's age otherwise).
const DEFINITION_TTL: Duration = Duration::from_secs(300);
/// Attempts at a unique reference code: the first and 3 retries on collision.
const CODE_ATTEMPTS: usize = 4;

/// The live, active form `slug` of the site.
async fn active_form(state: &AppState, site_id: Uuid, slug: &str) -> ApiResult<form::Model> {
    let found = super::service::by_slug(state, site_id, slug).await?;
    if !found.is_active {
        return Err(ApiError::not_found("form", slug));
    }
    Ok(found)
}

/// The public definition, localized to `locale` (an id or a code), built once
/// per form and locale until the site's forms change.
pub async fn definition(
    state: &AppState,
    site: &SiteState,
    slug: &str,
    locale: Option<&str>,
) -> ApiResult<Arc<CachedBody>> {
    let locale = match locale.map(str::trim).filter(|l| !l.is_empty()) {
        Some(wanted) => Some(
            crate::values::LocaleName::parse(wanted)
                .and_then(|name| site.locales.iter().find(|l| name.names(l.locale_id, &l.code)))
                .ok_or_else(|| ApiError::not_found("locale", wanted))?,
        ),
        None => None,
    };
    let key = format!("form:{slug}:{}", locale.map(|l| l.code.as_str()).unwrap_or(""));
    let site_id = site.site.id;
    site.public
        .get_or_build(key, DEFINITION_TTL, async {
            let f = active_form(state, site_id, slug).await?;
            let (rows, stored) = fields::load(&state.db, f.id).await?;
            let mode = match BotProtection::parse(&f.bot_protection) {
                BotProtection::None => None,
                _ => Some(bot::mode_of(&bot::settings(state, site_id).await?)),
            };
            let texts = locale.and_then(|l| stored.form.iter().find(|fl| fl.locale_id == l.locale_id));
            let field_texts = |field: &form_field::Model| {
                let l = locale?;
                stored
                    .fields
                    .iter()
                    .find(|(label, fl)| *label == field.label && fl.locale_id == l.locale_id)
                    .map(|(_, fl)| fl)
            };
            let public = PublicForm {
                id: f.id,
                slug: f.slug.clone(),
                name: texts.map(|t| t.name.clone()).unwrap_or(f.name.clone()),
                description: texts.and_then(|t| t.description.clone()).or(f.description.clone()),
                consent_text: texts.and_then(|t| t.consent_text.clone()),
                requires_consent: f.requires_consent,
                bot_protection: BotProtection::parse(&f.bot_protection),
                bot_protection_mode: mode,
                locale: locale.map(|l| l.code.clone()),
                fields: rows
                    .iter()
                    .map(|field| {
                        let l = field_texts(field);
                        let canonical = fields::response(field).field;
                        PublicField {
                            id: field.id,
                            label: field.label.clone(),
                            display_label: l.and_then(|l| l.display_label.clone()).unwrap_or(field.label.clone()),
                            field_type: canonical.field_type,
                            required: field.required,
                            options: canonical.options,
                            min_length: canonical.min_length,
                            max_length: canonical.max_length,
                            pattern: field.pattern.clone(),
                            min: field.min,
                            max: field.max,
                            placeholder: l.and_then(|l| l.placeholder.clone()).or(field.placeholder.clone()),
                            help_text: l.and_then(|l| l.help_text.clone()).or(field.help_text.clone()),
                            display_order: field.display_order,
                        }
                    })
                    .collect(),
            };
            let body = serde_json::to_vec(&public).map_err(ApiError::internal)?;
            Ok(CachedBody::new("application/json", body))
        })
        .await
}

/// Validates and stores a submission; the answer names its reference code.
pub async fn submit(state: &AppState, site_id: Uuid, slug: &str, body: SubmitForm) -> ApiResult<SubmissionReceipt> {
    let f = active_form(state, site_id, slug).await?;
    if f.requires_consent && body.consent_given != Some(true) {
        return Err(ApiError::new(ErrorCode::FormConsentRequired, "this form needs consent_given: true"));
    }
    let (rows, _) = fields::load(&state.db, f.id).await?;
    let checked = validate::check(&rows, body.data)
        .map_err(|errors| ApiError::with_field_errors(ErrorCode::FormValidationFailed, errors))?;
    let passed =
        bot::verify(state, site_id, BotProtection::parse(&f.bot_protection), body.bot_protection_token.as_deref())
            .await?;
    let queryable = StorageMode::parse(&f.storage_mode) == StorageMode::Queryable;
    let submission = NewSubmission {
        form: &f,
        data: Value::Object(checked.data),
        consent_given: body.consent_given.unwrap_or(false),
        indexed: if queryable { checked.indexed } else { Vec::new() },
    };
    for attempt in 1..=CODE_ATTEMPTS {
        match store(state, &submission, &passed, &reference::generate()).await? {
            Some(receipt) => return Ok(receipt),
            None => tracing::warn!(attempt, "reference code collision; drawing another"),
        }
    }
    Err(ApiError::internal("no unique reference code after 3 retries"))
}

struct NewSubmission<'a> {
    form: &'a form::Model,
    data: Value,
    consent_given: bool,
    /// (label, value) pairs of a `queryable` form.
    indexed: Vec<(String, String)>,
}

/// Stores the submission under `code` in one transaction with its first
/// history row, indexed values, the spent ALTCHA solution and the event.
/// `None` when `code` is taken (the caller draws another).
async fn store(
    state: &AppState,
    new: &NewSubmission<'_>,
    passed: &Passed,
    code: &str,
) -> ApiResult<Option<SubmissionReceipt>> {
    let now = state.clock.now();
    let f = new.form;
    let id = Uuid::new_v4();
    let txn = crate::db::begin_unaudited(&state.db, "a visitor's submission: its event is its record").await?;
    if let Passed::Altcha(solution) = passed {
        bot::spend(&*txn, solution).await?;
    }
    let row = form_submission::ActiveModel {
        id: Set(id),
        form_id: Set(f.id),
        site_id: Set(f.site_id),
        reference_code: Set(code.to_string()),
        status: Set(SubmissionStatus::New),
        data: Set(new.data.clone()),
        consent_given: Set(new.consent_given),
        created_at: Set(now),
        updated_at: Set(now),
        deleted_at: Set(None),
    };
    let inserted = form_submission::Entity::insert(row).exec_without_returning(&*txn).await;
    if let Err(e) = inserted {
        let taken = matches!(e.sql_err(), Some(sea_orm::SqlErr::UniqueConstraintViolation(_)));
        txn.rollback().await?;
        return if taken { Ok(None) } else { Err(e.into()) };
    }
    form_submission_history::Entity::insert(form_submission_history::ActiveModel {
        id: Set(Uuid::new_v4()),
        submission_id: Set(id),
        from_status: Set(None),
        to_status: Set(SubmissionStatus::New),
        actor: Set(None),
        created_at: Set(now),
    })
    .exec_without_returning(&*txn)
    .await?;
    if !new.indexed.is_empty() {
        let values = new.indexed.iter().map(|(label, value)| form_submission_value::ActiveModel {
            submission_id: Set(id),
            form_id: Set(f.id),
            field_label: Set(label.clone()),
            value: Set(value.clone()),
        });
        form_submission_value::Entity::insert_many(values).exec_without_returning(&*txn).await?;
    }
    // Only identifiers: submitted values never leave in webhooks.
    let event = DomainEvent {
        event: EventName::new(Subject::Form, EventAction::SubmissionCreated),
        timestamp: now,
        site_id: f.site_id,
        data: json!({"form_id": f.id, "submission_id": id, "reference_code": code, "created_at": now}),
    };
    crate::events::store(&txn, &state.events, std::slice::from_ref(&event)).await?;
    txn.commit().await?;
    Ok(Some(SubmissionReceipt { reference_code: code.to_string(), status: SubmissionStatus::New, created_at: now }))
}

/// The submission a visitor names by `raw` code, on `site_id` when the request
/// named a site; deleted ones answer 410.
async fn by_code(state: &AppState, site_id: Option<Uuid>, raw: &str) -> ApiResult<form_submission::Model> {
    let unknown = || ApiError::new(ErrorCode::InvalidReferenceCode, "no submission has this reference code");
    let code = reference::normalize(raw).ok_or_else(unknown)?;
    let mut select = form_submission::Entity::find().filter(form_submission::Column::ReferenceCode.eq(code));
    if let Some(site_id) = site_id {
        select = select.filter(form_submission::Column::SiteId.eq(site_id));
    }
    let found = select.one(&state.db).await?.ok_or_else(unknown)?;
    if found.deleted_at.is_some() {
        return Err(ApiError::new(ErrorCode::SubmissionDeleted, "this submission was deleted"));
    }
    Ok(found)
}

pub async fn lookup(state: &AppState, site_id: Option<Uuid>, code: &str) -> ApiResult<SubmissionLookup> {
    let found = by_code(state, site_id, code).await?;
    Ok(SubmissionLookup { status: found.status, created_at: found.created_at })
}

pub async fn view(state: &AppState, site_id: Option<Uuid>, code: &str) -> ApiResult<VisitorSubmission> {
    let found = by_code(state, site_id, code).await?;
    let f = form::Entity::find_by_id(found.form_id).one(&state.db).await?;
    Ok(VisitorSubmission {
        reference_code: found.reference_code.clone(),
        form_slug: f.as_ref().map(|f| f.slug.clone()).unwrap_or_default(),
        form_name: f.as_ref().map(|f| f.name.clone()).unwrap_or_default(),
        status: found.status,
        data: found.data,
        consent_given: found.consent_given,
        created_at: found.created_at,
        updated_at: found.updated_at,
    })
}

/// The visitor withdraws a submission: it is soft-deleted and its indexed
/// values go at once; a second call answers 410.
pub async fn withdraw(state: &AppState, site_id: Option<Uuid>, code: &str) -> ApiResult<()> {
    let found = by_code(state, site_id, code).await?;
    super::review::soft_delete(state, &found, None).await
}
