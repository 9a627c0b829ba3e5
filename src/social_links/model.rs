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
            display_order: m.display_order,
            is_active: m.is_active,
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateSocialLink {
    /// Lowercase name: `github`, `mastodon`, `linkedin`, …
    /// `github`, `mastodon`, … (`icon` is accepted too); from the URL's host
    /// (`github.com` → `github`) when omitted.
    /// From the URL's host when omitted: 1 to 100 lowercase letters, digits and single hyphens, no hyphen at
    /// either end.
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
    /// Position in lists, ascending (default 0).
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub display_order: i32,
    /// Shown on the site (default true).
    pub is_active: Option<bool>,
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
    /// Position in lists, ascending.
    pub display_order: Option<i32>,
    /// Shown on the site.
    pub is_active: Option<bool>,
}
