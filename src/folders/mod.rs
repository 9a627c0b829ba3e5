//! Folders of a site's two libraries, media and documents: ordered by
//! `display_order`, nested through `parent_id`. One engine; each library has
//! its own paths and, for documents, its own rights and module gate.

mod model;
pub mod service;

pub use model::*;

use actix_web::web::{self};
use actix_web::HttpResponse;
use uuid::Uuid;

use crate::auth::{Capability, Principal};
use crate::error::ApiResult;
use crate::routes::Routes;
use crate::site_rows;
use crate::state::AppState;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Library {
    Media,
    Documents,
}

impl Library {
    pub fn as_str(self) -> &'static str {
        match self {
            Library::Media => "media",
            Library::Documents => "documents",
        }
    }

    /// Deleting a document folder needs Editor; the rest Author (the spec's table).
    fn delete_capability(self) -> Capability {
        match self {
            Library::Media => Capability::CreateContent,
            Library::Documents => Capability::EditAnyContent,
        }
    }

    async fn gate(self, state: &AppState, site_id: Uuid) -> ApiResult<()> {
        match self {
            Library::Media => Ok(()),
            Library::Documents => state.site_state(site_id).await?.settings.require_documents(),
        }
    }
}

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [
        list_media_folders, create_media_folder, update_media_folder, delete_media_folder,
        list_document_folders, create_document_folder, update_document_folder, delete_document_folder,
    ]);
}

async fn list(state: &AppState, principal: &Principal, library: Library, site_id: Uuid) -> ApiResult<HttpResponse> {
    principal.require(state, site_id, Capability::Read).await?;
    library.gate(state, site_id).await?;
    Ok(HttpResponse::Ok().json(service::list(state, library, site_id).await?))
}

async fn create(
    state: &AppState,
    principal: &Principal,
    library: Library,
    site_id: Uuid,
    body: CreateMediaFolder,
) -> ApiResult<HttpResponse> {
    principal.require(state, site_id, Capability::CreateContent).await?;
    library.gate(state, site_id).await?;
    let created = service::create(state, &principal.actor(), state.clock.now(), library, site_id, body).await?;
    Ok(HttpResponse::Created().json(created))
}

async fn find(
    state: &AppState,
    principal: &Principal,
    library: Library,
    id: Uuid,
    capability: Capability,
) -> ApiResult<plinth_entities::folder::Model> {
    let folder = service::of_library(site_rows::find(state, principal, id, capability).await?, library)?;
    library.gate(state, folder.site_id).await?;
    Ok(folder)
}

async fn update(
    state: &AppState,
    principal: &Principal,
    library: Library,
    id: Uuid,
    body: UpdateMediaFolder,
) -> ApiResult<HttpResponse> {
    let current = find(state, principal, library, id, Capability::CreateContent).await?;
    let updated = service::update(state, &principal.actor(), state.clock.now(), current, body).await?;
    Ok(HttpResponse::Ok().json(updated))
}

async fn delete(state: &AppState, principal: &Principal, library: Library, id: Uuid) -> ApiResult<HttpResponse> {
    let current = find(state, principal, library, id, library.delete_capability()).await?;
    service::delete(state, &principal.actor(), state.clock.now(), current).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// List a site's media folders
///
/// Read role or higher on the site. Ordered by display_order.
#[utoipa::path(get, path = "/sites/{site_id}/media-folders", tag = "Media", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<MediaFolderResponse>, description = "Ordered by display_order")))]
pub async fn list_media_folders(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    list(&state, &principal, Library::Media, site_id.into_inner()).await
}

/// Create a media folder
///
/// Author role or higher on the site. Errors: ENTITY_NOT_FOUND (parent), VALIDATION_INVALID_FORMAT.
#[utoipa::path(post, path = "/sites/{site_id}/media-folders", tag = "Media", params(("site_id" = Uuid, Path)),
    request_body = CreateMediaFolder, responses((status = 201, body = MediaFolderResponse)))]
pub async fn create_media_folder(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<CreateMediaFolder>,
) -> ApiResult<HttpResponse> {
    create(&state, &principal, Library::Media, site_id.into_inner(), body.into_inner()).await
}

/// Change a media folder
///
/// Author role or higher on the folder's site. Errors: ENTITY_NOT_FOUND, VALIDATION_INVALID_FORMAT.
#[utoipa::path(put, path = "/media-folders/{id}", tag = "Media", params(("id" = Uuid, Path)),
    request_body = UpdateMediaFolder, responses((status = 200, body = MediaFolderResponse)))]
pub async fn update_media_folder(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateMediaFolder>,
) -> ApiResult<HttpResponse> {
    update(&state, &principal, Library::Media, id.into_inner(), body.into_inner()).await
}

/// Delete a media folder
///
/// Author role or higher on the folder's site. Files in it become unassigned, not deleted. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(delete, path = "/media-folders/{id}", tag = "Media", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Deleted; its files become unassigned, its sub-folders move up")))]
pub async fn delete_media_folder(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    delete(&state, &principal, Library::Media, id.into_inner()).await
}

/// List a site's document folders
///
/// Read role or higher on the site.
#[utoipa::path(get, path = "/sites/{site_id}/document-folders", tag = "Documents", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<MediaFolderResponse>, description = "Ordered by display_order")))]
pub async fn list_document_folders(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    list(&state, &principal, Library::Documents, site_id.into_inner()).await
}

/// Create a document folder
///
/// Author role or higher on the site. Errors: ENTITY_NOT_FOUND (parent), VALIDATION_INVALID_FORMAT.
#[utoipa::path(post, path = "/sites/{site_id}/document-folders", tag = "Documents", params(("site_id" = Uuid, Path)),
    request_body = CreateMediaFolder, responses((status = 201, body = MediaFolderResponse)))]
pub async fn create_document_folder(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<CreateMediaFolder>,
) -> ApiResult<HttpResponse> {
    create(&state, &principal, Library::Documents, site_id.into_inner(), body.into_inner()).await
}

/// Change a document folder
///
/// Author role or higher on the folder's site. Errors: ENTITY_NOT_FOUND, VALIDATION_INVALID_FORMAT.
#[utoipa::path(put, path = "/document-folders/{id}", tag = "Documents", params(("id" = Uuid, Path)),
    request_body = UpdateMediaFolder, responses((status = 200, body = MediaFolderResponse)))]
pub async fn update_document_folder(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateMediaFolder>,
) -> ApiResult<HttpResponse> {
    update(&state, &principal, Library::Documents, id.into_inner(), body.into_inner()).await
}

/// Delete a document folder
///
/// Editor role or higher on the folder's site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(delete, path = "/document-folders/{id}", tag = "Documents", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Deleted (Editor); its documents become unassigned, its sub-folders move up")))]
pub async fn delete_document_folder(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    delete(&state, &principal, Library::Documents, id.into_inner()).await
}
