//! The request and response shapes of menus and items.

use chrono::{DateTime, Utc};
use plinth_entities::nav_menu;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

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
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&nav_menu::Model> for MenuResponse {
    fn from(m: &nav_menu::Model) -> Self {
        Self {
            id: m.id,
            site_id: m.site_id,
            name: m.name.clone(),
            slug: m.slug.clone(),
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

/// An item with its children, in display order.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MenuItemNode {
    pub id: Uuid,
    /// The parent item; null at the top.
    pub parent_id: Option<Uuid>,
    /// In the requested locale when it has a label there.
    pub label: String,
    /// Every localized label by locale code.
    #[schema(value_type = Object)]
    pub labels: Value,
    /// Where it links (an http(s) URL or a path on the site); null when it names a content item.
    pub url: Option<String>,
    /// The content item it links to; null when it has a `url`.
    pub content_id: Option<Uuid>,
    /// Position among its siblings, ascending.
    pub display_order: i32,
    /// Its child items, in order.
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
    /// One line of at most 100 characters (trimmed); the slug, or `Menu`, when omitted or blank.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(max_length = 100, pattern = "<optional line>")]
    pub name: String,
    /// From the name when omitted: 1 to 100 lowercase letters, digits and single hyphens, no hyphen at either end.
    #[schema(min_length = 1, max_length = 100, pattern = "<slug>")]
    pub slug: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateMenu {
    /// One line of 1 to 100 characters (trimmed).
    #[schema(min_length = 1, max_length = 100, pattern = "<line>")]
    pub name: Option<String>,
    /// 1 to 100 lowercase letters, digits and single hyphens, no hyphen at either end.
    #[schema(min_length = 1, max_length = 100, pattern = "<slug>")]
    pub slug: Option<String>,
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
    /// A live item of the same menu.
    pub parent_id: Option<Uuid>,
    /// Position among its siblings, ascending (default 0).
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub display_order: i32,
    /// `[{locale_id, title}]`, as the service the spec was written from sends
    /// them: the first title becomes the label when `label` is omitted.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(value_type = Vec<Object>)]
    pub localizations: Vec<Value>,
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
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MenuQuery {
    /// A locale code: labels in that language where the item has one.
    pub locale: Option<String>,
}
