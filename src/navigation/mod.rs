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
pub mod trash;

pub(crate) use items::*;
pub(crate) use menus::*;
pub use model::*;

use actix_web::web::{self, delete, get, post, put, resource};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(resource("/sites/{site_id}/menus").route(get().to(list_menus)).route(post().to(create_menu)))
        .service(
            resource("/menus/{id}")
                .route(get().to(get_menu))
                .route(put().to(update_menu))
                .route(delete().to(delete_menu)),
        )
        .service(resource("/menus/{id}/items").route(post().to(create_menu_item)))
        .service(resource("/menu-items/{id}").route(put().to(update_menu_item)).route(delete().to(delete_menu_item)));
}
