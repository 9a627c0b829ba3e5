//! The media library: uploads streamed to storage and processed on the
//! MediaPool, records of external files, per-locale metadata, folders, usage,
//! the trash, serving of the bytes, and each site's favicon package.

pub mod access;
pub mod favicon;
pub mod files;
mod lease;
pub mod listing;
pub mod metadata;
mod model;
pub mod records;
pub mod service;
mod sniff;
pub mod stored;
pub mod trash;
mod upload;
mod usage;
pub mod variants;

pub use model::*;
pub use sniff::is_raster_image;

use actix_multipart::Multipart;
use actix_web::web::{self};
use actix_web::HttpResponse;
use plinth_actors::media_pool::{ImageJob, ImageOutcome};
use plinth_entities::media_variant;
use sea_orm::ActiveValue::Set;
use uuid::Uuid;

use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult, Problem};
use crate::pagination::Paginated;
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_media, upload_media, create_media, get_media, media_usage, update_media, delete_media],
        lease => [take_media_lease, release_media_lease]);
    crate::mount!(r, public: files => [serve_file]);
    metadata::routes(r);
    favicon::routes(r);
}

/// List a site's media
///
/// Read role or higher on the site. `search` covers filename, alt text, caption and title. Errors:
/// VALIDATION_OUT_OF_RANGE.
#[utoipa::path(get, path = "/sites/{site_id}/media", tag = "Media", params(("site_id" = Uuid, Path), MediaListQuery),
    responses((status = 200, body = Paginated<MediaResponse>, description = "Newest first")))]
pub async fn list_media(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<MediaListQuery>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    Ok(HttpResponse::Ok().json(service::list(&state, site_id, query.into_inner()).await?))
}

/// Upload a media file
///
/// Author role or higher on every site in `site_ids`. Multipart; the type is detected from the bytes. A file whose
/// checksum exists answers 200 with the existing record. Errors: MEDIA_UPLOAD_NO_DATA, MEDIA_UPLOAD_EMPTY,
/// MEDIA_UPLOAD_INVALID_TYPE, MEDIA_UPLOAD_TOO_LARGE, MEDIA_UPLOAD_READ_FAILED, STORAGE_QUOTA_EXCEEDED,
/// AUTH_SITE_ACCESS_DENIED.
#[utoipa::path(
    post,
    path = "/media/upload",
    tag = "Media",
    request_body(content = UploadMediaForm, content_type = "multipart/form-data"),
    responses(
        (status = 201, body = MediaResponse, description = "Stored; images carry thumbnail, small, medium and large variants"),
        (status = 200, body = MediaResponse, description = "The site already had a file with this checksum: that record"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "MEDIA_UPLOAD_NO_DATA, MEDIA_UPLOAD_EMPTY, MEDIA_UPLOAD_INVALID_TYPE (judged from the content), MEDIA_UPLOAD_TOO_LARGE (max_media_file_size, or more than 64 megapixels)"),
        (status = 413, body = Problem, content_type = "application/problem+json", description = "STORAGE_QUOTA_EXCEEDED"),
        (status = 503, body = Problem, content_type = "application/problem+json", description = "Every image worker busy; Retry-After says when to try again")
    )
)]
pub async fn upload_media(
    state: web::Data<AppState>,
    principal: Principal,
    multipart: Multipart,
) -> ApiResult<HttpResponse> {
    let authorize =
        async |site_ids: &[Uuid]| access::authorize(&state, &principal, site_ids, Capability::CreateContent).await;
    let (created, record) = upload::upload(&state, authorize, &principal.actor(), multipart).await?;
    Ok(if created { HttpResponse::Created().json(record) } else { HttpResponse::Ok().json(record) })
}

/// Record an external media file
///
/// Author role or higher on every site in `site_ids`. Errors: MEDIA_TAG_INVALID, MEDIA_TOO_MANY_TAGS,
/// VALIDATION_INVALID_FORMAT, VALIDATION_REQUIRED_FIELD, AUTH_SITE_ACCESS_DENIED.
#[utoipa::path(post, path = "/media", tag = "Media", request_body = CreateMedia,
    responses((status = 201, body = MediaResponse, description = "A record of a file stored elsewhere")))]
pub async fn create_media(
    state: web::Data<AppState>,
    principal: Principal,
    body: crate::body::Json<CreateMedia>,
) -> ApiResult<HttpResponse> {
    let body = body.into_inner();
    let site_ids = service::check_sites(&state, &body.site_ids).await?;
    access::authorize(&state, &principal, &site_ids, Capability::CreateContent).await?;
    let record = service::create_external(&state, &principal.actor(), site_ids, body).await?;
    Ok(HttpResponse::Created().json(record))
}

/// Show a media file
///
/// Read role or higher on one of the file's sites; with variants. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/media/{id}", tag = "Media", params(("id" = Uuid, Path)),
    responses((status = 200, body = MediaResponse)))]
pub async fn get_media(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let found = access::live(&state, &principal, id.into_inner(), Capability::Read).await?;
    Ok(HttpResponse::Ok().json(records::response(&state, found.file).await?))
}

/// Show where a media file is used
///
/// Read role or higher on one of the file's sites. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/media/{id}/usage", tag = "Media", params(("id" = Uuid, Path)),
    responses((status = 200, body = MediaUsage)))]
pub async fn media_usage(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let found = access::live(&state, &principal, id.into_inner(), Capability::Read).await?;
    Ok(HttpResponse::Ok().json(usage::usage(&state, &found).await?))
}

/// Change a media file's record
///
/// Author role or higher on the file's sites. Errors: ENTITY_NOT_FOUND, MEDIA_TAG_INVALID, MEDIA_TOO_MANY_TAGS,
/// VALIDATION_INVALID_FORMAT.
#[utoipa::path(put, path = "/media/{id}", tag = "Media", params(("id" = Uuid, Path)), request_body = UpdateMedia,
    responses((status = 200, body = MediaResponse)))]
pub async fn update_media(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateMedia>,
) -> ApiResult<HttpResponse> {
    let found = access::live(&state, &principal, id.into_inner(), Capability::CreateContent).await?;
    let changes = service::changes(&state, &found, &body).await?;
    let thumbnail = match changes.focal_changed {
        true => recrop_thumbnail(&state, &found.file, changes.focal).await?,
        false => None,
    };
    let updated = service::save_update(&state, &principal.actor(), found, changes.row, thumbnail).await?;
    Ok(HttpResponse::Ok().json(updated))
}

/// A new square thumbnail around the changed focal point, rendered on the
/// MediaPool from the stored original.
async fn recrop_thumbnail(
    state: &AppState,
    file: &plinth_entities::media_file::Model,
    focal: Option<(f64, f64)>,
) -> ApiResult<Option<media_variant::ActiveModel>> {
    let (Some(key), Some(checksum)) = (&file.storage_key, &file.checksum) else { return Ok(None) };
    if !sniff::is_raster_image(&file.mime_type) {
        return Ok(None);
    }
    let bytes = state.storage.get(key).await.map_err(|e| {
        tracing::error!(error = %e, "reading a stored original failed");
        ApiError::new(crate::error::ErrorCode::StorageError, "the original could not be read")
    })?;
    let job = ImageJob::Library { bytes, mime_type: file.mime_type.clone(), focal };
    let ImageOutcome::Library { image, .. } =
        state.actors.media_pool.run(crate::tenant::current(), job).await.map_err(variants::pool_error)?
    else {
        return Err(ApiError::internal("the MediaPool answered another job"));
    };
    let Some(thumbnail) = image.variants.into_iter().find(|v| v.name == "thumbnail") else { return Ok(None) };
    let key = variants::variant_key(&format!("media/{checksum}"), thumbnail.name, thumbnail.mime_type, focal);
    let size = thumbnail.bytes.len() as i64;
    state.storage.put(&key, thumbnail.bytes).await.map_err(|e| {
        tracing::error!(error = %e, "storing a thumbnail failed");
        ApiError::new(crate::error::ErrorCode::StorageError, "the thumbnail could not be stored")
    })?;
    Ok(Some(media_variant::ActiveModel {
        id: Set(Uuid::new_v4()),
        media_id: Set(file.id),
        variant_name: Set("thumbnail".into()),
        width: Set(thumbnail.width as i32),
        height: Set(thumbnail.height as i32),
        file_size: Set(size),
        mime_type: Set(thumbnail.mime_type.to_string()),
        storage_key: Set(key),
        created_at: Set(state.clock.now()),
    }))
}

/// Delete a media file
///
/// Author role or higher on the file's sites. Soft delete; a referenced file answers 409 with its usage unless
/// `force=true`. Errors: ENTITY_NOT_FOUND, CONFLICT.
#[utoipa::path(delete, path = "/media/{id}", tag = "Media", params(("id" = Uuid, Path), DeleteMediaQuery),
    responses(
        (status = 204, description = "Moved to the trash"),
        (status = 409, body = Problem, content_type = "application/problem+json", description = "Still referenced: CONFLICT with `usage_count`; force=true deletes anyway")
    ))]
pub async fn delete_media(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    query: web::Query<DeleteMediaQuery>,
) -> ApiResult<HttpResponse> {
    let found = access::live(&state, &principal, id.into_inner(), Capability::CreateContent).await?;
    service::delete(&state, &principal.actor(), found, query.force.unwrap_or(false)).await?;
    Ok(HttpResponse::NoContent().finish())
}
