//! The shape of `archive.json`, format 2: the site's rows grouped the way the
//! spec names them, each item carrying what belongs to it (localizations,
//! placement on the site, categories and tags), so a reader can take one item
//! at a time. Locales are named by code (ids differ between deployments).
//!
//! ```text
//! { "format": "plinth-site-export/2", "exported_at", "site", "settings", "locales",
//!   "media": [..], "taxonomy": {"categories": [..], "tags": [..]},
//!   "blogs": [..], "pages": [..], "projects": [..], "cv_entries": [..],
//!   "skills": [..], "legal": [..], "navigation": {"menus": [..]}, "content_templates": [..] }
//! ```
//!
//! The sections come in this order: what an item names comes before it, so an
//! import writes them batch after batch without foreign keys pointing ahead.

use chrono::{DateTime, Utc};
use plinth_entities::values::TranslationStatus;
use plinth_entities::{
    content, content_category, content_localization, content_tag, content_template, media_file, media_metadata,
    nav_item, nav_menu, site, term_localization,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

pub const FORMAT: &str = "plinth-site-export/2";
/// One `Archive` struct of the site's tables; still imported.
pub const FORMAT_V1: &str = "plinth-site-export/1";

/// The top-level keys of format 2, in the order they are written and must be read.
pub const SECTIONS: [&str; 15] = [
    "format",
    "exported_at",
    "site",
    "settings",
    "locales",
    "media",
    "taxonomy",
    "blogs",
    "pages",
    "projects",
    "cv_entries",
    "skills",
    "legal",
    "navigation",
    "content_templates",
];
/// Where the items start: sections before it make the header.
pub const FIRST_ITEMS: usize = 5;

/// The sections of contents and the kind of their items.
pub const CONTENT_SECTIONS: [(&str, &str); 6] = [
    ("blogs", "blog"),
    ("pages", "page"),
    ("projects", "project"),
    ("cv_entries", "cv_entry"),
    ("skills", "skill"),
    ("legal", "legal"),
];

/// What comes before the items: small, read whole.
#[derive(Clone, Debug)]
pub struct Header {
    pub exported_at: Option<DateTime<Utc>>,
    pub site: site::Model,
    /// The site's overridden settings (an object), if any.
    pub settings: Option<Value>,
    pub locales: Vec<SiteLocale>,
}

/// A locale the site uses: the global locale (matched by `code` on import)
/// and its assignment to the site.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct SiteLocale {
    pub code: String,
    pub name: String,
    pub native_name: String,
    pub direction: String,
    pub is_default: bool,
    pub is_active: bool,
    pub url_prefix: String,
    pub created_at: DateTime<Utc>,
}

/// A media record, the name of its bytes in the archive (`media/<sha-256>.<ext>`,
/// none for external media) and its localized texts.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct Media {
    #[serde(flatten)]
    pub file: media_file::Model,
    pub entry: Option<String>,
    #[serde(default)]
    pub metadata: Vec<MediaText>,
}

#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct MediaText {
    pub locale: String,
    pub alt_text: Option<String>,
    pub caption: Option<String>,
    pub title: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl MediaText {
    /// Stored metadata in the archive, its locale by code (`None` when the
    /// locale is not one the archive names).
    pub fn of(row: media_metadata::Model, code: impl Fn(Uuid) -> Option<String>) -> Option<Self> {
        Some(MediaText {
            locale: code(row.locale_id)?,
            alt_text: row.alt_text,
            caption: row.caption,
            title: row.title,
            created_at: row.created_at,
            updated_at: row.updated_at,
        })
    }
}

/// A category or tag (`taxonomy`) with its localizations.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct Term {
    pub id: Uuid,
    pub slug: String,
    pub name: String,
    pub description: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    #[serde(default)]
    pub localizations: Vec<TermText>,
}

#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct TermText {
    pub locale: String,
    pub name: String,
    pub description: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl TermText {
    /// A stored term localization in the archive, its locale by code.
    pub fn of(row: term_localization::Model, code: impl Fn(Uuid) -> Option<String>) -> Option<Self> {
        Some(TermText {
            locale: code(row.locale_id)?,
            name: row.name,
            description: row.description,
            created_at: row.created_at,
            updated_at: row.updated_at,
        })
    }
}

/// A blog post, page, project, CV entry, skill or legal text: its row, where it sits on the site (slug, route), its
/// localizations, categories and tags (ids of the archive's terms).
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct Content {
    #[serde(flatten)]
    pub content: content::Model,
    pub placement: Placement,
    #[serde(default)]
    pub localizations: Vec<ContentText>,
    #[serde(default)]
    pub categories: Vec<CategoryRef>,
    #[serde(default)]
    pub tags: Vec<Uuid>,
}

impl Content {
    /// An item as the archive holds it, from its stored rows: its row, its
    /// site row (slug, route), its localizations (locales by code), its
    /// categories and tags.
    pub fn of(
        content: content::Model,
        placement: Placement,
        texts: Vec<content_localization::Model>,
        categories: Vec<content_category::Model>,
        tags: Vec<content_tag::Model>,
        code: impl Fn(Uuid) -> Option<String>,
    ) -> Self {
        Content {
            placement,
            localizations: texts.into_iter().filter_map(|l| ContentText::of(l, &code)).collect(),
            categories: categories
                .into_iter()
                .map(|c| CategoryRef { id: c.category_id, is_primary: c.is_primary })
                .collect(),
            tags: tags.into_iter().map(|t| t.tag_id).collect(),
            content,
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct Placement {
    pub slug: String,
    pub route: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct ContentText {
    pub locale: String,
    pub title: String,
    /// Absent in archives taken before subtitles were kept.
    #[serde(default)]
    pub subtitle: String,
    pub excerpt: String,
    pub body: String,
    pub meta_title: String,
    pub meta_description: String,
    /// Absent in archives taken before translation statuses were kept.
    #[serde(default)]
    pub translation_status: TranslationStatus,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl ContentText {
    /// A stored localization in the archive, its locale by code (`None` when
    /// the locale is not one the archive names).
    pub fn of(row: content_localization::Model, code: impl Fn(Uuid) -> Option<String>) -> Option<Self> {
        Some(ContentText {
            locale: code(row.locale_id)?,
            title: row.title,
            subtitle: row.subtitle,
            excerpt: row.excerpt,
            body: row.body,
            meta_title: row.meta_title,
            meta_description: row.meta_description,
            translation_status: row.translation_status,
            created_at: row.created_at,
            updated_at: row.updated_at,
        })
    }
}

#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct CategoryRef {
    pub id: Uuid,
    pub is_primary: bool,
}

/// A menu and its items (parents named by `parent_id`).
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct Menu {
    #[serde(flatten)]
    pub menu: nav_menu::Model,
    #[serde(default)]
    pub items: Vec<nav_item::Model>,
}

/// `category` or `tag`: the two lists of `taxonomy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taxonomy {
    Category,
    Tag,
}

impl Taxonomy {
    pub fn as_str(self) -> &'static str {
        match self {
            Taxonomy::Category => "category",
            Taxonomy::Tag => "tag",
        }
    }
}

/// One piece of the document, in the order it is read.
#[derive(Clone, Debug)]
pub enum Event {
    Header(Box<Header>),
    Media(Box<Media>),
    Term(Taxonomy, Box<Term>),
    Content(Box<Content>),
    Menu(Box<Menu>),
    /// A content template (archives since templates were kept have them).
    Template(Box<content_template::Model>),
}
