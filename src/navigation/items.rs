//! Menu-item endpoints: create, update (move, relabel, relink), delete with the
//! items under it.

use actix_web::{web, HttpResponse};
use plinth_entities::nav_item;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use uuid::Uuid;

use crate::audit::{self, Action};
use crate::auth::{Capability, Principal};
use crate::content::events::commit_with_events;
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::state::AppState;
use crate::values::required_text;

use super::model::*;
use super::rules::*;

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
    body: web::Json<CreateMenuItem>,
) -> ApiResult<HttpResponse> {
    let menu = find_menu(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    let body = body.into_inner();
    let mut errors = Vec::new();
    let localized = body.localizations.first().and_then(|l| l.get("title")).and_then(Value::as_str);
    let given_label = match (body.label.trim(), localized, body.url.as_deref()) {
        ("", Some(title), _) => title,
        ("", None, Some(url)) => url,
        _ => body.label.as_str(),
    };
    let label = required_text("label", given_label, 100).map_err(|e| errors.push(e)).ok();
    let url = body.url.as_deref().and_then(|u| check_url(u).map_err(|e| errors.push(e)).ok());
    if body.url.is_some() == body.content_id.is_some() {
        errors.push(FieldError::new(
            "url",
            ErrorCode::ValidationInvalidFormat,
            "give exactly one of url and content_id",
        ));
    }
    let (Some(label), true) = (label, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let txn = crate::db::begin_write(&state.db).await?;
    let labels = check_labels(&txn, menu.site_id, &body.labels).await?;
    if let Some(content_id) = body.content_id {
        check_content(&txn, menu.site_id, content_id).await?;
    }
    if let Some(parent_id) = body.parent_id {
        check_parent(&live_items(&txn, menu.id).await?, None, parent_id)?;
    }
    let now = state.clock.now();
    let created = nav_item::ActiveModel {
        id: Set(Uuid::new_v4()),
        menu_id: Set(menu.id),
        site_id: Set(menu.site_id),
        parent_id: Set(body.parent_id),
        label: Set(label),
        labels: Set(labels),
        url: Set(url),
        content_id: Set(body.content_id),
        display_order: Set(body.display_order),
        created_at: Set(now),
        updated_at: Set(now),
        deleted_at: Set(None),
        is_deleted: Set(false),
    }
    .insert(&txn)
    .await?;
    let node = tree(std::slice::from_ref(&created), None).remove(0);
    audit::record(&txn, now, item_entry(&principal.actor_id(), Action::Create, &created), &(), &node).await?;
    commit_with_events(
        &state,
        txn,
        vec![event("created", now, created.site_id, created.id, &created.label, created.url.as_deref())],
    )
    .await?;
    Ok(HttpResponse::Created().json(node))
}

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
    body: web::Json<UpdateMenuItem>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = find_item(&state, &principal, id.into_inner()).await?;
    let body = body.into_inner();
    let mut errors = Vec::new();
    let label = body.label.as_deref().and_then(|l| required_text("label", l, 100).map_err(|e| errors.push(e)).ok());
    let url = body.url.as_deref().and_then(|u| check_url(u).map_err(|e| errors.push(e)).ok());
    if body.url.is_some() && body.content_id.is_some() {
        errors.push(FieldError::new(
            "url",
            ErrorCode::ValidationInvalidFormat,
            "give at most one of url and content_id",
        ));
    }
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let txn = crate::db::begin_write(&state.db).await?;
    let labels = match &body.labels {
        Some(labels) => Some(check_labels(&txn, current.site_id, labels).await?),
        None => None,
    };
    if let Some(content_id) = body.content_id {
        check_content(&txn, current.site_id, content_id).await?;
    }
    if let Some(Some(parent_id)) = body.parent_id {
        check_parent(&live_items(&txn, current.menu_id).await?, Some(current.id), parent_id)?;
    }
    let before = tree(std::slice::from_ref(&current), None).remove(0);
    let mut row: nav_item::ActiveModel = current.into();
    if let Some(label) = label {
        row.label = Set(label);
    }
    if let Some(labels) = labels {
        row.labels = Set(labels);
    }
    if let Some(url) = url {
        row.url = Set(Some(url));
        row.content_id = Set(None);
    }
    if let Some(content_id) = body.content_id {
        row.content_id = Set(Some(content_id));
        row.url = Set(None);
    }
    if let Some(parent_id) = body.parent_id {
        row.parent_id = Set(parent_id);
    }
    if let Some(order) = body.display_order {
        row.display_order = Set(order);
    }
    row.updated_at = Set(now);
    let updated = row.update(&txn).await?;
    let after = tree(std::slice::from_ref(&updated), None).remove(0);
    audit::record(&txn, now, item_entry(&principal.actor_id(), Action::Update, &updated), &before, &after).await?;
    commit_with_events(
        &state,
        txn,
        vec![event("updated", now, updated.site_id, updated.id, &updated.label, updated.url.as_deref())],
    )
    .await?;
    Ok(HttpResponse::Ok().json(after))
}

#[utoipa::path(delete, path = "/menu-items/{id}", tag = "Navigation", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Moved to the trash with the items under it")))]
pub async fn delete_menu_item(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let current = find_item(&state, &principal, id.into_inner()).await?;
    let txn = crate::db::begin_write(&state.db).await?;
    let items = live_items(&txn, current.menu_id).await?;
    let ids = subtree(&items, current.id);
    let now = state.clock.now();
    nav_item::Entity::update_many()
        .col_expr(nav_item::Column::IsDeleted, sea_orm::sea_query::Expr::value(true))
        .col_expr(nav_item::Column::DeletedAt, sea_orm::sea_query::Expr::value(now))
        .filter(nav_item::Column::Id.is_in(ids.clone()))
        .exec(&txn)
        .await?;
    let mut events = Vec::new();
    for item in items.iter().filter(|i| ids.contains(&i.id)) {
        audit::record(
            &txn,
            now,
            item_entry(&principal.actor_id(), Action::Delete, item),
            &json!({"is_deleted": false}),
            &json!({"is_deleted": true}),
        )
        .await?;
        events.push(event("deleted", now, item.site_id, item.id, &item.label, item.url.as_deref()));
    }
    commit_with_events(&state, txn, events).await?;
    Ok(HttpResponse::NoContent().finish())
}
