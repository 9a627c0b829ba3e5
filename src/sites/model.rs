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
    /// The site's id.
    pub id: Uuid,
    /// The site's display name.
    pub name: String,
    /// Unique among sites; names the site in public paths (`/sites/{slug}/…`).
    pub slug: String,
    /// Free text; empty when none.
    pub description: String,
    /// Absolute URL with protocol, without a trailing `/`; null when unset.
    pub base_url: Option<String>,
    /// Whether the site is switched on.
    pub is_active: bool,
    /// Absolute URL of the site's logo; null when unset.
    pub logo_url: Option<String>,
    /// URL of the uploaded favicon; null until one is uploaded.
    pub favicon_url: Option<String>,
    /// When the site was created.
    pub created_at: DateTime<Utc>,
    /// When the site last changed.
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
    /// Whether the locale is offered on the site.
    pub is_active: Option<bool>,
    /// Stored and returned bare (`de`, `de/at`, or empty); `/de` and `/de/` are
    /// accepted too.
    pub url_prefix: Option<String>,
}

/// An entry of the site-create `locales` array; also the body of
/// `POST /sites/{site_id}/locales`.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct SiteLocaleInput {
    /// A global locale's id (`GET /locales`) or its code (`de`); one that names none is refused (422).
    pub locale_id: crate::values::LocaleName,
    /// Whether this is the site's default locale (default false).
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub is_default: bool,
    /// Path prefix of this language on the public site, stored and returned bare
    /// (`de`); `/de` is accepted too. Defaults to empty for the default locale and
    /// to the locale's code for the others.
    #[serde(default)]
    pub url_prefix: Option<String>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
#[schema(example = json!({
    "name": "Bakery", "slug": "bakery", "base_url": "https://bakery.example.org",
    "locales": [{"locale_id": "en", "is_default": true}, {"locale_id": "de", "url_prefix": "de"}]
}))]
pub struct CreateSite {
    /// One line of 1 to 200 characters (trimmed), without control characters.
    #[schema(min_length = 1, max_length = 200, pattern = "<line>")]
    pub name: String,
    /// Made from the name (`My Site` → `my-site`) when omitted or empty: 1 to 100 lowercase letters, digits and
    /// single hyphens, no hyphen at either end.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(max_length = 100, pattern = "<optional slug>")]
    pub slug: String,
    /// Free text of at most 5,000 characters; empty when omitted.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(max_length = 5000)]
    pub description: String,
    #[serde(default)]
    /// The site's public address, used for the sitemap, canonical links and
    /// previews: an absolute http or https URL (trimmed) with a host, without
    /// credentials, query or fragment; a trailing `/` is dropped. Blank or
    /// `null` for none. No length limit; the host is not resolved.
    #[schema(pattern = "<base url>")]
    pub base_url: Option<String>,
    /// Whether the site is switched on (default true).
    #[serde(default)]
    pub is_active: Option<bool>,
    #[serde(default)]
    /// The logo's address, by the same rules as `base_url`; blank or `null` for none.
    #[schema(pattern = "<base url>")]
    pub logo_url: Option<String>,
    /// Exactly one default, no locale twice (`site_locales` documents it).
    #[serde(default)]
    #[schema(schema_with = site_locales)]
    pub locales: Option<Vec<SiteLocaleInput>>,
}

/// The `locales` of a new site: entries of which exactly one has `is_default:
/// true` (`sites::service::check_locales`). JSON Schema says that with
/// `contains` and `minContains`/`maxContains`, which utoipa's array has no
/// field for: they go in as extensions, which serialize as plain keywords.
fn site_locales() -> utoipa::openapi::schema::Array {
    use utoipa::openapi::schema::{ArrayBuilder, SchemaType};
    use utoipa::openapi::{extensions::Extensions, Ref, Type};
    let default_entry = serde_json::json!({
        "type": "object",
        "properties": {"is_default": {"const": true}},
        "required": ["is_default"]
    });
    let mut array = ArrayBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .items(Ref::from_schema_name("SiteLocaleInput"))
        .min_items(Some(1))
        .description(Some(
            "The site's locales: exactly one entry must have `is_default: true`, and no locale may be listed \
             twice; otherwise 400 SITE_CREATE_INVALID_LOCALES (so an empty list is refused). When omitted or \
             `null` the site gets the `en` locale as its default.",
        ))
        .build();
    array.extensions = Some(Extensions::from_iter([
        ("contains", default_entry),
        ("minContains", 1.into()),
        ("maxContains", 1.into()),
    ]));
    array
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
    /// Free text of at most 5,000 characters.
    #[schema(max_length = 5000)]
    pub description: Option<String>,
    /// As on create: an absolute http(s) URL with a host, without credentials,
    /// query or fragment; blank or `null` clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, pattern = "<base url>")]
    pub base_url: Option<Option<String>>,
    /// Whether the site is switched on.
    pub is_active: Option<bool>,
    /// As `base_url`; blank or `null` clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, pattern = "<base url>")]
    pub logo_url: Option<Option<String>>,
}

/// GET /sites/{id}/context
#[derive(Serialize, ToSchema)]
pub struct SiteContext {
    /// How many members the site has.
    pub member_count: u64,
    /// The caller's role on the site (`owner`, `editor`, …).
    pub current_user_role: String,
    /// Which features the site's settings turn on.
    pub features: SiteFeatures,
    /// Hints for the front end.
    pub suggestions: SiteSuggestions,
    /// Which content modules are on.
    pub modules: SiteModules,
}

#[derive(Serialize, ToSchema)]
pub struct SiteFeatures {
    /// Content goes through review before it is published.
    pub editorial_workflow: bool,
    /// Scheduled publishing (always on).
    pub scheduling: bool,
    /// Versioned legal documents (on with the legal module).
    pub versioning: bool,
    /// Page-view analytics are collected.
    pub analytics: bool,
}

#[derive(Serialize, ToSchema)]
pub struct SiteSuggestions {
    /// Several members but no review step yet.
    pub show_team_workflow_prompt: bool,
}

#[derive(Serialize, ToSchema)]
pub struct SiteModules {
    /// Blog posts.
    pub blog: bool,
    /// Pages.
    pub pages: bool,
    /// Projects, CV entries and skills.
    pub portfolio: bool,
    /// Legal documents.
    pub legal: bool,
    /// Documents.
    pub documents: bool,
    /// AI assist.
    pub ai: bool,
}
