//! Menu endpoints: list, read (as a tree), create, rename, delete.

use actix_web::{web, HttpResponse};
use plinth_entities::nav_menu;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::json;
use uuid::Uuid;

use crate::audit::{self, Action};
use crate::auth::{Capability, Principal};
use crate::content::events::commit_with_events;
use crate::error::{on_constraint, ApiError, ApiResult, Constraint};
use crate::state::AppState;
use crate::values::{required_text, Slug};

use super::model::*;
use super::rules::*;

#[utoipa::path(get, path = "/sites/{site_id}/menus", tag = "Navigation", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<MenuResponse>)))]
pub async fn list_menus(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    let menus = nav_menu::Entity::find()
        .filter(nav_menu::Column::SiteId.eq(site_id))
        .filter(nav_menu::Column::IsDeleted.eq(false))
        .order_by_asc(nav_menu::Column::Name)
        .all(&state.db)
        .await?;
    Ok(HttpResponse::Ok().json(menus.iter().map(MenuResponse::from).collect::<Vec<_>>()))
}

#[utoipa::path(get, path = "/menus/{id}", tag = "Navigation", params(("id" = Uuid, Path), MenuQuery),
    responses((status = 200, body = MenuDetail)))]
pub async fn get_menu(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    query: web::Query<MenuQuery>,
) -> ApiResult<HttpResponse> {
    let menu = find_menu(&state, &principal, id.into_inner(), Capability::Read).await?;
    let items = live_items(&state.db, menu.id).await?;
    Ok(HttpResponse::Ok()
        .json(MenuDetail { menu: MenuResponse::from(&menu), items: tree(&items, query.locale.as_deref()) }))
}

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
    body: web::Json<CreateMenu>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::EditAnyContent).await?;
    state.site_state(site_id).await?;
    let body = body.into_inner();
    let mut errors = Vec::new();
    let given_name = match (body.name.trim(), body.slug.as_deref()) {
        ("", Some(slug)) => slug,
        ("", None) => "Menu",
        _ => body.name.as_str(),
    };
    let name = required_text("name", given_name, 100).map_err(|e| errors.push(e)).ok();
    let slug = body.slug.as_deref().and_then(|s| Slug::parse("slug", s).map_err(|e| errors.push(e)).ok());
    let (Some(name), true) = (name, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let slug = slug.map(Slug::into_inner).unwrap_or_else(|| crate::content::slugify(&name));
    let now = state.clock.now();
    let txn = crate::db::begin_write(&state.db).await?;
    let created = nav_menu::ActiveModel {
        id: Set(Uuid::new_v4()),
        site_id: Set(site_id),
        name: Set(name),
        slug: Set(slug.clone()),
        created_at: Set(now),
        updated_at: Set(now),
        deleted_at: Set(None),
        is_deleted: Set(false),
    }
    .insert(&txn)
    .await
    .map_err(on_constraint(Constraint::Unique, || slug_taken(&slug)))?;
    let response = MenuResponse::from(&created);
    audit::record(&txn, now, menu_entry(&principal.actor_id(), Action::Create, &created), &(), &response).await?;
    commit_with_events(
        &state,
        txn,
        vec![event("updated", now, site_id, created.id, &created.name, Some(&created.slug))],
    )
    .await?;
    Ok(HttpResponse::Created().json(response))
}

#[utoipa::path(put, path = "/menus/{id}", tag = "Navigation", params(("id" = Uuid, Path)), request_body = UpdateMenu,
    responses((status = 200, body = MenuResponse)))]
pub async fn update_menu(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: web::Json<UpdateMenu>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = find_menu(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    let body = body.into_inner();
    let mut errors = Vec::new();
    let name = body.name.as_deref().and_then(|n| required_text("name", n, 100).map_err(|e| errors.push(e)).ok());
    let slug = body
        .slug
        .as_deref()
        .and_then(|s| Slug::parse("slug", s).map_err(|e| errors.push(e)).ok())
        .map(Slug::into_inner);
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let before = MenuResponse::from(&current);
    let mut row: nav_menu::ActiveModel = current.into();
    if let Some(name) = name {
        row.name = Set(name);
    }
    if let Some(slug) = &slug {
        row.slug = Set(slug.clone());
    }
    row.updated_at = Set(now);
    let txn = crate::db::begin_write(&state.db).await?;
    let updated = row
        .update(&txn)
        .await
        .map_err(on_constraint(Constraint::Unique, || slug_taken(slug.as_deref().unwrap_or_default())))?;
    let after = MenuResponse::from(&updated);
    audit::record(&txn, now, menu_entry(&principal.actor_id(), Action::Update, &updated), &before, &after).await?;
    commit_with_events(
        &state,
        txn,
        vec![event("updated", now, updated.site_id, updated.id, &updated.name, Some(&updated.slug))],
    )
    .await?;
    Ok(HttpResponse::Ok().json(after))
}

#[utoipa::path(delete, path = "/menus/{id}", tag = "Navigation", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Moved to the trash with its items")))]
pub async fn delete_menu(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = find_menu(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    let before = MenuResponse::from(&current);
    let mut row: nav_menu::ActiveModel = current.into();
    row.is_deleted = Set(true);
    row.deleted_at = Set(Some(now));
    let txn = crate::db::begin_write(&state.db).await?;
    let deleted = row.update(&txn).await?;
    audit::record(
        &txn,
        now,
        menu_entry(&principal.actor_id(), Action::Delete, &deleted),
        &before,
        &json!({"is_deleted": true}),
    )
    .await?;
    commit_with_events(
        &state,
        txn,
        vec![event("updated", now, deleted.site_id, deleted.id, &deleted.name, Some(&deleted.slug))],
    )
    .await?;
    Ok(HttpResponse::NoContent().finish())
}
