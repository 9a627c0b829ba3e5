//! Navigation at the paths the origin service's admin calls: a menu's items
//! flat and as a tree, reordering, items at `/navigation/{id}` with their
//! labels by locale id, and a site's navigation (its `primary` menu). Writes go
//! through the same services as Plinth's own paths.

use actix_web::{web, HttpResponse};
use plinth_entities::{nav_item, nav_menu};
use uuid::Uuid;

use super::arrange::{self, Reorder};
use super::model::*;
use super::{items, service};
use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError, Problem};
use crate::site_rows;
use crate::state::AppState;

/// List a menu's items
///
/// Read role or higher on the menu's site. Every live item, flat, in order (by
/// `display_order` among all), each with `parent_id`. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/menus/{id}/items", tag = "Navigation", params(("id" = Uuid, Path)),
    responses((status = 200, body = Vec<MenuItemNode>), (status = "4XX", body = Problem, description = "ENTITY_NOT_FOUND")))]
pub async fn list_menu_items(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let menu: nav_menu::Model = site_rows::find(&state, &principal, id.into_inner(), Capability::Read).await?;
    Ok(HttpResponse::Ok().json(arrange::flat_items(&state, menu.id).await?))
}

/// A menu's items as a tree
///
/// Read role or higher on the menu's site. Labels in `locale` (a code) where
/// an item has one; linked items' slugs as `page_slug`. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/menus/{id}/tree", tag = "Navigation", params(("id" = Uuid, Path), MenuQuery),
    responses((status = 200, body = Vec<MenuItemNode>), (status = "4XX", body = Problem, description = "ENTITY_NOT_FOUND")))]
pub async fn menu_tree(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    query: web::Query<MenuQuery>,
) -> ApiResult<HttpResponse> {
    let menu: nav_menu::Model = site_rows::find(&state, &principal, id.into_inner(), Capability::Read).await?;
    Ok(HttpResponse::Ok().json(arrange::tree_of(&state, menu.id, query.locale.as_deref()).await?))
}

/// Reorder a menu's items
///
/// Editor role or higher on the menu's site. Each named item takes its parent
/// (`null` or omitted: the top) and position; the others stay. All or nothing.
/// Errors: ENTITY_NOT_FOUND (an item not live in the menu), VALIDATION_ERROR (a
/// parent outside the menu, an item under itself, deeper than `max_depth`,
/// more than 1,000 items, an item named twice).
#[utoipa::path(post, path = "/menus/{id}/items/reorder", tag = "Navigation", params(("id" = Uuid, Path)),
    request_body = ReorderItems,
    responses((status = 204, description = "Reordered"), (status = "4XX", body = Problem, description = "ENTITY_NOT_FOUND, VALIDATION_ERROR")))]
pub async fn reorder_menu_items(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<ReorderItems>,
) -> ApiResult<HttpResponse> {
    let menu = site_rows::find(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    let now = state.clock.now();
    arrange::reorder(&state, &principal.actor(), now, Reorder::Menu(Box::new(menu)), body.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Get a menu item
///
/// Read role or higher on the item's site. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/navigation/{id}", tag = "Navigation", params(("id" = Uuid, Path)),
    responses((status = 200, body = MenuItemNode), (status = "4XX", body = Problem, description = "ENTITY_NOT_FOUND")))]
pub async fn get_navigation_item(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let item: nav_item::Model = site_rows::find(&state, &principal, id.into_inner(), Capability::Read).await?;
    Ok(HttpResponse::Ok().json(service::node(&item)))
}

/// Change a menu item (the origin service's path)
///
/// `PUT /menu-items/{id}` under the origin admin's path: the same body, checks and answer.
#[utoipa::path(put, path = "/navigation/{id}", tag = "Navigation", params(("id" = Uuid, Path)), request_body = UpdateMenuItem,
    responses((status = 200, body = MenuItemNode), (status = "4XX", body = Problem, description = "ENTITY_NOT_FOUND, VALIDATION_ERROR")))]
pub async fn update_navigation_item(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateMenuItem>,
) -> ApiResult<HttpResponse> {
    items::update_menu_item(state, principal, id, body).await
}

/// Delete a menu item (the origin service's path)
///
/// `DELETE /menu-items/{id}` under the origin admin's path: to the trash with the items under it.
#[utoipa::path(delete, path = "/navigation/{id}", tag = "Navigation", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Moved to the trash"), (status = "4XX", body = Problem, description = "ENTITY_NOT_FOUND")))]
pub async fn delete_navigation_item(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    items::delete_menu_item(state, principal, id).await
}

/// A menu item's labels by locale
///
/// Read role or higher on the item's site. One entry per locale of the site the item has a label in.
#[utoipa::path(get, path = "/navigation/{id}/localizations", tag = "Navigation", params(("id" = Uuid, Path)),
    responses((status = 200, body = Vec<ItemLocalization>), (status = "4XX", body = Problem, description = "ENTITY_NOT_FOUND")))]
pub async fn get_item_localizations(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let item: nav_item::Model = site_rows::find(&state, &principal, id.into_inner(), Capability::Read).await?;
    Ok(HttpResponse::Ok().json(arrange::localizations(&state, &item).await?))
}

/// Set a menu item's labels by locale
///
/// Editor role or higher on the item's site. `[{locale_id, title}]`: each sets
/// the label in a locale of the site; labels in other locales stay. Answers
/// every label. Errors: ENTITY_NOT_FOUND, VALIDATION_ERROR.
#[utoipa::path(put, path = "/navigation/{id}/localizations", tag = "Navigation", params(("id" = Uuid, Path)),
    request_body = Vec<ItemLocalizationInput>,
    responses((status = 200, body = Vec<ItemLocalization>), (status = "4XX", body = Problem, description = "ENTITY_NOT_FOUND, VALIDATION_ERROR")))]
pub async fn put_item_localizations(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<Vec<ItemLocalizationInput>>,
) -> ApiResult<HttpResponse> {
    let item = site_rows::find(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    let now = state.clock.now();
    Ok(HttpResponse::Ok()
        .json(arrange::put_localizations(&state, &principal.actor(), now, item, body.into_inner()).await?))
}

/// A site's navigation
///
/// Read role or higher on the site. The items of the site's `primary` menu,
/// flat and in order; empty when it has none.
#[utoipa::path(get, path = "/sites/{site_id}/navigation", tag = "Navigation", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<MenuItemNode>)))]
pub async fn list_site_navigation(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    let items = match arrange::primary_menu(&state, site_id).await? {
        Some(menu) => arrange::flat_items(&state, menu.id).await?,
        None => Vec::new(),
    };
    Ok(HttpResponse::Ok().json(items))
}

/// Add an item to one of a site's menus
///
/// Editor role or higher on the site. The menu is the body's `menu_id` (a menu
/// of the site), else the site's `primary` menu. Errors: ENTITY_NOT_FOUND,
/// VALIDATION_ERROR (no `menu_id` and no primary menu).
#[utoipa::path(post, path = "/sites/{site_id}/navigation", tag = "Navigation", params(("site_id" = Uuid, Path)),
    request_body = CreateMenuItem,
    responses((status = 201, body = MenuItemNode), (status = "4XX", body = Problem, description = "ENTITY_NOT_FOUND, VALIDATION_ERROR")))]
pub async fn create_site_navigation_item(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<CreateMenuItem>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::EditAnyContent).await?;
    let body = body.into_inner();
    let menu = match body.menu_id {
        Some(menu_id) => {
            let menu: nav_menu::Model =
                site_rows::find(&state, &principal, menu_id, Capability::EditAnyContent).await?;
            if menu.site_id != site_id {
                return Err(ApiError::not_found("menu", menu_id));
            }
            menu
        }
        None => arrange::primary_menu(&state, site_id).await?.ok_or_else(|| {
            let detail = "the site has no primary menu: name one";
            ApiError::validation(vec![FieldError::new("menu_id", ErrorCode::ValidationRequiredField, detail)])
        })?,
    };
    let now = state.clock.now();
    let created = service::create_item(&state, &principal.actor(), now, menu, body).await?;
    Ok(HttpResponse::Created().json(created))
}

/// Reorder a site's navigation items
///
/// Editor role or higher on the site. Each named item (a live item of any of
/// the site's menus) takes its `display_order`; parents stay. All or nothing.
/// Errors: ENTITY_NOT_FOUND, VALIDATION_ERROR.
#[utoipa::path(post, path = "/sites/{site_id}/navigation/reorder", tag = "Navigation", params(("site_id" = Uuid, Path)),
    request_body = ReorderItems,
    responses((status = 204, description = "Reordered"), (status = "4XX", body = Problem, description = "ENTITY_NOT_FOUND, VALIDATION_ERROR")))]
pub async fn reorder_site_navigation(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<ReorderItems>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::EditAnyContent).await?;
    let now = state.clock.now();
    arrange::reorder(&state, &principal.actor(), now, Reorder::Site(site_id), body.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}
