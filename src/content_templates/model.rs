//! The request and response shapes of content templates (the origin service's
//! `ContentTemplate`, `CreateContentTemplateRequest`, `UpdateContentTemplateRequest`).

use chrono::{DateTime, Utc};
use plinth_entities::content_template;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::pagination::SortDir;
use crate::values::double_option;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ContentTemplateResponse {
    pub id: Uuid,
    pub site_id: Uuid,
    /// Unique on the site.
    pub name: String,
    pub description: Option<String>,
    /// An icon name for the admin (`Article` by default).
    pub icon: String,
    /// What the slugs of posts made from it start with (`post` by default).
    pub slug_prefix: String,
    pub is_featured: bool,
    pub allow_comments: bool,
    pub title: String,
    pub subtitle: String,
    pub excerpt: String,
    pub body: String,
    pub meta_title: String,
    pub meta_description: String,
    /// Offered when writing a new post.
    pub is_active: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&content_template::Model> for ContentTemplateResponse {
    fn from(m: &content_template::Model) -> Self {
        Self {
            id: m.id,
            site_id: m.site_id,
            name: m.name.clone(),
            description: m.description.clone(),
            icon: m.icon.clone(),
            slug_prefix: m.slug_prefix.clone(),
            is_featured: m.is_featured,
            allow_comments: m.allow_comments,
            title: m.title.clone(),
            subtitle: m.subtitle.clone(),
            excerpt: m.excerpt.clone(),
            body: m.body.clone(),
            meta_title: m.meta_title.clone(),
            meta_description: m.meta_description.clone(),
            is_active: m.is_active,
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

/// A new template; only `name` is required.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateContentTemplate {
    /// One line of 1 to 200 characters (trimmed), unique on the site.
    #[schema(min_length = 1, max_length = 200, pattern = "<line>")]
    pub name: String,
    /// At most 2,000 characters; blank is none.
    #[schema(max_length = 2000)]
    pub description: Option<String>,
    /// One line of at most 50 characters; `Article` when omitted.
    #[schema(max_length = 50)]
    pub icon: Option<String>,
    /// Lowercase letters, digits and hyphens, at most 100 characters; `post` when omitted.
    #[schema(max_length = 100, pattern = "^[a-z0-9-]*$")]
    pub slug_prefix: Option<String>,
    /// `false` when omitted.
    pub is_featured: Option<bool>,
    /// `true` when omitted.
    pub allow_comments: Option<bool>,
    /// At most 300 characters.
    #[schema(max_length = 300)]
    pub title: Option<String>,
    /// At most 300 characters.
    #[schema(max_length = 300)]
    pub subtitle: Option<String>,
    /// At most 2,000 characters.
    #[schema(max_length = 2000)]
    pub excerpt: Option<String>,
    /// At most 200,000 characters.
    #[schema(max_length = 200000)]
    pub body: Option<String>,
    /// At most 500 characters.
    #[schema(max_length = 500)]
    pub meta_title: Option<String>,
    /// At most 500 characters.
    #[schema(max_length = 500)]
    pub meta_description: Option<String>,
    /// `true` when omitted.
    pub is_active: Option<bool>,
    /// Sent by the origin admin; when given it must be the path's site.
    pub site_id: Option<Uuid>,
}

/// Only the fields sent change; `description: null` clears it.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateContentTemplate {
    /// One line of 1 to 200 characters (trimmed), unique on the site.
    #[schema(min_length = 1, max_length = 200, pattern = "<line>")]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(max_length = 2000)]
    pub description: Option<Option<String>>,
    #[schema(max_length = 50)]
    pub icon: Option<String>,
    #[schema(max_length = 100, pattern = "^[a-z0-9-]*$")]
    pub slug_prefix: Option<String>,
    pub is_featured: Option<bool>,
    pub allow_comments: Option<bool>,
    #[schema(max_length = 300)]
    pub title: Option<String>,
    #[schema(max_length = 300)]
    pub subtitle: Option<String>,
    #[schema(max_length = 2000)]
    pub excerpt: Option<String>,
    #[schema(max_length = 200000)]
    pub body: Option<String>,
    #[schema(max_length = 500)]
    pub meta_title: Option<String>,
    #[schema(max_length = 500)]
    pub meta_description: Option<String>,
    pub is_active: Option<bool>,
}

/// The orders a site's templates are listed in.
#[derive(Clone, Copy, Debug, Default, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TemplateOrder {
    #[default]
    Name,
    CreatedAt,
    UpdatedAt,
}

/// A page of a site's templates.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TemplateQuery {
    #[param(schema_with = crate::pagination::page_number_schema)]
    pub page: Option<u64>,
    /// Default 10, at most 100. Also accepted as `page_size`.
    #[serde(alias = "page_size")]
    #[param(schema_with = crate::pagination::per_page_schema)]
    pub per_page: Option<u32>,
    /// Words the name or description contains (any letter case), at most 200 characters.
    #[param(max_length = 200)]
    pub search: Option<String>,
    /// `name` (default), `created_at` or `updated_at`.
    #[param(inline)]
    pub sort_by: Option<TemplateOrder>,
    /// `asc` (default for `name`) or `desc` (default otherwise).
    #[param(inline)]
    pub sort_dir: Option<SortDir>,
}
