//! Menu endpoints: list, read (as a tree), create, rename, delete.

use actix_web::http::header::ETAG;
use actix_web::{web, HttpResponse};
use plinth_entities::nav_menu;
use uuid::Uuid;

use super::model::*;
use super::service;
use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult};
use crate::site_rows;
use crate::state::AppState;

/// List a site's menus
///
/// Read role or higher on the site.
#[utoipa::path(get, path = "/sites/{site_id}/menus", tag = "Navigation", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<MenuResponse>)))]
pub async fn list_menus(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    Ok(HttpResponse::Ok().json(service::list_menus(&state, site_id).await?))
}

/// Show a menu with its items
///
/// Read role or higher on the menu's site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/menus/{id}", tag = "Navigation", params(("id" = Uuid, Path), MenuQuery),
    responses((status = 200, body = MenuDetail)))]
pub async fn get_menu(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    query: web::Query<MenuQuery>,
) -> ApiResult<HttpResponse> {
    let menu: nav_menu::Model = site_rows::find(&state, &principal, id.into_inner(), Capability::Read).await?;
    Ok(HttpResponse::Ok().json(service::menu_detail(&state, &menu, query.locale.as_deref()).await?))
}

/// Create a menu
///
/// Editor role or higher on the site. Errors: VALIDATION_REQUIRED_FIELD, VALIDATION_INVALID_FORMAT.
#[utoipa::path(
    post,
    path = "/sites/{site_id}/menus",
    tag = "Navigation",
    params(("site_id" = Uuid, Path)),
    request_body = CreateMenu,
    responses((status = 201, body = MenuResponse))
)]
pub async fn create_menu(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<CreateMenu>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::EditAnyContent).await?;
    let now = state.clock.now();
    let created = service::create_menu(&state, &principal.actor(), now, site_id, body.into_inner()).await?;
    Ok(HttpResponse::Created().json(created))
}

/// Change a menu
///
/// Editor role or higher on the menu's site. Errors: ENTITY_NOT_FOUND, VALIDATION_INVALID_FORMAT.
#[utoipa::path(put, path = "/menus/{id}", tag = "Navigation", params(("id" = Uuid, Path)), request_body = UpdateMenu,
    responses((status = 200, body = MenuResponse)))]
pub async fn update_menu(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateMenu>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = site_rows::find(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    compare_with_detail(&state, &current).await?;
    let updated = service::update_menu(&state, &principal.actor(), now, current, body.into_inner()).await?;
    // Tagged as its `GET` is, with its items: the next save sends this tag.
    let menu = site_rows::find(&state, &principal, updated.id, Capability::EditAnyContent).await?;
    let detail = serde_json::to_vec(&service::menu_detail(&state, &menu, None).await?).map_err(ApiError::internal)?;
    Ok(HttpResponse::Ok().insert_header((ETAG, crate::etag::etag_of(&detail))).json(updated))
}

/// Delete a menu
///
/// Editor role or higher on the menu's site. Soft delete. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(delete, path = "/menus/{id}", tag = "Navigation", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Moved to the trash with its items")))]
pub async fn delete_menu(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = site_rows::find(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    compare_with_detail(&state, &current).await?;
    service::delete_menu(&state, &principal.actor(), now, current).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// A menu's entries record the menu alone; its `GET` answers it with its
/// items, and that is the tag a conditional write (`If-Match`) holds.
async fn compare_with_detail(state: &AppState, menu: &nav_menu::Model) -> ApiResult<()> {
    if crate::preconditions::pending() {
        crate::preconditions::compare_with(&service::menu_detail(state, menu, None).await?);
    }
    Ok(())
}
