//! Navigation: menus of a site and their items, a tree per menu. An item links
//! to a URL (or site path) or to a content item, has localized labels, and is
//! ordered under its parent. Events: `navigation.created` (item),
//! `navigation.updated` (menu or item), `navigation.deleted` (item), stored in the
//! outbox with the change. Menus and items go through the trash (`menu`,
//! `menu_item`). The origin service admin's paths and fields are served too
//! (see [`origin`]).

mod arrange;
mod items;
mod leases;
mod menus;
mod model;
mod origin;
mod rules;
mod service;
pub mod trash;

pub use model::*;

use crate::routes::Routes;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, menus => [list_menus, create_menu, get_menu, update_menu, delete_menu],
        items => [create_menu_item, update_menu_item, delete_menu_item],
        origin => [list_menu_items, menu_tree, reorder_menu_items, get_navigation_item, update_navigation_item,
            delete_navigation_item, get_item_localizations, put_item_localizations, list_site_navigation,
            create_site_navigation_item, reorder_site_navigation],
        leases => [take_menu_lease, release_menu_lease, take_menu_item_lease, release_menu_item_lease]);
}
