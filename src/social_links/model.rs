//! The request and response shapes of social links.

use chrono::{DateTime, Utc};
use plinth_entities::social_link;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SocialLinkResponse {
    pub id: Uuid,
    /// The site it belongs to.
    pub site_id: Uuid,
    /// Lowercase platform name (`github`, …).
    pub platform: String,
    /// The profile's URL.
    pub url: String,
    /// Shown text.
    pub label: String,
    /// `label` under the origin service's name.
    pub title: String,
    /// `platform` under the origin service's name: the icon a site shows.
    pub icon: String,
    /// What a screen reader says for the icon; null when not set.
    pub alt_text: Option<String>,
    /// Position in lists, ascending.
    pub display_order: i32,
    /// Shown on the site.
    pub is_active: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&social_link::Model> for SocialLinkResponse {
    fn from(m: &social_link::Model) -> Self {
        Self {
            id: m.id,
            site_id: m.site_id,
            platform: m.platform.clone(),
            url: m.url.clone(),
            label: m.label.clone(),
            title: m.label.clone(),
            icon: m.platform.clone(),
            alt_text: m.alt_text.clone(),
            display_order: m.display_order,
            is_active: m.is_active,
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateSocialLink {
    /// `github`, `mastodon`, `linkedin`, … (`icon` is accepted too): 1 to 100
    /// lowercase letters, digits and single hyphens, no hyphen at either end;
    /// from the URL's host (`github.com` → `github`) when omitted.
    #[serde(default, alias = "icon")]
    #[schema(min_length = 1, max_length = 100, pattern = "<slug>")]
    pub platform: Option<String>,
    /// The profile's absolute http(s) URL.
    #[schema(pattern = "<http url>")]
    pub url: String,
    /// Shown text: one line of 1 to 100 characters (trimmed); the platform
    /// when omitted (`title` is accepted too).
    #[serde(alias = "title")]
    #[schema(min_length = 1, max_length = 100, pattern = "<line>")]
    pub label: Option<String>,
    /// What a screen reader says for the icon: one line of at most 200
    /// characters (trimmed); none when omitted or blank.
    #[schema(max_length = 200, pattern = "<optional line>")]
    pub alt_text: Option<String>,
    /// Position in lists, ascending (default 0).
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub display_order: i32,
    /// Shown on the site (default true).
    pub is_active: Option<bool>,
    /// The site, as the origin service's admin repeats it in the body; when
    /// given it must be the site of the path.
    pub site_id: Option<Uuid>,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateSocialLink {
    /// 1 to 100 lowercase letters, digits and single hyphens, no hyphen at either end.
    #[serde(alias = "icon")]
    #[schema(min_length = 1, max_length = 100, pattern = "<slug>")]
    pub platform: Option<String>,
    /// The profile's absolute http(s) URL.
    #[schema(pattern = "<http url>")]
    pub url: Option<String>,
    /// Shown text: one line of 1 to 100 characters (trimmed) (`title` is accepted too).
    #[serde(alias = "title")]
    #[schema(min_length = 1, max_length = 100, pattern = "<line>")]
    pub label: Option<String>,
    /// One line of at most 200 characters (trimmed); blank or `null` removes it.
    #[serde(default, deserialize_with = "crate::values::double_option")]
    #[schema(value_type = Option<String>, max_length = 200, pattern = "<optional line>")]
    pub alt_text: Option<Option<String>>,
    /// Position in lists, ascending.
    pub display_order: Option<i32>,
    /// Shown on the site.
    pub is_active: Option<bool>,
}

/// One link's new position, as the origin service's admin sends a reordering.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct SocialLinkOrder {
    /// A live link of the site.
    pub id: Uuid,
    /// Its new position, ascending.
    pub display_order: i32,
}

/// `{"items": [{id, display_order}, …]}`: the links named move, the others keep
/// their positions.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct ReorderSocialLinks {
    /// At most 1,000 links, each named once.
    #[schema(max_items = 1000)]
    pub items: Vec<SocialLinkOrder>,
}
