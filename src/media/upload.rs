//! `POST /media/upload`: the `file` part is streamed to storage while it is
//! hashed (SHA-256) and counted, and reading stops the moment a limit is
//! passed. The type comes from the first bytes. Raster images are kept in
//! memory (they are bounded by the size limit and the MediaPool needs them
//! whole) and processed on the MediaPool; nothing else is ever held whole.

use actix_multipart::{Field, Multipart};
use bytes::Bytes;
use futures_util::TryStreamExt;
use plinth_entities::{media_file, media_variant};
use sea_orm::ActiveValue::Set;
use serde_json::json;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::model::MediaResponse;
use super::sniff::{self, Verdict, SNIFF_BYTES};
use super::variants::storage_failed;
use super::{records, service, stored};
use crate::audit::Actor;
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::state::AppState;
use crate::storage::StreamingWrite;

/// Text parts (`site_ids`, `folder_id`, `is_global`) are short.
const MAX_TEXT_PART: usize = 64 * 1024;
const MAX_PARTS: usize = 16;

/// How many bytes may still come, and what passing that means.
#[derive(Clone, Copy)]
struct Limit {
    bytes: u64,
    code: ErrorCode,
}

impl Limit {
    fn refuse(self) -> ApiError {
        match self.code {
            ErrorCode::StorageQuotaExceeded => {
                ApiError::new(self.code, "the upload would exceed the site's storage quota")
            }
            _ => ApiError::new(self.code, format!("the file exceeds the maximum size of {} bytes", self.bytes)),
        }
    }
}

/// An uploaded file, stored under a temporary key.
struct Received {
    temp_key: String,
    /// The client's name with the extension of `mime_type` (`sniff::name_for`).
    filename: String,
    /// The name as the client sent it.
    original_filename: String,
    size: u64,
    checksum: String,
    mime_type: &'static str,
    /// The bytes of a raster image, for the MediaPool.
    image: Option<Bytes>,
}

#[derive(Default)]
struct Form {
    site_ids: Option<Vec<Uuid>>,
    folder_id: Option<Uuid>,
    is_global: bool,
    file: Option<Received>,
    /// Sites checked and limits known (site_ids came before the file).
    authorized: bool,
}

/// `(created, record)`: `created` is false when the site already had these bytes.
/// `authorize` is the handler's check of the caller's rights on the file's
/// sites (checked ones, `service::check_sites`), asked once they are known:
/// before the file streams in when `site_ids` comes first. `actor` uploads.
pub async fn upload(
    state: &AppState,
    authorize: impl AsyncFn(&[Uuid]) -> ApiResult<()>,
    actor: &Actor,
    mut multipart: Multipart,
) -> ApiResult<(bool, MediaResponse)> {
    let mut form = Form::default();
    let outcome = read_form(state, &authorize, &mut multipart, &mut form).await;
    let outcome = match outcome {
        Ok(()) => store(state, &authorize, actor, &mut form).await,
        Err(e) => Err(e),
    };
    if let Some(file) = &form.file {
        // Whatever happened, the temporary object goes (moved or refused).
        if let Err(e) = state.storage.delete(&file.temp_key).await {
            tracing::warn!(error = %e, "could not remove a temporary upload");
        }
    }
    outcome
}

async fn read_form(
    state: &AppState,
    authorize: &impl AsyncFn(&[Uuid]) -> ApiResult<()>,
    multipart: &mut Multipart,
    form: &mut Form,
) -> ApiResult<()> {
    let mut parts = 0;
    while let Some(field) = multipart.try_next().await.map_err(|e| no_data(&e.to_string()))? {
        parts += 1;
        if parts > MAX_PARTS {
            return Err(ApiError::bad_request(format!("at most {MAX_PARTS} form parts")));
        }
        let name = field.name().unwrap_or_default().to_string();
        match name.as_str() {
            "file" => {
                if form.file.is_some() {
                    return Err(ApiError::bad_request("send one `file` part per upload"));
                }
                let limit = match form.site_ids.clone() {
                    Some(site_ids) => {
                        let site_ids = service::check_sites(state, &site_ids).await?;
                        authorize(&site_ids).await?;
                        form.authorized = true;
                        site_limit(state, &site_ids).await?
                    }
                    None => Limit { bytes: state.config.media.max_upload_bytes, code: ErrorCode::MediaUploadTooLarge },
                };
                form.file = Some(receive_file(state, field, limit).await?);
            }
            "site_ids" | "site_ids[]" => {
                let text = read_text(field).await?;
                form.site_ids.get_or_insert_with(Vec::new).extend(parse_site_ids(&text)?);
            }
            "folder_id" => {
                let text = read_text(field).await?;
                form.folder_id = match text.trim() {
                    "" | "null" => None,
                    id => Some(id.parse().map_err(|_| invalid("folder_id", "must be a UUID"))?),
                };
            }
            "is_global" => {
                form.is_global = match read_text(field).await?.trim() {
                    "true" | "1" | "on" => true,
                    // `null` as `folder_id` takes it: the form documents both as nullable.
                    "false" | "0" | "off" | "" | "null" => false,
                    _ => return Err(invalid("is_global", "must be true or false")),
                };
            }
            _ => {
                read_text(field).await?;
            }
        }
    }
    Ok(())
}

fn no_data(why: &str) -> ApiError {
    ApiError::new(ErrorCode::MediaUploadNoData, format!("send multipart/form-data with a `file` part ({why})"))
}

fn invalid(field: &str, message: &str) -> ApiError {
    ApiError::validation(vec![FieldError::new(field, ErrorCode::ValidationInvalidFormat, message)])
}

/// A JSON array of UUIDs; a single UUID or a comma-separated list are accepted too.
fn parse_site_ids(text: &str) -> ApiResult<Vec<Uuid>> {
    let text = text.trim();
    let ids: Option<Vec<Uuid>> = if text.starts_with('[') {
        serde_json::from_str(text).ok()
    } else {
        text.split(',').filter(|s| !s.trim().is_empty()).map(|s| s.trim().parse().ok()).collect()
    };
    ids.ok_or_else(|| invalid("site_ids", "must be a JSON array of site UUIDs"))
}

async fn read_text(mut field: Field) -> ApiResult<String> {
    let mut text = Vec::new();
    while let Some(chunk) = field.try_next().await.map_err(|e| no_data(&e.to_string()))? {
        if text.len() + chunk.len() > MAX_TEXT_PART {
            return Err(ApiError::bad_request(format!(
                "form parts other than `file` hold at most {MAX_TEXT_PART} bytes"
            )));
        }
        text.extend_from_slice(&chunk);
    }
    String::from_utf8(text).map_err(|_| ApiError::bad_request("form parts must be UTF-8 text"))
}

/// The smallest `max_media_file_size` of the sites, or the room left in the
/// smallest quota when that is less.
async fn site_limit(state: &AppState, site_ids: &[Uuid]) -> ApiResult<Limit> {
    let mut limit = Limit { bytes: u64::MAX, code: ErrorCode::MediaUploadTooLarge };
    let quota = state.config.media.site_quota_bytes;
    for site_id in site_ids {
        let max = u64::try_from(state.site_state(*site_id).await?.settings.max_media_file_size).unwrap_or(0);
        if max < limit.bytes {
            limit = Limit { bytes: max, code: ErrorCode::MediaUploadTooLarge };
        }
        if quota > 0 {
            let room = quota.saturating_sub(stored::bytes_used(&state.db, *site_id).await?);
            if room < limit.bytes {
                limit = Limit { bytes: room, code: ErrorCode::StorageQuotaExceeded };
            }
        }
    }
    Ok(limit)
}

async fn receive_file(state: &AppState, mut field: Field, limit: Limit) -> ApiResult<Received> {
    let filename = field
        .content_disposition()
        .and_then(|d| d.get_filename())
        .map(|f| f.rsplit(['/', '\\']).next().unwrap_or(f).trim().to_string())
        .filter(|f| !f.is_empty())
        .unwrap_or_else(|| "upload".to_string());
    let temp_key = format!("uploads/{}", Uuid::new_v4());
    let mut hasher = Sha256::new();
    let mut size: u64 = 0;
    let mut head: Vec<u8> = Vec::new();
    let mut writer: Option<(StreamingWrite, &'static str)> = None;
    let mut image: Option<Vec<u8>> = None;
    let read_failed = |e: String| {
        tracing::warn!(error = %e, "reading an upload failed");
        ApiError::new(ErrorCode::MediaUploadReadFailed, "reading the upload failed")
    };
    let result = async {
        while let Some(chunk) = field.try_next().await.map_err(|e| read_failed(e.to_string()))? {
            size += chunk.len() as u64;
            if size > limit.bytes {
                return Err(limit.refuse());
            }
            hasher.update(&chunk);
            match writer.as_mut() {
                Some((w, _)) => {
                    w.write(&chunk).await.map_err(|e| read_failed(e.to_string()))?;
                    if let Some(image) = image.as_mut() {
                        image.extend_from_slice(&chunk);
                    }
                }
                None => {
                    head.extend_from_slice(&chunk);
                    if head.len() >= SNIFF_BYTES {
                        writer = Some(start_writing(state, &temp_key, &head, &filename, &mut image).await?);
                    }
                }
            }
        }
        if size == 0 {
            return Err(ApiError::new(ErrorCode::MediaUploadEmpty, "the file is empty"));
        }
        if writer.is_none() {
            writer = Some(start_writing(state, &temp_key, &head, &filename, &mut image).await?);
        }
        Ok(())
    }
    .await;
    let Some((w, mime_type)) = writer else {
        return Err(result.err().unwrap_or_else(|| read_failed("no writer".into())));
    };
    if let Err(e) = result {
        w.abort().await;
        return Err(e);
    }
    w.finish().await.map_err(|e| read_failed(e.to_string()))?;
    Ok(Received {
        temp_key,
        filename: sniff::name_for(&filename, mime_type),
        original_filename: filename,
        size,
        checksum: hex::encode(hasher.finalize()),
        mime_type,
        image: image.map(Bytes::from),
    })
}

async fn start_writing(
    state: &AppState,
    temp_key: &str,
    head: &[u8],
    filename: &str,
    image: &mut Option<Vec<u8>>,
) -> ApiResult<(StreamingWrite, &'static str)> {
    let mime_type = match sniff::judge(&head[..head.len().min(SNIFF_BYTES)], filename) {
        Verdict::Allowed(mime) => mime,
        Verdict::Refused(why) => return Err(ApiError::new(ErrorCode::MediaUploadInvalidType, why)),
    };
    let storage_failed = |e: object_store::Error| {
        tracing::error!(error = %e, "storing an upload failed");
        ApiError::new(ErrorCode::StorageError, "the file could not be stored")
    };
    let mut w = state.storage.writer(temp_key).await.map_err(storage_failed)?;
    w.write(head).await.map_err(storage_failed)?;
    if sniff::is_raster_image(mime_type) {
        *image = Some(head.to_vec());
    }
    Ok((w, mime_type))
}

/// After the form: checks what could not be checked while streaming, then
/// answers an existing copy or stores the new file.
async fn store(
    state: &AppState,
    authorize: &impl AsyncFn(&[Uuid]) -> ApiResult<()>,
    actor: &Actor,
    form: &mut Form,
) -> ApiResult<(bool, MediaResponse)> {
    let Some(file) = form.file.as_ref() else {
        return Err(no_data("no `file` part"));
    };
    let site_ids = service::check_sites(state, form.site_ids.as_deref().unwrap_or_default()).await?;
    if !form.authorized {
        authorize(&site_ids).await?;
        let limit = site_limit(state, &site_ids).await?;
        if file.size > limit.bytes {
            return Err(limit.refuse());
        }
    }
    service::check_folder(&state.db, form.folder_id, &site_ids).await?;
    if let Some(existing) = stored::existing_copy(&state.db, &file.checksum, &site_ids).await? {
        return Ok((false, records::response(state, existing).await?));
    }
    let now = state.clock.now();
    let id = Uuid::new_v4();
    let mut record = media_file::ActiveModel {
        id: Set(id),
        filename: Set(file.filename.clone()),
        original_filename: Set(file.original_filename.clone()),
        mime_type: Set(file.mime_type.to_string()),
        file_size: Set(i64::try_from(file.size).unwrap_or(i64::MAX)),
        storage_key: Set(None),
        external_url: Set(None),
        checksum: Set(Some(file.checksum.clone())),
        width: Set(None),
        height: Set(None),
        duration: Set(None),
        thumbhash: Set(None),
        dominant_color: Set(None),
        focal_x: Set(None),
        focal_y: Set(None),
        tags: Set(json!([])),
        uploaded_by: Set(Some(actor.clone())),
        is_global: Set(form.is_global),
        folder_id: Set(form.folder_id),
        created_at: Set(now),
        updated_at: Set(now),
        deleted_at: Set(None),
        is_deleted: Set(false),
    };
    let variants = match stored::any_copy(&state.db, &file.checksum).await? {
        // The bytes are stored already (another site, or the trash): share them.
        Some(copy) if copy.storage_key.is_some() => {
            record.storage_key = Set(copy.storage_key.clone());
            record.width = Set(copy.width);
            record.height = Set(copy.height);
            record.thumbhash = Set(copy.thumbhash.clone());
            record.dominant_color = Set(copy.dominant_color.clone());
            record.focal_x = Set(copy.focal_x);
            record.focal_y = Set(copy.focal_y);
            stored::variants_of(&state.db, copy.id)
                .await?
                .into_iter()
                .map(|v| media_variant::ActiveModel {
                    id: Set(Uuid::new_v4()),
                    media_id: Set(id),
                    created_at: Set(now),
                    ..v.into()
                })
                .collect()
        }
        _ => process_and_store(state, file, id, &mut record).await?,
    };
    let response = service::insert(state, actor, record, &site_ids, variants).await?;
    Ok((true, response))
}

/// Makes the variants on the MediaPool (raster images), then moves the
/// upload to its content-addressed key: `media/<sha-256>/original.<ext>`.
async fn process_and_store(
    state: &AppState,
    file: &Received,
    id: Uuid,
    record: &mut media_file::ActiveModel,
) -> ApiResult<Vec<media_variant::ActiveModel>> {
    let dir = format!("media/{}", file.checksum);
    let key = format!("{dir}/original.{}", sniff::extension_of(file.mime_type));
    let mut variants = Vec::new();
    let mut clean_original = None;
    if let Some(bytes) = file.image.clone() {
        let rendered = super::variants::render(state, id, &file.checksum, bytes, file.mime_type).await?;
        record.width = Set(Some(rendered.width as i32));
        record.height = Set(Some(rendered.height as i32));
        record.thumbhash = Set(Some(rendered.thumbhash));
        record.dominant_color = Set(Some(rendered.dominant_color));
        variants = rendered.variants;
        clean_original = rendered.clean_original;
    }
    state.storage.rename(&file.temp_key, &key).await.map_err(storage_failed)?;
    if let Some(clean) = clean_original {
        state.storage.put(&key, clean).await.map_err(storage_failed)?;
    }
    record.storage_key = Set(Some(key));
    Ok(variants)
}
