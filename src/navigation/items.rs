//! Menu-item endpoints: create, update (move, relabel, relink), delete with the
//! items under it.

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::model::*;
use super::service;
use crate::auth::{Capability, Principal};
use crate::error::ApiResult;
use crate::site_rows;
use crate::state::AppState;

/// Add an item to a menu
///
/// Editor role or higher on the menu's site. Errors: ENTITY_NOT_FOUND, VALIDATION_INVALID_FORMAT,
/// VALIDATION_REQUIRED_FIELD.
#[utoipa::path(
    post,
    path = "/menus/{id}/items",
    tag = "Navigation",
    params(("id" = Uuid, Path)),
    request_body = CreateMenuItem,
    responses((status = 201, body = MenuItemNode))
)]
pub async fn create_menu_item(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<CreateMenuItem>,
) -> ApiResult<HttpResponse> {
    let menu = site_rows::find(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    let now = state.clock.now();
    let created = service::create_item(&state, &principal.actor(), now, menu, body.into_inner()).await?;
    Ok(HttpResponse::Created().json(created))
}

/// Change a menu item
///
/// Editor role or higher on the item's site. Errors: ENTITY_NOT_FOUND, VALIDATION_INVALID_FORMAT.
#[utoipa::path(
    put,
    path = "/menu-items/{id}",
    tag = "Navigation",
    params(("id" = Uuid, Path)),
    request_body = UpdateMenuItem,
    responses((status = 200, body = MenuItemNode))
)]
pub async fn update_menu_item(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateMenuItem>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = site_rows::find(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    let updated = service::update_item(&state, &principal.actor(), now, current, body.into_inner()).await?;
    Ok(HttpResponse::Ok().json(updated))
}

/// Delete a menu item
///
/// Editor role or higher on the item's site. Soft delete. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(delete, path = "/menu-items/{id}", tag = "Navigation", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Moved to the trash with the items under it")))]
pub async fn delete_menu_item(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let current = site_rows::find(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    let now = state.clock.now();
    service::delete_item(&state, &principal.actor(), now, current).await?;
    Ok(HttpResponse::NoContent().finish())
}
