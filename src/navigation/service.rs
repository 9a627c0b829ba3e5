//! Menu and item reads and writes. Every write records its audit entry and
//! stores its `navigation.*` events in the outbox in one transaction; after the
//! commit the site's cached state is dropped and the events are announced.

use chrono::{DateTime, Utc};
use plinth_entities::values::MENU_DEPTH_MAX;
use plinth_entities::{nav_item, nav_menu};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelBehavior, ActiveValue::Set, ColumnTrait, ConnectionTrait, DbErr, EntityTrait, IntoActiveModel,
    QueryFilter, QueryOrder, QuerySelect,
};
use serde::Serialize;
use serde_json::{json, Value};
use uuid::Uuid;

use super::model::*;
use super::rules::*;
use crate::audit::{self, Action, Actor, AuditEntry, ModelOf};
use crate::content::events::store_events;
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError};
use crate::events::{DomainEvent, EventAction};
use crate::site_rows::{self, SiteRow};
use crate::state::AppState;
use crate::values::{required_line, Slug};

/// Levels of items a new menu holds unless told, as in the origin service.
const DEFAULT_DEPTH: i32 = 3;

/// `write`, with the event `event_of` makes of the stored row kept in the
/// outbox inside its transaction and announced after the commit.
async fn write_with_event<'a, F, A, R>(
    state: &AppState,
    write: audit::Write<'a, F>,
    prepare: impl AsyncFnOnce(&crate::db::WriteTxn) -> ApiResult<A>,
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
    let store_event = async |txn: &crate::db::WriteTxn, stored: &ModelOf<A>| {
        crate::events::store(txn, &state.events, &[event_of(stored)]).await?;
        Ok(())
    };
    let (response, ()) = write.run_with(prepare, respond, on_error, store_event).await?;
    Ok(response)
}

fn menu_event(what: EventAction, at: DateTime<Utc>, menu: &nav_menu::Model) -> DomainEvent {
    event(what, at, menu.site_id, menu.id, &menu.name, Some(&menu.slug))
}

fn item_event(what: EventAction, at: DateTime<Utc>, item: &nav_item::Model) -> DomainEvent {
    event(what, at, item.site_id, item.id, &item.label, item.url.as_deref())
}

/// One item as a node without children, the shape its audit entries keep.
pub(super) fn node(item: &nav_item::Model) -> MenuItemNode {
    flat_node(item, None, &std::collections::HashMap::new())
}

/// The live items of each of `menus`, in one grouped count.
async fn item_counts<C: ConnectionTrait>(db: &C, menus: &[Uuid]) -> ApiResult<std::collections::HashMap<Uuid, u64>> {
    if menus.is_empty() {
        return Ok(Default::default());
    }
    let counts: Vec<(Uuid, i64)> = nav_item::Entity::find()
        .select_only()
        .column(nav_item::Column::MenuId)
        .column_as(Expr::col(nav_item::Column::Id).count(), "items")
        .filter(nav_item::Column::MenuId.is_in(menus.to_vec()))
        .filter(nav_item::Column::IsDeleted.eq(false))
        .group_by(nav_item::Column::MenuId)
        .into_tuple()
        .all(db)
        .await?;
    Ok(counts.into_iter().map(|(menu, n)| (menu, u64::try_from(n).unwrap_or_default())).collect())
}

/// A menu as answered: its item count and its names by the site's locales.
pub async fn menu_response(state: &AppState, menu: &nav_menu::Model) -> ApiResult<MenuResponse> {
    let locales = &state.site_state(menu.site_id).await?.locales;
    let count = item_counts(&state.db, &[menu.id]).await?.get(&menu.id).copied().unwrap_or(0);
    Ok(MenuResponse::new(menu, count, locales))
}

pub async fn list_menus(state: &AppState, site_id: Uuid) -> ApiResult<Vec<MenuResponse>> {
    let menus = nav_menu::Entity::find()
        .filter(nav_menu::Column::SiteId.eq(site_id))
        .filter(nav_menu::Column::IsDeleted.eq(false))
        .order_by_asc(nav_menu::Column::Name)
        .order_by_asc(nav_menu::Column::Id)
        .all(&state.db)
        .await?;
    let counts = item_counts(&state.db, &menus.iter().map(|m| m.id).collect::<Vec<_>>()).await?;
    let locales = &state.site_state(site_id).await?.locales;
    Ok(menus.iter().map(|m| MenuResponse::new(m, counts.get(&m.id).copied().unwrap_or(0), locales)).collect())
}

/// The menu with its live items as a tree, labelled in `locale` where they can be.
pub async fn menu_detail(state: &AppState, menu: &nav_menu::Model, locale: Option<&str>) -> ApiResult<MenuDetail> {
    let items = live_items(&state.db, menu.id).await?;
    let locales = &state.site_state(menu.site_id).await?.locales;
    let slugs = linked_slugs(&state.db, &items).await?;
    let response = MenuResponse::new(menu, items.len() as u64, locales);
    Ok(MenuDetail { menu: response, items: tree(&items, locale, &slugs) })
}

/// A description: one line of at most 500 characters, or none.
fn check_description(raw: Option<&str>) -> Result<Option<String>, FieldError> {
    crate::values::optional_line("description", raw, 500)
}

/// Levels of items a menu may hold: 1 to [`MENU_DEPTH_MAX`].
fn check_max_depth(depth: i32) -> Result<i32, FieldError> {
    if (1..=MENU_DEPTH_MAX).contains(&depth) {
        Ok(depth)
    } else {
        Err(FieldError::new("max_depth", ErrorCode::ValidationOutOfRange, format!("must be 1 to {MENU_DEPTH_MAX}")))
    }
}

pub async fn create_menu(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    site_id: Uuid,
    body: CreateMenu,
) -> ApiResult<MenuResponse> {
    let site = state.site_state(site_id).await?;
    let names =
        texts_by_code("name", body.localizations.iter().map(|l| (&l.locale_id, l.name.as_str())), &site.locales)?;
    let mut errors = Vec::new();
    let first_localized = body.localizations.first().map(|l| l.name.as_str());
    let given_name = match (body.name.trim(), first_localized, body.slug.as_deref()) {
        ("", Some(name), _) => name,
        ("", None, Some(slug)) => slug,
        ("", None, None) => "Menu",
        _ => body.name.as_str(),
    };
    let name = required_line("name", given_name, 100).map_err(|e| errors.push(e)).ok();
    let slug = body.slug.as_deref().and_then(|s| Slug::parse("slug", s).map_err(|e| errors.push(e)).ok());
    let description = check_description(body.description.as_deref()).map_err(|e| errors.push(e)).ok().flatten();
    let max_depth = check_max_depth(body.max_depth.unwrap_or(DEFAULT_DEPTH)).map_err(|e| errors.push(e)).ok();
    let (Some(name), Some(max_depth), true) = (name, max_depth, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let slug = slug.map(Slug::into_inner).unwrap_or_else(|| crate::content::slugify(&name));
    let row = nav_menu::ActiveModel {
        id: Set(Uuid::new_v4()),
        site_id: Set(site_id),
        name: Set(name),
        slug: Set(slug.clone()),
        description: Set(description),
        max_depth: Set(max_depth),
        is_active: Set(body.is_active.unwrap_or(true)),
        names: Set(Value::Object(names)),
        created_at: Set(now),
        updated_at: Set(now),
        deleted_at: Set(None),
        is_deleted: Set(false),
    };
    let write = site_rows::audited_write(&state.db, now, actor, Action::Create, Value::Null);
    let taken = on_constraint(Constraint::Unique, || slug_taken(&slug));
    // A new menu is announced as an update of the site's navigation.
    let updated = |m: &nav_menu::Model| menu_event(EventAction::Updated, now, m);
    let respond = |m: &nav_menu::Model| MenuResponse::new(m, 0, &site.locales);
    write_with_event(state, write, async |_| Ok(row), respond, taken, updated).await
}

pub async fn update_menu(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    current: nav_menu::Model,
    body: UpdateMenu,
) -> ApiResult<MenuResponse> {
    let site = state.site_state(current.site_id).await?;
    let names = match &body.localizations {
        Some(given) => {
            Some(texts_by_code("name", given.iter().map(|l| (&l.locale_id, l.name.as_str())), &site.locales)?)
        }
        None => None,
    };
    let mut errors = Vec::new();
    let name = body.name.as_deref().and_then(|n| required_line("name", n, 100).map_err(|e| errors.push(e)).ok());
    let slug = body
        .slug
        .as_deref()
        .and_then(|s| Slug::parse("slug", s).map_err(|e| errors.push(e)).ok())
        .map(Slug::into_inner);
    let description = body
        .description
        .map(|d| check_description(d.as_deref()))
        .transpose()
        .map_err(|e| errors.push(e))
        .ok()
        .flatten();
    let max_depth = body.max_depth.map(check_max_depth).transpose().map_err(|e| errors.push(e)).ok().flatten();
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let items = live_items(&state.db, current.id).await?.len() as u64;
    let before = json!(MenuResponse::new(&current, items, &site.locales));
    let menu_id = current.id;
    let mut row: nav_menu::ActiveModel = current.into();
    if let Some(name) = name {
        row.name = Set(name);
    }
    if let Some(slug) = &slug {
        row.slug = Set(slug.clone());
    }
    if let Some(description) = description {
        row.description = Set(description);
    }
    if let Some(active) = body.is_active {
        row.is_active = Set(active);
    }
    if let Some(names) = names {
        row.names = Set(Value::Object(names));
    }
    row.updated_at = Set(now);
    // A lower limit must still hold the menu's items, as the transaction sees them.
    let checked_row = async |txn: &crate::db::WriteTxn| {
        if let Some(max_depth) = max_depth {
            check_depth(&parents(&live_items(txn, menu_id).await?), max_depth).map_err(|_| {
                ApiError::validation(vec![FieldError::new(
                    "max_depth",
                    ErrorCode::ValidationOutOfRange,
                    "the menu's items are deeper than that",
                )])
            })?;
            row.max_depth = Set(max_depth);
        }
        Ok(row)
    };
    let write = site_rows::audited_write(&state.db, now, actor, Action::Update, before);
    let taken = on_constraint(Constraint::Unique, || slug_taken(slug.as_deref().unwrap_or_default()));
    let updated = |m: &nav_menu::Model| menu_event(EventAction::Updated, now, m);
    let respond = |m: &nav_menu::Model| MenuResponse::new(m, items, &site.locales);
    write_with_event(state, write, checked_row, respond, taken, updated).await
}

/// Moves the menu to the trash; its items stay with it.
pub async fn delete_menu(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    current: nav_menu::Model,
) -> ApiResult<()> {
    let before = json!(menu_response(state, &current).await?);
    let mut row: nav_menu::ActiveModel = current.into();
    row.is_deleted = Set(true);
    row.deleted_at = Set(Some(now));
    let write = audit::Write {
        after: Some(json!({"is_deleted": true})),
        ..site_rows::audited_write(&state.db, now, actor, Action::Delete, before)
    };
    let updated = |m: &nav_menu::Model| menu_event(EventAction::Updated, now, m);
    write_with_event(state, write, async |_| Ok(row), |_| (), ApiError::from, updated).await
}

pub async fn create_item(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    menu: nav_menu::Model,
    body: CreateMenuItem,
) -> ApiResult<MenuItemNode> {
    check_repeated_ids(&menu, body.menu_id, body.site_id)?;
    let site = state.site_state(menu.site_id).await?;
    let mut labels = body.labels.clone();
    labels.extend(texts_by_code(
        "title",
        body.localizations.iter().map(|l| (&l.locale_id, l.title.as_str())),
        &site.locales,
    )?);
    let mut errors = Vec::new();
    let localized = body.localizations.first().map(|l| l.title.as_str());
    let given_label = match (body.label.trim(), localized, body.url.as_deref()) {
        ("", Some(title), _) => title,
        ("", None, Some(url)) => url,
        _ => body.label.as_str(),
    };
    let label = required_line("label", given_label, 100).map_err(|e| errors.push(e)).ok();
    let url = body.url.as_deref().and_then(|u| check_url(u).map_err(|e| errors.push(e)).ok());
    let icon = body.icon.as_deref().and_then(|i| check_icon(i).map_err(|e| errors.push(e)).ok());
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
    let checked_row = async |txn: &crate::db::WriteTxn| {
        let labels = check_labels(txn, menu.site_id, &labels).await?;
        if let Some(content_id) = body.content_id {
            check_content(txn, menu.site_id, content_id).await?;
        }
        if let Some(parent_id) = body.parent_id {
            let items = live_items(txn, menu.id).await?;
            check_parent(&items, None, parent_id)?;
            let mut placed = parents(&items);
            placed.insert(Uuid::nil(), Some(parent_id)); // the new item
            check_depth(&placed, menu.max_depth)?;
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
            icon: Set(icon),
            open_in_new_tab: Set(body.open_in_new_tab),
            created_at: Set(now),
            updated_at: Set(now),
            deleted_at: Set(None),
            is_deleted: Set(false),
        })
    };
    let write = site_rows::audited_write(&state.db, now, actor, Action::Create, Value::Null);
    let created = |m: &nav_item::Model| item_event(EventAction::Created, now, m);
    write_with_event(state, write, checked_row, node, ApiError::from, created).await
}

/// Moves, relabels or relinks an item: giving `url` clears `content_id` and the
/// other way round.
pub async fn update_item(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    current: nav_item::Model,
    body: UpdateMenuItem,
) -> ApiResult<MenuItemNode> {
    let mut errors = Vec::new();
    let label = body.label.as_deref().and_then(|l| required_line("label", l, 100).map_err(|e| errors.push(e)).ok());
    let url = body.url.as_deref().and_then(|u| check_url(u).map_err(|e| errors.push(e)).ok());
    let icon = match body.icon.as_ref().map(|i| i.as_deref().map(str::trim).filter(|i| !i.is_empty())) {
        Some(Some(icon)) => check_icon(icon).map(|i| Some(Some(i))).map_err(|e| errors.push(e)).ok().flatten(),
        Some(None) => Some(None),
        None => None,
    };
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
    let checked_row = async |txn: &crate::db::WriteTxn| {
        let labels = match &body.labels {
            Some(labels) => Some(check_labels(txn, current.site_id, labels).await?),
            None => None,
        };
        if let Some(content_id) = body.content_id {
            check_content(txn, current.site_id, content_id).await?;
        }
        if let Some(Some(parent_id)) = body.parent_id {
            let items = live_items(txn, current.menu_id).await?;
            check_parent(&items, Some(current.id), parent_id)?;
            let mut placed = parents(&items);
            placed.insert(current.id, Some(parent_id));
            check_depth(&placed, menu_depth(txn, current.menu_id).await?)?;
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
        if let Some(icon) = icon {
            row.icon = Set(icon);
        }
        if let Some(open) = body.open_in_new_tab {
            row.open_in_new_tab = Set(open);
        }
        row.updated_at = Set(now);
        Ok(row)
    };
    let write = site_rows::audited_write(&state.db, now, actor, Action::Update, before);
    let updated = |m: &nav_item::Model| item_event(EventAction::Updated, now, m);
    write_with_event(state, write, checked_row, node, ApiError::from, updated).await
}

/// Moves the item and every item under it to the trash, each with its own
/// audit entry and `navigation.deleted` event.
pub async fn delete_item(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    current: nav_item::Model,
) -> ApiResult<()> {
    audit::write(&state.db, async |txn| {
        let items = live_items(txn, current.menu_id).await?;
        let ids = subtree(&items, current.id);
        nav_item::Entity::update_many()
            .col_expr(nav_item::Column::IsDeleted, sea_orm::sea_query::Expr::value(true))
            .col_expr(nav_item::Column::DeletedAt, sea_orm::sea_query::Expr::value(now))
            .filter(nav_item::Column::Id.is_in(ids.clone()))
            .exec(txn)
            .await?;
        let mut events = Vec::new();
        for item in items.iter().filter(|i| ids.contains(&i.id)) {
            let entry = item.audit_entry(actor, Action::Delete);
            let before = json!(node(item));
            audit::record(txn, now, entry, &before, &audit::marked_deleted(&before)).await?;
            events.push(item_event(EventAction::Deleted, now, item));
        }
        store_events(state, txn, events).await
    })
    .await
}

/// The menu's and site's ids the origin service's admin repeats in an item's
/// body must be the item's own.
fn check_repeated_ids(menu: &nav_menu::Model, menu_id: Option<Uuid>, site_id: Option<Uuid>) -> ApiResult<()> {
    let mut errors = Vec::new();
    if menu_id.is_some_and(|given| given != menu.id) {
        errors.push(FieldError::new("menu_id", ErrorCode::ValidationInvalidFormat, "must be the menu of the path"));
    }
    if site_id.is_some_and(|given| given != menu.site_id) {
        errors.push(FieldError::new("site_id", ErrorCode::ValidationInvalidFormat, "must be the menu's site"));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ApiError::validation(errors))
    }
}

/// The menu's `max_depth`, as the transaction sees it.
pub(super) async fn menu_depth<C: ConnectionTrait>(db: &C, menu_id: Uuid) -> ApiResult<i32> {
    let menu = nav_menu::Entity::find_by_id(menu_id).one(db).await?;
    Ok(menu.map_or(MENU_DEPTH_MAX, |m| m.max_depth))
}
