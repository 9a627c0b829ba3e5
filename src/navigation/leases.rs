//! Edit leases (`crate::leases`) on menus and menu items: whoever may change
//! one may take, renew or release its lease.

use actix_web::{web, HttpResponse};
use plinth_entities::{nav_item, nav_menu};
use uuid::Uuid;

use crate::auth::{Capability, Principal};
use crate::error::{ApiResult, Problem};
use crate::leases::{self, LeaseResponse, TakeLease};
use crate::site_rows;
use crate::state::AppState;

/// Take or renew the edit lease of a menu
///
/// Editor role or higher on the menu's site. Leases are advisory (see `POST /blogs/{id}/lease`). Errors:
/// LEASE_HELD (423, with the holder, unless `takeover`), ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE,
/// VALIDATION_OUT_OF_RANGE.
#[utoipa::path(post, path = "/menus/{id}/lease", tag = "Navigation", params(("id" = Uuid, Path)),
    request_body(content = Option<TakeLease>),
    responses(
        (status = 200, body = LeaseResponse, description = "Taken, renewed or taken over"),
        (status = 423, body = Problem, description = "LEASE_HELD: another caller holds it; `lease` names who and until when")
    ))]
pub async fn take_menu_lease(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: Option<crate::body::Json<TakeLease>>,
) -> ApiResult<HttpResponse> {
    let menu: nav_menu::Model = site_rows::find(&state, &principal, *id, Capability::EditAnyContent).await?;
    let body = body.map(|b| b.into_inner());
    Ok(HttpResponse::Ok().json(leases::take_row(&state, &principal.actor(), &menu, body).await?))
}

/// Release the edit lease of a menu
///
/// The holder's; nothing to release answers 204 too. Errors: LEASE_HELD (423: another caller's live lease),
/// ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE.
#[utoipa::path(delete, path = "/menus/{id}/lease", tag = "Navigation", params(("id" = Uuid, Path)),
    responses(
        (status = 204, description = "Released (or there was none of the caller's)"),
        (status = 423, body = Problem, description = "LEASE_HELD: another caller's live lease")
    ))]
pub async fn release_menu_lease(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let menu: nav_menu::Model = site_rows::find(&state, &principal, *id, Capability::EditAnyContent).await?;
    leases::release(&state, &principal.actor(), menu.id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Take or renew the edit lease of a menu item
///
/// Editor role or higher on the item's site. Leases are advisory (see `POST /blogs/{id}/lease`). Errors:
/// LEASE_HELD (423, with the holder, unless `takeover`), ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE,
/// VALIDATION_OUT_OF_RANGE.
#[utoipa::path(post, path = "/navigation/{id}/lease", tag = "Navigation", params(("id" = Uuid, Path)),
    request_body(content = Option<TakeLease>),
    responses(
        (status = 200, body = LeaseResponse, description = "Taken, renewed or taken over"),
        (status = 423, body = Problem, description = "LEASE_HELD: another caller holds it; `lease` names who and until when")
    ))]
pub async fn take_menu_item_lease(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: Option<crate::body::Json<TakeLease>>,
) -> ApiResult<HttpResponse> {
    let item: nav_item::Model = site_rows::find(&state, &principal, *id, Capability::EditAnyContent).await?;
    let body = body.map(|b| b.into_inner());
    Ok(HttpResponse::Ok().json(leases::take_row(&state, &principal.actor(), &item, body).await?))
}

/// Release the edit lease of a menu item
///
/// The holder's; nothing to release answers 204 too. Errors: LEASE_HELD (423: another caller's live lease),
/// ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE.
#[utoipa::path(delete, path = "/navigation/{id}/lease", tag = "Navigation", params(("id" = Uuid, Path)),
    responses(
        (status = 204, description = "Released (or there was none of the caller's)"),
        (status = 423, body = Problem, description = "LEASE_HELD: another caller's live lease")
    ))]
pub async fn release_menu_item_lease(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let item: nav_item::Model = site_rows::find(&state, &principal, *id, Capability::EditAnyContent).await?;
    leases::release(&state, &principal.actor(), item.id).await?;
    Ok(HttpResponse::NoContent().finish())
}
