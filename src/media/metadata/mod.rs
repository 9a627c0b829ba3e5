//! Per-locale metadata of a media file. The spec lets every role that can
//! read the file keep its metadata (Read), so describing images is open to
//! the whole team.

pub mod service;

use actix_web::web::{self};
use actix_web::HttpResponse;
use uuid::Uuid;

use crate::auth::{Capability, Principal};
use crate::error::ApiResult;
use crate::media::access;
use crate::media::model::{CreateMediaMetadata, MediaMetadataResponse, UpdateMediaMetadata};
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_media_metadata, create_media_metadata, update_media_metadata, delete_media_metadata]);
}

/// List a media file's metadata
///
/// Read role or higher on the file's site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/media/{id}/metadata", tag = "Media", params(("id" = Uuid, Path)),
    responses((status = 200, body = Vec<MediaMetadataResponse>)))]
pub async fn list_media_metadata(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let found = access::find(&state, &principal, id.into_inner(), Capability::Read, false).await?;
    Ok(HttpResponse::Ok().json(service::list(&state, found.file.id).await?))
}

/// Add metadata to a media file
///
/// Read role or higher on the file's site. Errors: ENTITY_NOT_FOUND, CONFLICT, VALIDATION_INVALID_FORMAT.
#[utoipa::path(post, path = "/media/{id}/metadata", tag = "Media", params(("id" = Uuid, Path)),
    request_body = CreateMediaMetadata, responses((status = 201, body = MediaMetadataResponse)))]
pub async fn create_media_metadata(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<CreateMediaMetadata>,
) -> ApiResult<HttpResponse> {
    let found = access::find(&state, &principal, id.into_inner(), Capability::Read, false).await?;
    let created = service::create(&state, &principal.actor(), &found, body.into_inner()).await?;
    Ok(HttpResponse::Created().json(created))
}

/// Change a media file's metadata
///
/// Read role or higher on the file's site. Errors: ENTITY_NOT_FOUND, VALIDATION_INVALID_FORMAT.
#[utoipa::path(put, path = "/media/metadata/{metadata_id}", tag = "Media", params(("metadata_id" = Uuid, Path)),
    request_body = UpdateMediaMetadata, responses((status = 200, body = MediaMetadataResponse)))]
pub async fn update_media_metadata(
    state: web::Data<AppState>,
    principal: Principal,
    metadata_id: web::Path<Uuid>,
    body: crate::body::Json<UpdateMediaMetadata>,
) -> ApiResult<HttpResponse> {
    let current = service::find(&state, metadata_id.into_inner()).await?;
    let found = access::find(&state, &principal, current.media_id, Capability::Read, false).await?;
    let updated = service::update(&state, &principal.actor(), &found, current, body.into_inner()).await?;
    Ok(HttpResponse::Ok().json(updated))
}

/// Delete a media file's metadata
///
/// Read role or higher on the file's site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(delete, path = "/media/metadata/{metadata_id}", tag = "Media", params(("metadata_id" = Uuid, Path)),
    responses((status = 204, description = "Deleted")))]
pub async fn delete_media_metadata(
    state: web::Data<AppState>,
    principal: Principal,
    metadata_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let current = service::find(&state, metadata_id.into_inner()).await?;
    let found = access::find(&state, &principal, current.media_id, Capability::Read, false).await?;
    service::delete(&state, &principal.actor(), &found, current).await?;
    Ok(HttpResponse::NoContent().finish())
}
