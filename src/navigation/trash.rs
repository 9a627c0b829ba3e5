//! Menus and menu items in the trash: listing, counting, restore, purge.

use plinth_entities::{nav_item, nav_menu};
use sea_orm::sea_query::{Expr, Func, SelectStatement};
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use serde_json::{json, Value};
use uuid::Uuid;

use crate::audit::{self, Action, Actor, AuditEntry};
use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::trash_source::{count_of, trash_rows, TrashColumns, TrashSource};

/// The site's deleted menus and deleted items, newest-deleted first.
fn deleted_menus(site_id: Uuid) -> sea_orm::Select<nav_menu::Entity> {
    nav_menu::Entity::find()
        .filter(nav_menu::Column::SiteId.eq(site_id))
        .filter(nav_menu::Column::IsDeleted.eq(true))
        .order_by_desc(nav_menu::Column::DeletedAt)
        .order_by_desc(nav_menu::Column::Id)
}

fn deleted_items(site_id: Uuid) -> sea_orm::Select<nav_item::Entity> {
    nav_item::Entity::find()
        .filter(nav_item::Column::SiteId.eq(site_id))
        .filter(nav_item::Column::IsDeleted.eq(true))
        .order_by_desc(nav_item::Column::DeletedAt)
        .order_by_desc(nav_item::Column::Id)
}

fn entry<'a>(actor: &'a Actor, action: Action, entity_type: &'a str, id: Uuid, site_id: Uuid) -> AuditEntry<'a> {
    AuditEntry { actor, action, entity_type, entity_id: id.to_string(), site_id: Some(site_id) }
}

/// Restores a menu or an item. An item whose parent is gone moves to the top level.
pub async fn restore(state: &AppState, principal: &Principal, entity_type: &str, id: Uuid) -> ApiResult<Value> {
    let now = state.clock.now();
    let actor = principal.actor();
    if entity_type == "menu" {
        let menu =
            nav_menu::Entity::find_by_id(id).one(&state.db).await?.ok_or_else(|| ApiError::not_found("menu", id))?;
        principal.require(state, menu.site_id, Capability::AdministerSite).await?;
        crate::trash_source::ensure_in_trash(menu.is_deleted)?;
        let site_id = menu.site_id;
        let mut row: nav_menu::ActiveModel = menu.into();
        row.is_deleted = Set(false);
        row.deleted_at = Set(None);
        row.updated_at = Set(now);
        let restored = audit::write(&state.db, async |txn| {
            let restored = row.update(txn).await?;
            audit::record(
                txn,
                now,
                entry(&actor, Action::Restore, "menu", id, site_id),
                &json!({"is_deleted": true}),
                &json!({"is_deleted": false}),
            )
            .await?;
            Ok(restored)
        })
        .await?;
        return Ok(json!(super::service::menu_response(state, &restored).await?));
    }
    let item =
        nav_item::Entity::find_by_id(id).one(&state.db).await?.ok_or_else(|| ApiError::not_found("menu_item", id))?;
    principal.require(state, item.site_id, Capability::AdministerSite).await?;
    crate::trash_source::ensure_in_trash(item.is_deleted)?;
    audit::write(&state.db, async |txn| {
        let parent_live = match item.parent_id {
            Some(parent) => nav_item::Entity::find_by_id(parent)
                .filter(nav_item::Column::IsDeleted.eq(false))
                .one(txn)
                .await?
                .is_some(),
            None => true,
        };
        let site_id = item.site_id;
        let mut row: nav_item::ActiveModel = item.into();
        row.is_deleted = Set(false);
        row.deleted_at = Set(None);
        if !parent_live {
            row.parent_id = Set(None);
        }
        row.updated_at = Set(now);
        let restored = row.update(txn).await?;
        audit::record(
            txn,
            now,
            entry(&actor, Action::Restore, "menu_item", id, site_id),
            &json!({"is_deleted": true}),
            &json!({"is_deleted": false}),
        )
        .await?;
        Ok(
            json!({"id": restored.id, "menu_id": restored.menu_id, "parent_id": restored.parent_id, "label": restored.label, "url": restored.url, "content_id": restored.content_id}),
        )
    })
    .await
}

/// Removes a deleted menu (its items cascade) or a deleted item for good.
pub async fn purge(state: &AppState, principal: &Principal, entity_type: &str, id: Uuid) -> ApiResult<()> {
    let actor = principal.actor();
    let (site_id, deleted) = if entity_type == "menu" {
        let menu =
            nav_menu::Entity::find_by_id(id).one(&state.db).await?.ok_or_else(|| ApiError::not_found("menu", id))?;
        (menu.site_id, menu.is_deleted)
    } else {
        let item = nav_item::Entity::find_by_id(id)
            .one(&state.db)
            .await?
            .ok_or_else(|| ApiError::not_found("menu_item", id))?;
        (item.site_id, item.is_deleted)
    };
    principal.require(state, site_id, Capability::AdministerSite).await?;
    crate::trash_source::ensure_purgeable(deleted)?;
    audit::write(&state.db, async |txn| {
        if entity_type == "menu" {
            nav_menu::Entity::delete_by_id(id).exec(txn).await?;
        } else {
            nav_item::Entity::delete_by_id(id).exec(txn).await?;
        }
        audit::record(
            txn,
            state.clock.now(),
            entry(&actor, Action::Purge, if entity_type == "menu" { "menu" } else { "menu_item" }, id, site_id),
            &json!({"id": id}),
            &(),
        )
        .await?;
        Ok(())
    })
    .await
}

/// Menus and menu items as a trash source.
pub struct NavigationTrash;

impl TrashSource for NavigationTrash {
    fn entity_types(&self) -> &'static [&'static str] {
        &["menu", "menu_item"]
    }

    fn deleted(&self, site_id: Uuid, limit: u64) -> Vec<SelectStatement> {
        let menu = |column: nav_menu::Column| Expr::col((nav_menu::Entity, column));
        let item = |column: nav_item::Column| Expr::col((nav_item::Entity, column));
        let menus = TrashColumns {
            id: menu(nav_menu::Column::Id),
            entity_type: "menu",
            title: menu(nav_menu::Column::Name),
            slug: menu(nav_menu::Column::Slug),
            deleted_at: menu(nav_menu::Column::DeletedAt),
        };
        let items = TrashColumns {
            id: item(nav_item::Column::Id),
            entity_type: "menu_item",
            title: item(nav_item::Column::Label),
            slug: Func::coalesce([item(nav_item::Column::Url), Expr::val("")]).into(),
            deleted_at: item(nav_item::Column::DeletedAt),
        };
        vec![
            trash_rows(deleted_menus(site_id).limit(limit), menus),
            trash_rows(deleted_items(site_id).limit(limit), items),
        ]
    }

    fn counts(&self, site_id: Uuid) -> Vec<SelectStatement> {
        vec![count_of(deleted_menus(site_id)), count_of(deleted_items(site_id))]
    }

    fn restore<'a>(
        &'a self,
        state: &'a AppState,
        principal: &'a Principal,
        entity_type: &'a str,
        id: Uuid,
    ) -> futures_util::future::BoxFuture<'a, ApiResult<Value>> {
        Box::pin(restore(state, principal, entity_type, id))
    }

    fn purge<'a>(
        &'a self,
        state: &'a AppState,
        principal: &'a Principal,
        entity_type: &'a str,
        id: Uuid,
    ) -> futures_util::future::BoxFuture<'a, ApiResult<()>> {
        Box::pin(purge(state, principal, entity_type, id))
    }
}
