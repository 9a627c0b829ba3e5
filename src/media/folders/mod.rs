//! Folders of a site's media library: ordered by `display_order`, nested
//! through `parent_id`.

pub mod service;

use actix_web::web::{self};
use actix_web::HttpResponse;
use uuid::Uuid;

use crate::auth::{Capability, Principal};
use crate::error::ApiResult;
use crate::media::model::{CreateMediaFolder, MediaFolderResponse, UpdateMediaFolder};
use crate::routes::Routes;
use crate::site_rows;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_media_folders, create_media_folder, update_media_folder, delete_media_folder]);
}

#[utoipa::path(get, path = "/sites/{site_id}/media-folders", tag = "Media", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<MediaFolderResponse>, description = "Ordered by display_order")))]
pub async fn list_media_folders(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    Ok(HttpResponse::Ok().json(service::list(&state, site_id).await?))
}

#[utoipa::path(post, path = "/sites/{site_id}/media-folders", tag = "Media", params(("site_id" = Uuid, Path)),
    request_body = CreateMediaFolder, responses((status = 201, body = MediaFolderResponse)))]
pub async fn create_media_folder(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: web::Json<CreateMediaFolder>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::CreateContent).await?;
    let now = state.clock.now();
    let created = service::create(&state, &principal.actor_id(), now, site_id, body.into_inner()).await?;
    Ok(HttpResponse::Created().json(created))
}

#[utoipa::path(put, path = "/media-folders/{id}", tag = "Media", params(("id" = Uuid, Path)),
    request_body = UpdateMediaFolder, responses((status = 200, body = MediaFolderResponse)))]
pub async fn update_media_folder(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: web::Json<UpdateMediaFolder>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = site_rows::find(&state, &principal, id.into_inner(), Capability::CreateContent).await?;
    let updated = service::update(&state, &principal.actor_id(), now, current, body.into_inner()).await?;
    Ok(HttpResponse::Ok().json(updated))
}

#[utoipa::path(delete, path = "/media-folders/{id}", tag = "Media", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Deleted; its files become unassigned, its sub-folders move up")))]
pub async fn delete_media_folder(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = site_rows::find(&state, &principal, id.into_inner(), Capability::CreateContent).await?;
    service::delete(&state, &principal.actor_id(), now, current).await?;
    Ok(HttpResponse::NoContent().finish())
}
