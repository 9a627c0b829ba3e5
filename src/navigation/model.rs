//! The request and response shapes of menus and items.

use chrono::{DateTime, Utc};
use plinth_entities::nav_menu;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::state::SiteLocaleResponse;
use crate::values::double_option;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MenuResponse {
    pub id: Uuid,
    /// The site it belongs to.
    pub site_id: Uuid,
    /// The menu's name.
    pub name: String,
    /// Unique on the site; names the menu for the front end.
    pub slug: String,
    /// What the menu is for; null when not set.
    pub description: Option<String>,
    /// How many levels of items it may hold (1 to 10).
    pub max_depth: i32,
    /// Shown by the site.
    pub is_active: bool,
    /// Its live items, at every level.
    pub item_count: u64,
    /// Its name in the site's locales.
    pub localizations: Vec<MenuLocalization>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A menu's name in one locale.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MenuLocalization {
    /// Stable for the menu and locale.
    pub id: Uuid,
    pub locale_id: Uuid,
    pub name: String,
}

impl MenuResponse {
    /// `locales`: the site's, which name the localized names' locales.
    pub fn new(m: &nav_menu::Model, item_count: u64, locales: &[SiteLocaleResponse]) -> Self {
        Self {
            id: m.id,
            site_id: m.site_id,
            name: m.name.clone(),
            slug: m.slug.clone(),
            description: m.description.clone(),
            max_depth: m.max_depth,
            is_active: m.is_active,
            item_count,
            localizations: localized(m.id, &m.names, locales)
                .map(|(id, locale_id, name)| MenuLocalization { id, locale_id, name })
                .collect(),
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

/// `{"de": "…"}` by the site's locales: (stable id, locale id, text) for each
/// code that is still a locale of the site.
pub(super) fn localized<'a>(
    owner: Uuid,
    texts: &'a Value,
    locales: &'a [SiteLocaleResponse],
) -> impl Iterator<Item = (Uuid, Uuid, String)> + 'a {
    locales.iter().filter_map(move |locale| {
        let text = texts.get(&locale.code)?.as_str()?;
        // The pair names the entry: the same id on every read, no table of its
        // own. The XOR of two ids is no valid UUID (clients that validate ids
        // refused it), so it is stamped as an RFC 9562 custom one (version 8).
        let pair = Uuid::from_u128(owner.as_u128() ^ locale.locale_id.as_u128());
        let id = uuid::Builder::from_custom_bytes(pair.into_bytes()).into_uuid();
        Some((id, locale.locale_id, text.to_string()))
    })
}

/// An item with its children, in display order.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MenuItemNode {
    pub id: Uuid,
    /// The menu it is in.
    pub menu_id: Uuid,
    /// The parent item; null at the top.
    pub parent_id: Option<Uuid>,
    /// In the requested locale when it has a label there.
    pub label: String,
    /// `label`, under the origin service's name.
    pub title: String,
    /// Every localized label by locale code.
    #[schema(value_type = Object)]
    pub labels: Value,
    /// Where it links (an http(s) URL or a path on the site); null when it names a content item.
    pub url: Option<String>,
    /// `url` when it is absolute (http or https); null otherwise.
    pub external_url: Option<String>,
    /// The content item it links to; null when it has a `url`.
    pub content_id: Option<Uuid>,
    /// `content_id`, under the origin service's name.
    pub page_id: Option<Uuid>,
    /// The linked item's slug, in menu trees; null otherwise.
    pub page_slug: Option<String>,
    /// An icon name shown beside the label; null for none.
    pub icon: Option<String>,
    /// The link opens in a new tab.
    pub open_in_new_tab: bool,
    /// Position among its siblings, ascending.
    pub display_order: i32,
    /// Its child items, in order (empty in flat lists).
    #[schema(no_recursion)]
    pub children: Vec<MenuItemNode>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MenuDetail {
    #[serde(flatten)]
    pub menu: MenuResponse,
    /// The menu's items as a tree, in order.
    pub items: Vec<MenuItemNode>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateMenu {
    /// One line of at most 100 characters (trimmed); the first localized name,
    /// else the slug, else `Menu`, when omitted or blank.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(max_length = 100, pattern = "<optional line>")]
    pub name: String,
    /// From the name when omitted: 1 to 100 lowercase letters, digits and single hyphens, no hyphen at either end.
    #[schema(min_length = 1, max_length = 100, pattern = "<slug>")]
    pub slug: Option<String>,
    /// One line of at most 500 characters; none when omitted or blank.
    #[schema(max_length = 500, pattern = "<optional line>")]
    pub description: Option<String>,
    /// Levels of items it may hold, 1 to 10 (default 3).
    #[schema(minimum = 1, maximum = 10)]
    pub max_depth: Option<i32>,
    /// Shown by the site (default true).
    pub is_active: Option<bool>,
    /// `[{locale_id, name}]`: its name in locales of the site.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub localizations: Vec<MenuLocalizationInput>,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateMenu {
    /// One line of 1 to 100 characters (trimmed).
    #[schema(min_length = 1, max_length = 100, pattern = "<line>")]
    pub name: Option<String>,
    /// 1 to 100 lowercase letters, digits and single hyphens, no hyphen at either end.
    #[schema(min_length = 1, max_length = 100, pattern = "<slug>")]
    pub slug: Option<String>,
    /// One line of at most 500 characters; blank or `null` removes it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, max_length = 500, pattern = "<optional line>")]
    pub description: Option<Option<String>>,
    /// 1 to 10, and not below the depth of the menu's items.
    #[schema(minimum = 1, maximum = 10)]
    pub max_depth: Option<i32>,
    /// Shown by the site.
    pub is_active: Option<bool>,
    /// Replaces the localized names.
    pub localizations: Option<Vec<MenuLocalizationInput>>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct MenuLocalizationInput {
    /// A locale of the menu's site, by UUID or code (`de`).
    pub locale_id: crate::values::LocaleName,
    /// One line of 1 to 100 characters.
    #[schema(min_length = 1, max_length = 100, pattern = "<line>")]
    pub name: String,
}

/// An item's label in one locale, as the origin service's admin reads and writes it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ItemLocalization {
    /// Stable for the item and locale.
    pub id: Uuid,
    pub navigation_item_id: Uuid,
    pub locale_id: Uuid,
    pub title: String,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct ItemLocalizationInput {
    /// A locale of the item's site, by UUID or code (`de`).
    pub locale_id: crate::values::LocaleName,
    /// One line of 1 to 100 characters.
    #[schema(min_length = 1, max_length = 100, pattern = "<line>")]
    pub title: String,
}

/// One item's new place, as the origin service's admin sends a reordering.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct ItemPlace {
    /// A live item of the menu (or the site, for a site's reordering).
    pub id: Uuid,
    /// Its new parent, a live item of the same menu; `null` or omitted for the top.
    /// Only a menu's reordering moves items between parents.
    pub parent_id: Option<Uuid>,
    /// Its new position among its siblings, ascending.
    pub display_order: i32,
}

/// `{"items": [{id, parent_id, display_order}, …]}`: every named item takes its
/// place; the others keep theirs.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct ReorderItems {
    /// At most 1,000 items, each named once.
    #[schema(max_items = 1000)]
    pub items: Vec<ItemPlace>,
}

/// Exactly one of `url` and `content_id`.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateMenuItem {
    /// The first entry of `localizations`, else the URL, when omitted.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub label: String,
    /// `{"de": "Über uns"}`: codes of locales assigned to the site.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub labels: Map<String, Value>,
    /// An http(s) URL or a path on the site.
    #[serde(alias = "external_url")]
    pub url: Option<String>,
    /// A content item on the menu's site.
    #[serde(alias = "page_id")]
    pub content_id: Option<Uuid>,
    /// A live item of the same menu, within the menu's `max_depth`.
    pub parent_id: Option<Uuid>,
    /// Position among its siblings, ascending (default 0).
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub display_order: i32,
    /// `[{locale_id, title}]`, as the service the spec was written from sends
    /// them: labels in locales of the site (beside `labels`); the first title
    /// becomes the label when `label` is omitted.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub localizations: Vec<ItemLocalizationInput>,
    /// An icon name: 1 to 50 lowercase letters, digits and single hyphens.
    #[schema(min_length = 1, max_length = 50, pattern = "<slug>")]
    pub icon: Option<String>,
    /// The link opens in a new tab (default false).
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub open_in_new_tab: bool,
    /// The menu, as the origin service's admin repeats it: when given, the
    /// menu of the path (or, on `POST /sites/{site_id}/navigation`, the menu to
    /// add to; the site's `primary` menu when omitted there).
    pub menu_id: Option<Uuid>,
    /// The site, as the origin service's admin repeats it: when given, the menu's site.
    pub site_id: Option<Uuid>,
}

/// Every field optional; `null` clears `parent_id`. Giving `url` clears
/// `content_id` and the other way round.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateMenuItem {
    /// One line of 1 to 100 characters (trimmed).
    pub label: Option<String>,
    /// `{"de": "Über uns"}`: replaces the localized labels; codes of locales assigned to the site, labels not blank.
    #[schema(value_type = Option<Object>)]
    pub labels: Option<Map<String, Value>>,
    /// An http(s) URL or a path on the site; not together with `content_id`.
    #[serde(alias = "external_url")]
    pub url: Option<String>,
    /// A content item on the menu's site; not together with `url`.
    #[serde(alias = "page_id")]
    pub content_id: Option<Uuid>,
    /// A live item of the same menu, not the item or one below it; `null` moves it to the top.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Uuid>)]
    pub parent_id: Option<Option<Uuid>>,
    /// Position among its siblings, ascending.
    pub display_order: Option<i32>,
    /// 1 to 50 lowercase letters, digits and single hyphens; blank or `null` removes it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, max_length = 50)]
    pub icon: Option<Option<String>>,
    /// The link opens in a new tab.
    pub open_in_new_tab: Option<bool>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MenuQuery {
    /// A locale code: labels in that language where the item has one.
    pub locale: Option<String>,
}
