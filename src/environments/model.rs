//! The request and response shapes of environments.

use chrono::{DateTime, Utc};
use plinth_entities::environment;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::values::double_option;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EnvironmentResponse {
    pub id: Uuid,
    /// The site it belongs to.
    pub site_id: Uuid,
    /// Its name (`production`, `staging`, …).
    pub name: String,
    /// Its name for people (`Production`, `Staging`, …).
    pub display_name: String,
    /// Where the front end of this environment runs; null when unset.
    pub base_url: Option<String>,
    /// The site's default environment (previews go there).
    pub is_default: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&environment::Model> for EnvironmentResponse {
    fn from(m: &environment::Model) -> Self {
        Self {
            id: m.id,
            site_id: m.site_id,
            name: m.name.clone(),
            display_name: display_name(&m.name),
            base_url: m.base_url.clone(),
            is_default: m.is_default,
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateEnvironment {
    /// 1 to 100 lowercase letters, digits and single hyphens, no hyphen at either end, e.g. `staging`.
    #[schema(min_length = 1, max_length = 100, pattern = "<slug>")]
    pub name: String,
    /// Where its front end runs: an absolute http(s) URL with a host, without credentials, query or fragment; blank or null for none.
    pub base_url: Option<String>,
    /// Make it the site's default (default false).
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub is_default: bool,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateEnvironment {
    /// 1 to 100 lowercase letters, digits and single hyphens, no hyphen at either end.
    #[schema(min_length = 1, max_length = 100, pattern = "<slug>")]
    pub name: Option<String>,
    /// As on create; blank or `null` clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>)]
    pub base_url: Option<Option<String>>,
    /// `true` makes this the site's default; the previous default stops being one.
    pub is_default: Option<bool>,
}

/// `staging-eu` → `Staging eu`: the name with a capital and spaces.
fn display_name(name: &str) -> String {
    let spaced = name.replace('-', " ");
    let mut chars = spaced.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}
