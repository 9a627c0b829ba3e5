//! Menu and item reads and writes. Every write records its audit entry and
//! stores its `navigation.*` events in the outbox in one transaction; after the
//! commit the site's cached state is dropped and the events are announced.

use chrono::{DateTime, Utc};
use plinth_entities::{nav_item, nav_menu};
use sea_orm::{
    ActiveModelBehavior, ActiveValue::Set, ColumnTrait, DatabaseTransaction, DbErr, EntityTrait, IntoActiveModel,
    QueryFilter, QueryOrder,
};
use serde::Serialize;
use serde_json::{json, Value};
use uuid::Uuid;

use super::model::*;
use super::rules::*;
use crate::audit::{self, Action, AuditEntry, ModelOf};
use crate::content::events::commit_with_events;
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError};
use crate::events::DomainEvent;
use crate::site_rows::{self, SiteRow};
use crate::state::AppState;
use crate::values::{required_line, Slug};

/// `write`, with the event `event_of` makes of the stored row kept in the
/// outbox inside its transaction and announced after the commit.
async fn write_with_event<'a, F, A, R>(
    state: &AppState,
    write: audit::Write<'a, F>,
    prepare: impl AsyncFnOnce(&DatabaseTransaction) -> ApiResult<A>,
    respond: impl FnOnce(&ModelOf<A>) -> R,
    on_error: impl FnOnce(DbErr) -> ApiError,
    event_of: impl FnOnce(&ModelOf<A>) -> DomainEvent,
) -> ApiResult<R>
where
    A: ActiveModelBehavior + Send,
    ModelOf<A>: IntoActiveModel<A>,
    F: for<'m> FnOnce(&'m ModelOf<A>) -> AuditEntry<'a>,
    R: Serialize,
{
    let store_event = async |txn: &DatabaseTransaction, stored: &ModelOf<A>| {
        let event = event_of(stored);
        crate::events::store(txn, std::slice::from_ref(&event)).await?;
        Ok(event)
    };
    let (response, event) = write.run_with(prepare, respond, on_error, store_event).await?;
    state.invalidate_site(event.site_id);
    state.events.announce(std::slice::from_ref(&event));
    Ok(response)
}

fn menu_event(what: &str, at: DateTime<Utc>, menu: &nav_menu::Model) -> DomainEvent {
    event(what, at, menu.site_id, menu.id, &menu.name, Some(&menu.slug))
}

fn item_event(what: &str, at: DateTime<Utc>, item: &nav_item::Model) -> DomainEvent {
    event(what, at, item.site_id, item.id, &item.label, item.url.as_deref())
}

/// One item as a node without children, the shape its audit entries keep.
fn node(item: &nav_item::Model) -> MenuItemNode {
    tree(std::slice::from_ref(item), None).remove(0)
}

pub async fn list_menus(state: &AppState, site_id: Uuid) -> ApiResult<Vec<MenuResponse>> {
    let menus = nav_menu::Entity::find()
        .filter(nav_menu::Column::SiteId.eq(site_id))
        .filter(nav_menu::Column::IsDeleted.eq(false))
        .order_by_asc(nav_menu::Column::Name)
        .order_by_asc(nav_menu::Column::Id)
        .all(&state.db)
        .await?;
    Ok(menus.iter().map(MenuResponse::from).collect())
}

/// The menu with its live items as a tree, labelled in `locale` where they can be.
pub async fn menu_detail(state: &AppState, menu: &nav_menu::Model, locale: Option<&str>) -> ApiResult<MenuDetail> {
    let items = live_items(&state.db, menu.id).await?;
    Ok(MenuDetail { menu: MenuResponse::from(menu), items: tree(&items, locale) })
}

pub async fn create_menu(
    state: &AppState,
    actor: &str,
    now: DateTime<Utc>,
    site_id: Uuid,
    body: CreateMenu,
) -> ApiResult<MenuResponse> {
    state.site_state(site_id).await?;
    let mut errors = Vec::new();
    let given_name = match (body.name.trim(), body.slug.as_deref()) {
        ("", Some(slug)) => slug,
        ("", None) => "Menu",
        _ => body.name.as_str(),
    };
    let name = required_line("name", given_name, 100).map_err(|e| errors.push(e)).ok();
    let slug = body.slug.as_deref().and_then(|s| Slug::parse("slug", s).map_err(|e| errors.push(e)).ok());
    let (Some(name), true) = (name, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let slug = slug.map(Slug::into_inner).unwrap_or_else(|| crate::content::slugify(&name));
    let row = nav_menu::ActiveModel {
        id: Set(Uuid::new_v4()),
        site_id: Set(site_id),
        name: Set(name),
        slug: Set(slug.clone()),
        created_at: Set(now),
        updated_at: Set(now),
        deleted_at: Set(None),
        is_deleted: Set(false),
    };
    let write = site_rows::audited_write(&state.db, now, actor, Action::Create, Value::Null);
    let taken = on_constraint(Constraint::Unique, || slug_taken(&slug));
    // A new menu is announced as an update of the site's navigation.
    let updated = |m: &nav_menu::Model| menu_event("updated", now, m);
    write_with_event(state, write, async |_| Ok(row), |m| MenuResponse::from(m), taken, updated).await
}

pub async fn update_menu(
    state: &AppState,
    actor: &str,
    now: DateTime<Utc>,
    current: nav_menu::Model,
    body: UpdateMenu,
) -> ApiResult<MenuResponse> {
    let mut errors = Vec::new();
    let name = body.name.as_deref().and_then(|n| required_line("name", n, 100).map_err(|e| errors.push(e)).ok());
    let slug = body
        .slug
        .as_deref()
        .and_then(|s| Slug::parse("slug", s).map_err(|e| errors.push(e)).ok())
        .map(Slug::into_inner);
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let before = json!(MenuResponse::from(&current));
    let mut row: nav_menu::ActiveModel = current.into();
    if let Some(name) = name {
        row.name = Set(name);
    }
    if let Some(slug) = &slug {
        row.slug = Set(slug.clone());
    }
    row.updated_at = Set(now);
    let write = site_rows::audited_write(&state.db, now, actor, Action::Update, before);
    let taken = on_constraint(Constraint::Unique, || slug_taken(slug.as_deref().unwrap_or_default()));
    let updated = |m: &nav_menu::Model| menu_event("updated", now, m);
    write_with_event(state, write, async |_| Ok(row), |m| MenuResponse::from(m), taken, updated).await
}

/// Moves the menu to the trash; its items stay with it.
pub async fn delete_menu(state: &AppState, actor: &str, now: DateTime<Utc>, current: nav_menu::Model) -> ApiResult<()> {
    let before = json!(MenuResponse::from(&current));
    let mut row: nav_menu::ActiveModel = current.into();
    row.is_deleted = Set(true);
    row.deleted_at = Set(Some(now));
    let write = audit::Write {
        after: Some(json!({"is_deleted": true})),
        ..site_rows::audited_write(&state.db, now, actor, Action::Delete, before)
    };
    let updated = |m: &nav_menu::Model| menu_event("updated", now, m);
    write_with_event(state, write, async |_| Ok(row), |_| (), ApiError::from, updated).await
}

pub async fn create_item(
    state: &AppState,
    actor: &str,
    now: DateTime<Utc>,
    menu: nav_menu::Model,
    body: CreateMenuItem,
) -> ApiResult<MenuItemNode> {
    let mut errors = Vec::new();
    let localized = body.localizations.first().and_then(|l| l.get("title")).and_then(Value::as_str);
    let given_label = match (body.label.trim(), localized, body.url.as_deref()) {
        ("", Some(title), _) => title,
        ("", None, Some(url)) => url,
        _ => body.label.as_str(),
    };
    let label = required_line("label", given_label, 100).map_err(|e| errors.push(e)).ok();
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
    // Labels, the content target and the parent are checked against what the
    // write's transaction sees.
    let checked_row = async |txn: &DatabaseTransaction| {
        let labels = check_labels(txn, menu.site_id, &body.labels).await?;
        if let Some(content_id) = body.content_id {
            check_content(txn, menu.site_id, content_id).await?;
        }
        if let Some(parent_id) = body.parent_id {
            check_parent(&live_items(txn, menu.id).await?, None, parent_id)?;
        }
        Ok(nav_item::ActiveModel {
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
        })
    };
    let write = site_rows::audited_write(&state.db, now, actor, Action::Create, Value::Null);
    let created = |m: &nav_item::Model| item_event("created", now, m);
    write_with_event(state, write, checked_row, node, ApiError::from, created).await
}

/// Moves, relabels or relinks an item: giving `url` clears `content_id` and the
/// other way round.
pub async fn update_item(
    state: &AppState,
    actor: &str,
    now: DateTime<Utc>,
    current: nav_item::Model,
    body: UpdateMenuItem,
) -> ApiResult<MenuItemNode> {
    let mut errors = Vec::new();
    let label = body.label.as_deref().and_then(|l| required_line("label", l, 100).map_err(|e| errors.push(e)).ok());
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
    let before = json!(node(&current));
    let checked_row = async |txn: &DatabaseTransaction| {
        let labels = match &body.labels {
            Some(labels) => Some(check_labels(txn, current.site_id, labels).await?),
            None => None,
        };
        if let Some(content_id) = body.content_id {
            check_content(txn, current.site_id, content_id).await?;
        }
        if let Some(Some(parent_id)) = body.parent_id {
            check_parent(&live_items(txn, current.menu_id).await?, Some(current.id), parent_id)?;
        }
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
        Ok(row)
    };
    let write = site_rows::audited_write(&state.db, now, actor, Action::Update, before);
    let updated = |m: &nav_item::Model| item_event("updated", now, m);
    write_with_event(state, write, checked_row, node, ApiError::from, updated).await
}

/// Moves the item and every item under it to the trash, each with its own
/// audit entry and `navigation.deleted` event.
pub async fn delete_item(state: &AppState, actor: &str, now: DateTime<Utc>, current: nav_item::Model) -> ApiResult<()> {
    let txn = crate::db::begin_write(&state.db).await?;
    let items = live_items(&txn, current.menu_id).await?;
    let ids = subtree(&items, current.id);
    nav_item::Entity::update_many()
        .col_expr(nav_item::Column::IsDeleted, sea_orm::sea_query::Expr::value(true))
        .col_expr(nav_item::Column::DeletedAt, sea_orm::sea_query::Expr::value(now))
        .filter(nav_item::Column::Id.is_in(ids.clone()))
        .exec(&txn)
        .await?;
    let mut events = Vec::new();
    for item in items.iter().filter(|i| ids.contains(&i.id)) {
        let entry = item.audit_entry(actor, Action::Delete);
        audit::record(&txn, now, entry, &json!({"is_deleted": false}), &json!({"is_deleted": true})).await?;
        events.push(item_event("deleted", now, item));
    }
    commit_with_events(state, txn, events).await
}
