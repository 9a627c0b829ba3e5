//! Site request and response bodies.

use chrono::{DateTime, Utc};
use plinth_entities::site;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::values::double_option;

/// SiteResponse
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SiteResponse {
    pub id: Uuid,
    pub name: String,
    pub slug: String,
    pub description: String,
    /// Absolute URL with protocol; null when unset.
    pub base_url: Option<String>,
    pub is_active: bool,
    pub logo_url: Option<String>,
    pub favicon_url: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Present only in the deleted-sites list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deleted_at: Option<DateTime<Utc>>,
}

impl SiteResponse {
    /// The response for every endpoint but the deleted list: no `deleted_at`.
    pub fn active(model: &site::Model) -> Self {
        Self { deleted_at: None, ..Self::deleted(model) }
    }

    pub fn deleted(model: &site::Model) -> Self {
        Self {
            id: model.id,
            name: model.name.clone(),
            slug: model.slug.clone(),
            description: model.description.clone(),
            base_url: model.base_url.clone(),
            is_active: model.is_active,
            logo_url: model.logo_url.clone(),
            favicon_url: model.favicon_url.clone(),
            created_at: model.created_at,
            updated_at: model.updated_at,
            deleted_at: model.deleted_at,
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateSiteLocale {
    pub is_active: Option<bool>,
    /// Stored and returned bare (`de`, `de/at`, or empty); `/de` and `/de/` are
    /// accepted too.
    pub url_prefix: Option<String>,
}

/// An entry of the site-create `locales` array; also the body of
/// `POST /sites/{site_id}/locales`.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct SiteLocaleInput {
    pub locale_id: Uuid,
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub is_default: bool,
    /// Path prefix of this language on the public site, stored and returned bare
    /// (`de`); `/de` is accepted too. Defaults to empty for the default locale and
    /// to the locale's code for the others.
    #[serde(default)]
    pub url_prefix: Option<String>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateSite {
    /// One line of 1 to 200 characters (trimmed), without control characters.
    #[schema(min_length = 1, max_length = 200, pattern = "<line>")]
    pub name: String,
    /// Made from the name (`My Site` → `my-site`) when omitted or empty: 1 to 100 lowercase letters, digits and
    /// single hyphens, no hyphen at either end.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(max_length = 100, pattern = "<optional slug>")]
    pub slug: String,
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub description: String,
    #[serde(default)]
    /// An absolute http(s) URL with a host, without credentials, query or fragment; blank for none.
    #[schema(pattern = "<base url>")]
    pub base_url: Option<String>,
    #[serde(default)]
    pub is_active: Option<bool>,
    #[serde(default)]
    /// An absolute http(s) URL with a host, without credentials, query or fragment; blank for none.
    #[schema(pattern = "<base url>")]
    pub logo_url: Option<String>,
    /// Exactly one entry must be the default. When omitted the site gets the
    /// `en` locale as its default.
    #[serde(default)]
    pub locales: Option<Vec<SiteLocaleInput>>,
}

/// Every field optional; only the given ones change. `null` clears
/// `base_url` and `logo_url`.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateSite {
    /// One line of 1 to 200 characters (trimmed), without control characters.
    #[schema(min_length = 1, max_length = 200, pattern = "<line>")]
    pub name: Option<String>,
    /// 1 to 100 lowercase letters, digits and single hyphens, no hyphen at either end.
    #[schema(min_length = 1, max_length = 100, pattern = "<slug>")]
    pub slug: Option<String>,
    pub description: Option<String>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, pattern = "<base url>")]
    pub base_url: Option<Option<String>>,
    pub is_active: Option<bool>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, pattern = "<base url>")]
    pub logo_url: Option<Option<String>>,
}

/// GET /sites/{id}/context
#[derive(Serialize, ToSchema)]
pub struct SiteContext {
    pub member_count: u64,
    /// The caller's role on the site (`owner`, `editor`, …).
    pub current_user_role: String,
    pub features: SiteFeatures,
    pub suggestions: SiteSuggestions,
    pub modules: SiteModules,
}

#[derive(Serialize, ToSchema)]
pub struct SiteFeatures {
    pub editorial_workflow: bool,
    pub scheduling: bool,
    pub versioning: bool,
    pub analytics: bool,
}

#[derive(Serialize, ToSchema)]
pub struct SiteSuggestions {
    /// Several members but no review step yet.
    pub show_team_workflow_prompt: bool,
}

#[derive(Serialize, ToSchema)]
pub struct SiteModules {
    pub blog: bool,
    pub pages: bool,
    pub portfolio: bool,
    pub legal: bool,
    pub documents: bool,
    pub ai: bool,
}
