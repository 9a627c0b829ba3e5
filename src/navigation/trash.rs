//! Menus and menu items in the trash: listing, counting, restore, purge.

use futures_util::future::BoxFuture;
use plinth_entities::{nav_item, nav_menu};
use sea_orm::sea_query::{Expr, Func, SelectStatement};
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use serde_json::{json, Value};
use uuid::Uuid;

use crate::audit::{self, Action, Actor, AuditEntry};
use crate::auth::SitesGrant;
use crate::error::ApiResult;
use crate::site_rows;
use crate::state::AppState;
use crate::trash_source::{
    count_of, trash_all, trash_rows, SiteReset, SiteTrashTable, TrashColumns, TrashSource, Trashed,
};

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

/// A menu or a menu item found for the trash.
enum TrashedNavigation {
    Menu(nav_menu::Model),
    Item(nav_item::Model),
}

/// The menu (`entity_type` `menu`) or item `id`, in the trash or not.
async fn find(state: &AppState, entity_type: &str, id: Uuid) -> ApiResult<TrashedNavigation> {
    if entity_type == "menu" {
        return Ok(TrashedNavigation::Menu(site_rows::load_with_trashed(&state.db, id).await?));
    }
    Ok(TrashedNavigation::Item(site_rows::load_with_trashed(&state.db, id).await?))
}

/// Restores a menu or an item. An item whose parent is gone moves to the top level.
async fn restore(state: &AppState, grant: &SitesGrant, found: TrashedNavigation) -> ApiResult<Value> {
    let now = state.clock.now();
    let actor = grant.actor();
    let item = match found {
        TrashedNavigation::Menu(menu) => {
            crate::trash_source::ensure_in_trash(menu.is_deleted)?;
            let id = menu.id;
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
                    entry(actor, Action::Restore, "menu", id, site_id),
                    &json!({"is_deleted": true}),
                    &json!({"is_deleted": false}),
                )
                .await?;
                Ok(restored)
            })
            .await?;
            return Ok(json!(super::service::menu_response(state, &restored).await?));
        }
        TrashedNavigation::Item(item) => item,
    };
    crate::trash_source::ensure_in_trash(item.is_deleted)?;
    let id = item.id;
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
            entry(actor, Action::Restore, "menu_item", id, site_id),
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
async fn purge(state: &AppState, grant: &SitesGrant, found: TrashedNavigation) -> ApiResult<()> {
    let actor = grant.actor();
    let (is_menu, id, site_id, deleted) = match &found {
        TrashedNavigation::Menu(menu) => (true, menu.id, menu.site_id, menu.is_deleted),
        TrashedNavigation::Item(item) => (false, item.id, item.site_id, item.is_deleted),
    };
    crate::trash_source::ensure_purgeable(deleted)?;
    audit::write(&state.db, async |txn| {
        if is_menu {
            nav_menu::Entity::delete_by_id(id).exec(txn).await?;
        } else {
            nav_item::Entity::delete_by_id(id).exec(txn).await?;
        }
        audit::record(
            txn,
            state.clock.now(),
            entry(actor, Action::Purge, if is_menu { "menu" } else { "menu_item" }, id, site_id),
            &json!({"id": id}),
            &(),
        )
        .await?;
        Ok(())
    })
    .await
}

impl Trashed for TrashedNavigation {
    fn site_ids(&self) -> &[Uuid] {
        match self {
            TrashedNavigation::Menu(menu) => std::slice::from_ref(&menu.site_id),
            TrashedNavigation::Item(item) => std::slice::from_ref(&item.site_id),
        }
    }

    fn restore<'a>(self: Box<Self>, state: &'a AppState, grant: &'a SitesGrant) -> BoxFuture<'a, ApiResult<Value>> {
        Box::pin(restore(state, grant, *self))
    }

    fn purge<'a>(self: Box<Self>, state: &'a AppState, grant: &'a SitesGrant) -> BoxFuture<'a, ApiResult<()>> {
        Box::pin(purge(state, grant, *self))
    }
}

/// Menus and menu items as a trash source.
pub struct NavigationTrash;

impl SiteTrashTable for nav_item::Entity {
    const COLUMNS: [Self::Column; 3] =
        [nav_item::Column::SiteId, nav_item::Column::IsDeleted, nav_item::Column::DeletedAt];
}

impl SiteTrashTable for nav_menu::Entity {
    const COLUMNS: [Self::Column; 3] =
        [nav_menu::Column::SiteId, nav_menu::Column::IsDeleted, nav_menu::Column::DeletedAt];
}

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

    fn find<'a>(
        &'a self,
        state: &'a AppState,
        entity_type: &'a str,
        id: Uuid,
    ) -> BoxFuture<'a, ApiResult<Box<dyn Trashed>>> {
        Box::pin(async move { Ok(Box::new(find(state, entity_type, id).await?) as Box<dyn Trashed>) })
    }

    fn trash_site<'a>(
        &'a self,
        txn: &'a crate::db::WriteTxn,
        now: chrono::DateTime<chrono::Utc>,
        _actor: &'a crate::audit::Actor,
        site_id: Uuid,
    ) -> BoxFuture<'a, ApiResult<SiteReset>> {
        Box::pin(async move {
            // Items first: a menu's items go with it.
            let items = trash_all::<nav_item::Entity>(txn, now, site_id).await?;
            let menus = trash_all::<nav_menu::Entity>(txn, now, site_id).await?;
            Ok(SiteReset::of(vec![("menu_item", items), ("menu", menus)]))
        })
    }
}
