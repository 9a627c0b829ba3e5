//! Edit leases (`crate::leases`) on menus and menu items: whoever may change
//! one may take, renew or release its lease.

use plinth_entities::{nav_item, nav_menu};

use crate::auth::Capability;

crate::row_lease_handlers!(
    nav_menu::Model,
    Capability::EditAnyContent,
    who = "Editor role or higher on the menu's site.",
    path = "/menus/{id}/lease",
    tag = "Navigation",
    take = take_menu_lease("Take or renew the edit lease of a menu"),
    release = release_menu_lease("Release the edit lease of a menu")
);

crate::row_lease_handlers!(
    nav_item::Model,
    Capability::EditAnyContent,
    who = "Editor role or higher on the item's site.",
    path = "/navigation/{id}/lease",
    tag = "Navigation",
    take = take_menu_item_lease("Take or renew the edit lease of a menu item"),
    release = release_menu_item_lease("Release the edit lease of a menu item")
);
