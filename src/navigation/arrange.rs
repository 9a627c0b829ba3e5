//! What the origin service's admin does to items beyond create and change:
//! reorder many at once (a menu's tree, or a site's items in place), read and
//! write an item's labels by locale id, and find the site's `primary` menu.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use plinth_entities::{nav_item, nav_menu};
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

use super::model::*;
use super::rules::*;
use super::service;
use crate::audit::{self, Action, Actor};
use crate::content::events::store_events;
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::events::EventAction;
use crate::site_rows::SiteRow;
use crate::state::AppState;

/// The menu the origin service's admin means by a site's navigation.
pub const PRIMARY_MENU: &str = "primary";

/// Which items a reordering may name, and what it may change.
pub enum Reorder {
    /// Any live item of the menu; parents and positions.
    Menu(Box<nav_menu::Model>),
    /// Any live item of the site; positions only.
    Site(Uuid),
}

/// Gives each named item its place in one transaction, with an audit entry and
/// a `navigation.updated` event per item that moved. All or nothing: an item
/// outside the scope is a 404; a parent outside the menu, a cycle or a tree
/// deeper than the menu's `max_depth` a 422.
pub async fn reorder(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    scope: Reorder,
    body: ReorderItems,
) -> ApiResult<()> {
    crate::values::reorder_ids(body.items.iter().map(|item| item.id))?;
    audit::write(&state.db, async |txn| {
        let (items, max_depth) = match &scope {
            Reorder::Menu(menu) => (live_items(txn, menu.id).await?, Some(menu.max_depth)),
            Reorder::Site(site_id) => {
                let ids: Vec<Uuid> = body.items.iter().map(|i| i.id).collect();
                let found = nav_item::Entity::find()
                    .filter(nav_item::Column::SiteId.eq(*site_id))
                    .filter(nav_item::Column::IsDeleted.eq(false))
                    .filter(nav_item::Column::Id.is_in(ids))
                    .all(txn)
                    .await?;
                (found, None)
            }
        };
        let by_id: HashMap<Uuid, &nav_item::Model> = items.iter().map(|i| (i.id, i)).collect();
        let mut placed = parents(&items);
        let mut moved = Vec::new();
        for place in &body.items {
            let current = *by_id.get(&place.id).ok_or_else(|| ApiError::not_found(nav_item::Model::KIND, place.id))?;
            let parent = match max_depth {
                Some(_) => place.parent_id,
                None if place.parent_id.is_none_or(|p| Some(p) == current.parent_id) => current.parent_id,
                None => {
                    let detail = "a site's reordering keeps parents; move items within their menu";
                    return Err(ApiError::validation(vec![FieldError::new(
                        "parent_id",
                        ErrorCode::ValidationInvalidFormat,
                        detail,
                    )]));
                }
            };
            // A menu's reordering may move an item under another: it must be a
            // live item of the menu. (A site's keeps each parent as it is.)
            if let Some(parent) = parent.filter(|p| max_depth.is_some() && !by_id.contains_key(p)) {
                let detail = format!("{parent} is not a live item of the menu");
                return Err(ApiError::validation(vec![FieldError::new(
                    "parent_id",
                    ErrorCode::ValidationInvalidFormat,
                    detail,
                )]));
            }
            placed.insert(current.id, parent);
            if current.parent_id != parent || current.display_order != place.display_order {
                moved.push((current, parent, place.display_order));
            }
        }
        if let Some(max_depth) = max_depth {
            check_depth(&placed, max_depth)?;
        }
        if moved.is_empty() {
            txn.found_nothing_to_change();
        }
        let mut events = Vec::new();
        for (current, parent, order) in moved {
            let before = service::node(current);
            let mut row: nav_item::ActiveModel = current.clone().into();
            row.parent_id = Set(parent);
            row.display_order = Set(order);
            row.updated_at = Set(now);
            let stored = row.update(txn).await?;
            let after = service::node(&stored);
            audit::record(txn, now, stored.audit_entry(actor, Action::Update), &before, &after).await?;
            events.push(event(
                EventAction::Updated,
                now,
                stored.site_id,
                stored.id,
                &stored.label,
                stored.url.as_deref(),
            ));
        }
        store_events(state, txn, events).await
    })
    .await
}

/// The item's labels by the site's locales.
pub async fn localizations(state: &AppState, item: &nav_item::Model) -> ApiResult<Vec<ItemLocalization>> {
    let locales = &state.site_state(item.site_id).await?.locales;
    Ok(localized(item.id, &item.labels, locales)
        .map(|(id, locale_id, title)| ItemLocalization { id, navigation_item_id: item.id, locale_id, title })
        .collect())
}

/// Sets the given labels (others stay) through the item's update, so the
/// checks, audit entry and event are its.
pub async fn put_localizations(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    item: nav_item::Model,
    given: Vec<ItemLocalizationInput>,
) -> ApiResult<Vec<ItemLocalization>> {
    if crate::preconditions::pending() {
        // `If-Match` names a version of what this path's GET answers: the
        // item's list of labels.
        crate::preconditions::compare_with(&localizations(state, &item).await?);
    }
    let locales = &state.site_state(item.site_id).await?.locales;
    let mut labels = item.labels.as_object().cloned().unwrap_or_default();
    labels.extend(texts_by_code("title", given.iter().map(|l| (&l.locale_id, l.title.as_str())), locales)?);
    let changes = UpdateMenuItem { labels: Some(labels), ..Default::default() };
    let updated = service::update_item(state, actor, now, item.clone(), changes).await?;
    localizations(state, &nav_item::Model { labels: updated.labels, ..item }).await
}

/// The site's `primary` menu (live), if it has one.
pub async fn primary_menu(state: &AppState, site_id: Uuid) -> ApiResult<Option<nav_menu::Model>> {
    Ok(nav_menu::Entity::find()
        .filter(nav_menu::Column::SiteId.eq(site_id))
        .filter(nav_menu::Column::Slug.eq(PRIMARY_MENU))
        .filter(nav_menu::Column::IsDeleted.eq(false))
        .one(&state.db)
        .await?)
}

/// The menu's live items as a flat list in order, with their linked items' slugs.
pub async fn flat_items(state: &AppState, menu_id: Uuid) -> ApiResult<Vec<MenuItemNode>> {
    let items = live_items(&state.db, menu_id).await?;
    let slugs = linked_slugs(&state.db, &items).await?;
    Ok(items.iter().map(|item| flat_node(item, None, &slugs)).collect())
}

/// The menu's live items as a tree, labelled in `locale`, with slugs.
pub async fn tree_of(state: &AppState, menu_id: Uuid, locale: Option<&str>) -> ApiResult<Vec<MenuItemNode>> {
    let items = live_items(&state.db, menu_id).await?;
    let slugs = linked_slugs(&state.db, &items).await?;
    Ok(tree(&items, locale, &slugs))
}
