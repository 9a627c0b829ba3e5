//! Alt text, caption and title per locale. Limits: alt text 500 characters,
//! caption 1000, title 200; one record per file and locale.

use plinth_entities::media_metadata;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::{json, Value};
use uuid::Uuid;

use crate::audit::{self, Action, Actor, AuditEntry};
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError};
use crate::media::model::{CreateMediaMetadata, MediaMetadataResponse, UpdateMediaMetadata};
use crate::media::records::Media;
use crate::state::AppState;

const LIMITS: [(&str, usize); 3] = [("alt_text", 500), ("caption", 1000), ("title", 200)];

/// Trimmed texts, `None` for absent; an empty text clears the field.
fn check_texts(values: [Option<&str>; 3]) -> ApiResult<[Option<Option<String>>; 3]> {
    let mut errors = Vec::new();
    let checked = std::array::from_fn(|i| {
        let (field, max) = LIMITS[i];
        values[i].map(|raw| {
            let text = raw.trim();
            if text.chars().count() > max {
                errors.push(FieldError::new(
                    field,
                    ErrorCode::ValidationOutOfRange,
                    format!("must be at most {max} characters"),
                ));
            }
            (!text.is_empty()).then(|| text.to_string())
        })
    });
    if errors.is_empty() {
        Ok(checked)
    } else {
        Err(ApiError::validation(errors))
    }
}

fn entry<'a>(actor: &'a Actor, action: Action, media: &Media) -> AuditEntry<'a> {
    AuditEntry {
        actor,
        action,
        entity_type: "media_metadata",
        entity_id: media.file.id.to_string(),
        site_id: media.site_ids.first().copied(),
    }
}

pub async fn list(state: &AppState, media_id: Uuid) -> ApiResult<Vec<MediaMetadataResponse>> {
    let rows = media_metadata::Entity::find()
        .filter(media_metadata::Column::MediaId.eq(media_id))
        .order_by_asc(media_metadata::Column::CreatedAt)
        .all(&state.db)
        .await?;
    Ok(rows.iter().map(MediaMetadataResponse::from).collect())
}

pub async fn find(state: &AppState, id: Uuid) -> ApiResult<media_metadata::Model> {
    media_metadata::Entity::find_by_id(id)
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found("media_metadata", id))
}

pub async fn create(
    state: &AppState,
    actor: &Actor,
    media: &Media,
    body: CreateMediaMetadata,
) -> ApiResult<MediaMetadataResponse> {
    let [alt_text, caption, title] =
        check_texts([body.alt_text.as_deref(), body.caption.as_deref(), body.title.as_deref()])?;
    let locale_id = crate::locales::named(&state.db, &body.locale_id, "locale_id").await?.id;
    let now = state.clock.now();
    let row = media_metadata::ActiveModel {
        id: Set(Uuid::new_v4()),
        media_id: Set(media.file.id),
        locale_id: Set(locale_id),
        alt_text: Set(alt_text.flatten()),
        caption: Set(caption.flatten()),
        title: Set(title.flatten()),
        created_at: Set(now),
        updated_at: Set(now),
    };
    audit::write(&state.db, async |txn| {
        let stored = media_metadata::Entity::insert(row)
            .exec_with_returning(txn)
            .await
            .map_err(on_constraint(Constraint::Unique, || {
                ApiError::new(ErrorCode::Conflict, "the file has metadata in this locale already; update it instead")
            }))?;
        let response = MediaMetadataResponse::from(&stored);
        audit::record(txn, now, entry(actor, Action::Create, media), &Value::Null, &response).await?;
        Ok(response)
    })
    .await
}

pub async fn update(
    state: &AppState,
    actor: &Actor,
    media: &Media,
    current: media_metadata::Model,
    body: UpdateMediaMetadata,
) -> ApiResult<MediaMetadataResponse> {
    let [alt_text, caption, title] =
        check_texts([body.alt_text.as_deref(), body.caption.as_deref(), body.title.as_deref()])?;
    let now = state.clock.now();
    let before = MediaMetadataResponse::from(&current);
    let mut row: media_metadata::ActiveModel = current.into();
    if let Some(v) = alt_text {
        row.alt_text = Set(v);
    }
    if let Some(v) = caption {
        row.caption = Set(v);
    }
    if let Some(v) = title {
        row.title = Set(v);
    }
    row.updated_at = Set(now);
    audit::write(&state.db, async |txn| {
        let stored = media_metadata::Entity::update(row).exec(txn).await?;
        let response = MediaMetadataResponse::from(&stored);
        audit::record(txn, now, entry(actor, Action::Update, media), &before, &response).await?;
        Ok(response)
    })
    .await
}

pub async fn delete(state: &AppState, actor: &Actor, media: &Media, current: media_metadata::Model) -> ApiResult<()> {
    let now = state.clock.now();
    audit::write(&state.db, async |txn| {
        media_metadata::Entity::delete_by_id(current.id).exec(txn).await?;
        audit::record(
            txn,
            now,
            entry(actor, Action::Delete, media),
            &json!(MediaMetadataResponse::from(&current)),
            &Value::Null,
        )
        .await?;
        Ok(())
    })
    .await
}
