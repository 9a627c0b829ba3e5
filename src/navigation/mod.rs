//! Navigation: menus of a site and their items, a tree per menu. An item links
//! to a URL (or site path) or to a content item, has localized labels, and is
//! ordered under its parent. Events: `navigation.created` (item),
//! `navigation.updated` (menu or item), `navigation.deleted` (item), stored in the
//! outbox with the change. Menus and items go through the trash (`menu`,
//! `menu_item`).

mod items;
mod menus;
mod model;
mod rules;
mod service;
pub mod trash;

pub use model::*;

use crate::routes::Routes;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, menus => [list_menus, create_menu, get_menu, update_menu, delete_menu],
        items => [create_menu_item, update_menu_item, delete_menu_item]);
}
