//! Per-locale text of content items.

use plinth_entities::{content, content_localization};
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

use super::access::{load_live, ItemAccess};
use super::events::{events_for, store_events};
use super::model::{LocalizationInput, LocalizationResponse, UpdateLocalization};
use super::relations;
use super::ContentKind;
use crate::audit::{self, Action, AuditEntry};
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode};
use crate::events::EventAction;
use crate::state::AppState;
use crate::values::{optional_line, required_line};

fn not_found(kind: ContentKind, id: Uuid) -> ApiError {
    ApiError::entity(
        ErrorCode::EntityLocalizationNotFound,
        kind.as_str(),
        format!("no {} localization {id}", kind.as_str()),
    )
}

/// A localization change is an update of its item: store `<kind>.updated`
/// with it (announced once the write commits).
async fn store_as_update(
    state: &AppState,
    txn: &crate::db::WriteTxn,
    kind: ContentKind,
    item: &content::Model,
    sites: Vec<Uuid>,
) -> ApiResult<()> {
    let response = relations::response(item, relations::Relations { site_ids: sites, ..Default::default() });
    store_events(state, txn, events_for(kind, EventAction::Updated, &response, state.clock.now())).await
}

/// The localizations of a readable item (`access::readable_with`, without taxonomy).
pub async fn list(state: &AppState, item: &ItemAccess) -> ApiResult<Vec<LocalizationResponse>> {
    let content_id = item.id();
    let rows = content_localization::Entity::find()
        .filter(content_localization::Column::ContentId.eq(content_id))
        .order_by_asc(content_localization::Column::CreatedAt)
        .all(&state.db)
        .await?;
    Ok(rows.iter().map(LocalizationResponse::from).collect())
}

/// A localization's `excerpt` and `body`, where given (`validate::texts`).
fn checked_texts(excerpt: Option<&str>, body: Option<&str>) -> ApiResult<()> {
    let mut errors = Vec::new();
    super::validate::texts(excerpt, body, &mut errors);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ApiError::validation(errors))
    }
}

/// A subtitle: one line as long as a title at most, or empty.
fn checked_subtitle(raw: &str) -> ApiResult<String> {
    let line =
        optional_line("subtitle", Some(raw), super::validate::TITLE_MAX).map_err(|e| ApiError::validation(vec![e]))?;
    Ok(line.unwrap_or_default())
}

/// A new localization of an item the caller may edit (`access::editable`,
/// without taxonomy).
pub async fn create(state: &AppState, access: ItemAccess, body: LocalizationInput) -> ApiResult<LocalizationResponse> {
    let (content_id, kind) = (access.id(), access.kind());
    let title =
        required_line("title", &body.title, super::validate::TITLE_MAX).map_err(|e| ApiError::validation(vec![e]))?;
    let subtitle = checked_subtitle(&body.subtitle)?;
    checked_texts(Some(&body.excerpt), Some(&body.body))?;
    let ItemAccess { item, relations, grant } = access;
    let sites = relations.site_ids;
    audit::write(&state.db, async |txn| {
        let detail = "the locale is not assigned to any of the item's sites";
        let locale_id = crate::site_rows::require_locale_assigned(txn, &sites, &body.locale_id, detail).await?;
        let exists = || {
            ApiError::entity(
                ErrorCode::EntityLocalizationExists,
                kind.as_str(),
                "a localization for this locale exists; update it instead",
            )
        };
        let duplicate = content_localization::Entity::find()
            .filter(content_localization::Column::ContentId.eq(content_id))
            .filter(content_localization::Column::LocaleId.eq(locale_id))
            .count(txn)
            .await?;
        if duplicate > 0 {
            return Err(exists());
        }
        let now = state.clock.now();
        let created = content_localization::ActiveModel {
            id: Set(Uuid::new_v4()),
            content_id: Set(content_id),
            locale_id: Set(locale_id),
            title: Set(title),
            subtitle: Set(subtitle),
            excerpt: Set(body.excerpt),
            body: Set(body.body),
            meta_title: Set(body.meta_title),
            meta_description: Set(body.meta_description),
            translation_status: Set(body.translation_status),
            created_at: Set(now),
            updated_at: Set(now),
        }
        .insert(txn)
        .await
        .map_err(on_constraint(Constraint::Unique, exists))?;
        let response = LocalizationResponse::from(&created);
        let entry = AuditEntry {
            actor: grant.actor(),
            action: Action::Create,
            entity_type: &format!("{}_localization", kind.as_str()),
            entity_id: created.id.to_string(),
            site_id: sites.first().copied(),
        };
        audit::record_on_sites(txn, now, entry, &sites, &(), &response).await?;
        store_as_update(state, txn, kind, &item, sites).await?;
        Ok(response)
    })
    .await
}

/// A localization of an item of `kind`, before the caller is checked on the item.
pub async fn find(
    state: &AppState,
    kind: ContentKind,
    localization_id: Uuid,
) -> ApiResult<content_localization::Model> {
    let found = content_localization::Entity::find_by_id(localization_id)
        .one(&state.db)
        .await?
        .ok_or_else(|| not_found(kind, localization_id))?;
    // It must belong to an item of this kind.
    load_live(&state.db, kind, found.content_id).await.map_err(|_| not_found(kind, localization_id))?;
    Ok(found)
}

/// A change of `current` (found by [`find`]), whose item the caller may edit
/// (`access::editable`, without taxonomy).
pub async fn update(
    state: &AppState,
    access: ItemAccess,
    current: content_localization::Model,
    body: UpdateLocalization,
) -> ApiResult<LocalizationResponse> {
    let kind = access.kind();
    checked_texts(body.excerpt.as_deref(), body.body.as_deref())?;
    let subtitle = body.subtitle.as_deref().map(checked_subtitle).transpose()?;
    let now = state.clock.now();
    let localization_id = current.id;
    let ItemAccess { item, relations, grant } = access;
    let sites = relations.site_ids;
    let before = LocalizationResponse::from(&current);
    let mut row: content_localization::ActiveModel = current.into();
    if let Some(title) = body.title {
        row.title =
            Set(required_line("title", &title, super::validate::TITLE_MAX)
                .map_err(|e| ApiError::validation(vec![e]))?);
    }
    if let Some(subtitle) = subtitle {
        row.subtitle = Set(subtitle);
    }
    if let Some(excerpt) = body.excerpt {
        row.excerpt = Set(excerpt);
    }
    if let Some(text) = body.body {
        row.body = Set(text);
    }
    if let Some(meta_title) = body.meta_title {
        row.meta_title = Set(meta_title);
    }
    if let Some(meta_description) = body.meta_description {
        row.meta_description = Set(meta_description);
    }
    if let Some(status) = body.translation_status {
        row.translation_status = Set(status);
    }
    row.updated_at = Set(now);
    audit::write(&state.db, async |txn| {
        let updated = row.update(txn).await?;
        let after = LocalizationResponse::from(&updated);
        let entry = AuditEntry {
            actor: grant.actor(),
            action: Action::Update,
            entity_type: &format!("{}_localization", kind.as_str()),
            entity_id: localization_id.to_string(),
            site_id: sites.first().copied(),
        };
        audit::record_on_sites(txn, now, entry, &sites, &before, &after).await?;
        store_as_update(state, txn, kind, &item, sites).await?;
        Ok(after)
    })
    .await
}

/// Removes `current` (found by [`find`]), whose item the caller may edit
/// (`access::editable`, without taxonomy).
pub async fn delete(state: &AppState, access: ItemAccess, current: content_localization::Model) -> ApiResult<()> {
    let (kind, localization_id) = (access.kind(), current.id);
    let ItemAccess { item, relations, grant } = access;
    let sites = relations.site_ids;
    let before = LocalizationResponse::from(&current);
    audit::write(&state.db, async |txn| {
        content_localization::Entity::delete_by_id(localization_id).exec(txn).await?;
        let entry = AuditEntry {
            actor: grant.actor(),
            action: Action::Delete,
            entity_type: &format!("{}_localization", kind.as_str()),
            entity_id: localization_id.to_string(),
            site_id: sites.first().copied(),
        };
        audit::record_on_sites(txn, state.clock.now(), entry, &sites, &before, &()).await?;
        store_as_update(state, txn, kind, &item, sites).await?;
        Ok(())
    })
    .await
}
