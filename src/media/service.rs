//! Media records: loading records with their sites and
//! variants (one query each per page, never one per file), the list, records
//! of files stored elsewhere, updates, deletes and usage.

use chrono::{DateTime, Utc};
use plinth_entities::{media_file, media_site, media_variant};
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use uuid::Uuid;

use super::listing::{self, LibraryFilter};
use super::model::{CreateMedia, MediaListQuery, MediaResponse, UpdateMedia};
use super::records::{response, response_in, responses, Media};
use super::sniff;
use crate::audit::{self, Action, Actor, AuditEntry};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::events::{DomainEvent, EventAction, EventName, Subject};
use crate::pagination::{PageParams, Paginated};
use crate::state::AppState;
use crate::values::required_line;

/// Tags: at most this many per file…
pub const MAX_TAGS: usize = 20;
/// …each of 1 to this many characters: letters, digits, space, `-` and `_`.
pub const MAX_TAG_CHARS: usize = 50;

pub async fn list(state: &AppState, site_id: Uuid, query: MediaListQuery) -> ApiResult<Paginated<MediaResponse>> {
    let page = PageParams { page: query.page, per_page: query.per_page }.resolve();
    let category = match query.mime_category.as_deref().filter(|c| !c.is_empty()) {
        Some(category) if sniff::category_prefixes(category).is_some() => Some(category.to_string()),
        Some(_) => {
            return Err(ApiError::validation(vec![FieldError::new(
                "mime_category",
                ErrorCode::ValidationInvalidFormat,
                "must be image, video, audio or document",
            )]))
        }
        None => None,
    };
    let filter = LibraryFilter {
        site_id,
        deleted: false,
        category,
        folder_id: query.folder_id,
        search: query.search.as_deref().map(str::trim).filter(|t| !t.is_empty()).map(str::to_string),
    };
    let found = listing::page(&state.db, &filter, page).await?;
    let total = found.meta.total;
    let data = responses(state, found.data).await?;
    Ok(Paginated::new(data, page, total))
}

/// Tags trimmed, checked and de-duplicated (case-insensitively, first spelling kept).
pub fn check_tags(tags: &[String]) -> ApiResult<Vec<String>> {
    let mut kept: Vec<String> = Vec::new();
    for raw in tags {
        let tag = raw.trim();
        let valid = !tag.is_empty()
            && tag.chars().count() <= MAX_TAG_CHARS
            && tag.chars().all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'));
        if !valid {
            return Err(ApiError::new(
                ErrorCode::MediaTagInvalid,
                format!("tag '{raw}': 1-{MAX_TAG_CHARS} characters of letters, digits, space, - and _"),
            ));
        }
        if !kept.iter().any(|k| k.to_lowercase() == tag.to_lowercase()) {
            kept.push(tag.to_string());
        }
    }
    if kept.len() > MAX_TAGS {
        return Err(ApiError::new(ErrorCode::MediaTooManyTags, format!("{} tags; at most {MAX_TAGS}", kept.len())));
    }
    Ok(kept)
}

fn check_filename(field: &str, raw: &str) -> Result<String, FieldError> {
    let name = required_line(field, raw, 255)?;
    if name.contains(['/', '\\', '\0']) {
        return Err(FieldError::new(field, ErrorCode::ValidationInvalidFormat, "must not contain / or \\"));
    }
    Ok(name)
}

fn check_focal(field: &str, value: Option<f64>) -> Result<Option<f64>, FieldError> {
    match value {
        Some(v) if !(0.0..=1.0).contains(&v) => {
            Err(FieldError::new(field, ErrorCode::ValidationOutOfRange, "must be between 0 and 1"))
        }
        other => Ok(other),
    }
}

/// A folder given with a file must be a media folder of one of its sites.
pub async fn check_folder(db: &impl ConnectionTrait, folder_id: Option<Uuid>, site_ids: &[Uuid]) -> ApiResult<()> {
    crate::folders::service::check_folder(db, crate::folders::Library::Media, folder_id, site_ids, "folder_id").await
}

/// The sites of a new file: at least one, no repeats, each existing.
pub async fn check_sites(state: &AppState, site_ids: &[Uuid]) -> ApiResult<Vec<Uuid>> {
    let mut unique: Vec<Uuid> = Vec::new();
    for id in site_ids {
        if !unique.contains(id) {
            unique.push(*id);
        }
    }
    if unique.is_empty() {
        return Err(ApiError::validation(vec![FieldError::new(
            "site_ids",
            ErrorCode::ValidationRequiredField,
            "name at least one site",
        )]));
    }
    for id in &unique {
        state.site_state(*id).await?;
    }
    Ok(unique)
}

pub fn media_event(
    what: EventAction,
    at: DateTime<Utc>,
    site_id: Uuid,
    file: &media_file::Model,
    url: Option<&str>,
) -> DomainEvent {
    DomainEvent {
        event: EventName::new(Subject::Media, what),
        timestamp: at,
        site_id,
        data: json!({
            "id": file.id,
            "filename": file.filename,
            "mime_type": file.mime_type,
            "file_size": file.file_size,
            "url": url,
        }),
    }
}

pub fn audit_entry<'a>(
    actor: &'a Actor,
    action: Action,
    file: &media_file::Model,
    site_id: Option<Uuid>,
) -> AuditEntry<'a> {
    AuditEntry { actor, action, entity_type: "media", entity_id: file.id.to_string(), site_id }
}

/// Stores a new record, its sites, variants, audit entry and `media.created`
/// events in one transaction; answers it as the API shows it.
pub async fn insert(
    state: &AppState,
    actor: &Actor,
    file: media_file::ActiveModel,
    site_ids: &[Uuid],
    variants: Vec<media_variant::ActiveModel>,
) -> ApiResult<MediaResponse> {
    let now = state.clock.now();
    audit::write(&state.db, async |txn| {
        let stored = media_file::Entity::insert(file).exec_with_returning(txn).await?;
        media_site::Entity::insert_many(
            site_ids.iter().map(|s| media_site::ActiveModel { media_id: Set(stored.id), site_id: Set(*s) }),
        )
        .exec(txn)
        .await?;
        if !variants.is_empty() {
            media_variant::Entity::insert_many(variants).exec(txn).await?;
        }
        let response = response_in(state, txn, stored.clone(), site_ids.to_vec()).await?;
        let events: Vec<DomainEvent> = site_ids
            .iter()
            .map(|s| media_event(EventAction::Created, now, *s, &stored, response.public_url.as_deref()))
            .collect();
        crate::events::store(txn, &state.events, &events).await?;
        audit::record(
            txn,
            now,
            audit_entry(actor, Action::Create, &stored, site_ids.first().copied()),
            &Value::Null,
            &response,
        )
        .await?;
        Ok(response)
    })
    .await
}
/// `POST /media`: a record of a file stored elsewhere, on `site_ids` (as
/// [`check_sites`] answers `body.site_ids`, the caller's rights on them
/// checked), by `actor`.
pub async fn create_external(
    state: &AppState,
    actor: &Actor,
    site_ids: Vec<Uuid>,
    body: CreateMedia,
) -> ApiResult<MediaResponse> {
    let mut errors = Vec::new();
    let filename = check_filename("filename", &body.filename).map_err(|e| errors.push(e)).ok();
    let original = match body.original_filename.as_deref() {
        Some(o) => check_filename("original_filename", o).map_err(|e| errors.push(e)).ok(),
        None => filename.clone(),
    };
    let url = body.public_url.clone().or_else(|| body.storage_path.clone().filter(|p| p.starts_with("http")));
    let url = url.and_then(|u| crate::values::link_target("public_url", &u, false).map_err(|e| errors.push(e)).ok());
    for (field, value) in [
        ("file_size", body.file_size),
        ("width", body.width.map(i64::from)),
        ("height", body.height.map(i64::from)),
        ("duration", body.duration.map(i64::from)),
    ] {
        if value.is_some_and(|v| v < 0) {
            errors.push(FieldError::new(field, ErrorCode::ValidationOutOfRange, "must not be negative"));
        }
    }
    let (Some(filename), Some(original), true) = (filename, original, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let mime_type = match body.mime_type.as_deref() {
        Some(m) => m.trim().to_ascii_lowercase(),
        None => sniff::mime_from_name(&filename).unwrap_or("application/octet-stream").to_string(),
    };
    if !sniff::is_allowed(&mime_type) {
        return Err(ApiError::new(
            ErrorCode::MediaUploadInvalidType,
            format!("files of type {mime_type} are not accepted"),
        ));
    }
    let tags = check_tags(body.tags.as_deref().unwrap_or_default())?;
    check_folder(&state.db, body.folder_id, &site_ids).await?;
    let now = state.clock.now();
    let file = media_file::ActiveModel {
        id: Set(Uuid::new_v4()),
        filename: Set(filename),
        original_filename: Set(original),
        mime_type: Set(mime_type),
        file_size: Set(body.file_size.unwrap_or(0)),
        storage_key: Set(None),
        external_url: Set(url),
        checksum: Set(None),
        width: Set(body.width),
        height: Set(body.height),
        duration: Set(body.duration),
        thumbhash: Set(None),
        dominant_color: Set(None),
        focal_x: Set(None),
        focal_y: Set(None),
        tags: Set(json!(tags)),
        uploaded_by: Set(Some(actor.clone())),
        is_global: Set(body.is_global),
        folder_id: Set(body.folder_id),
        created_at: Set(now),
        updated_at: Set(now),
        deleted_at: Set(None),
        is_deleted: Set(false),
    };
    insert(state, actor, file, &site_ids, Vec::new()).await
}

/// The checked changes of an update; the focal point is applied by the caller
/// (it may re-render the thumbnail first).
pub struct Changes {
    pub row: media_file::ActiveModel,
    pub focal_changed: bool,
    /// The focal point after the change; `None` is the centre.
    pub focal: Option<(f64, f64)>,
}

pub async fn changes(state: &AppState, media: &Media, body: &UpdateMedia) -> ApiResult<Changes> {
    let mut errors = Vec::new();
    let filename =
        body.filename.as_deref().and_then(|f| check_filename("filename", f).map_err(|e| errors.push(e)).ok());
    let url = body
        .public_url
        .as_deref()
        .and_then(|u| crate::values::link_target("public_url", u, false).map_err(|e| errors.push(e)).ok());
    if url.is_some() && media.file.storage_key.is_some() {
        errors.push(FieldError::new(
            "public_url",
            ErrorCode::ValidationInvalidFormat,
            "an uploaded file's URL is where Plinth serves it",
        ));
    }
    let focal_x = body.focal_x.map(|v| check_focal("focal_x", v).map_err(|e| errors.push(e)).ok().flatten());
    let focal_y = body.focal_y.map(|v| check_focal("focal_y", v).map_err(|e| errors.push(e)).ok().flatten());
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let tags = body.tags.as_deref().map(check_tags).transpose()?;
    if let Some(folder) = body.folder_id {
        check_folder(&state.db, folder, &media.site_ids).await?;
    }
    let mut row: media_file::ActiveModel = media.file.clone().into();
    if let Some(filename) = filename {
        row.filename = Set(filename);
    }
    if let Some(url) = url {
        row.external_url = Set(Some(url));
    }
    if let Some(global) = body.is_global {
        row.is_global = Set(global);
    }
    if let Some(folder) = body.folder_id {
        row.folder_id = Set(folder);
    }
    if let Some(tags) = tags {
        row.tags = Set(json!(tags));
    }
    let new_x = focal_x.unwrap_or(media.file.focal_x);
    let new_y = focal_y.unwrap_or(media.file.focal_y);
    let focal_changed = (new_x, new_y) != (media.file.focal_x, media.file.focal_y);
    row.focal_x = Set(new_x);
    row.focal_y = Set(new_y);
    row.updated_at = Set(state.clock.now());
    let focal = match (new_x, new_y) {
        (None, None) => None,
        (x, y) => Some((x.unwrap_or(0.5), y.unwrap_or(0.5))),
    };
    Ok(Changes { row, focal_changed, focal })
}

/// Stores an update (and a replaced thumbnail) with its audit entry.
pub async fn save_update(
    state: &AppState,
    actor: &Actor,
    media: Media,
    row: media_file::ActiveModel,
    thumbnail: Option<media_variant::ActiveModel>,
) -> ApiResult<MediaResponse> {
    let now = state.clock.now();
    audit::write(&state.db, async |txn| {
        let before = response_in(state, txn, media.file.clone(), media.site_ids.clone()).await?;
        let stored = media_file::Entity::update(row).exec(txn).await?;
        if let Some(thumbnail) = thumbnail {
            media_variant::Entity::delete_many()
                .filter(media_variant::Column::MediaId.eq(media.file.id))
                .filter(media_variant::Column::VariantName.eq("thumbnail"))
                .exec(txn)
                .await?;
            media_variant::Entity::insert(thumbnail).exec(txn).await?;
        }
        let after = response_in(state, txn, stored.clone(), media.site_ids.clone()).await?;
        let entry = audit_entry(actor, Action::Update, &stored, media.site_ids.first().copied());
        audit::record_on_sites(txn, now, entry, &media.site_ids, &before, &after).await?;
        Ok(after)
    })
    .await
}

/// Soft delete: 409 with the usage count while content refers to the file,
/// unless `force`.
pub async fn delete(state: &AppState, actor: &Actor, media: Media, force: bool) -> ApiResult<()> {
    if !force {
        let usage = super::usage::usage(state, &media).await?;
        if usage.usage_count > 0 {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                format!(
                    "the file is used in {} place(s); remove those references or delete with force=true",
                    usage.usage_count
                ),
            )
            .with_usage_count(u32::try_from(usage.usage_count).unwrap_or(u32::MAX)));
        }
    }
    let now = state.clock.now();
    let before = json!(response(state, media.file.clone()).await?);
    let url = before["public_url"].as_str().map(str::to_owned);
    audit::write(&state.db, async |txn| {
        let mut row: media_file::ActiveModel = media.file.clone().into();
        row.is_deleted = Set(true);
        row.deleted_at = Set(Some(now));
        media_file::Entity::update(row).exec(txn).await?;
        let events: Vec<DomainEvent> = media
            .site_ids
            .iter()
            .map(|s| media_event(EventAction::Deleted, now, *s, &media.file, url.as_deref()))
            .collect();
        crate::events::store(txn, &state.events, &events).await?;
        let entry = audit_entry(actor, Action::Delete, &media.file, media.site_ids.first().copied());
        audit::record(txn, now, entry, &before, &audit::marked_deleted(&before)).await?;
        Ok(())
    })
    .await
}
