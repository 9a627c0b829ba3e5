//! Request and response bodies shared by every content kind.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};
use plinth_entities::content;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use utoipa::ToSchema;
use uuid::Uuid;

use super::{ContentKind, ContentStatus};
use crate::embedded_media::EmbeddedMedia;
use crate::values::double_option;

/// A content item (BlogResponse, PageResponse, …).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ContentResponse {
    pub id: Uuid,
    /// `id` again, under the name the origin service's admin reads.
    pub content_id: Uuid,
    /// The sites the item appears on.
    pub site_ids: Vec<Uuid>,
    /// Unique per kind on each of its sites; names the item in public paths.
    pub slug: String,
    /// The title (a skill's name).
    pub title: String,
    /// A short summary; may be empty.
    pub excerpt: String,
    /// The main text; may be empty.
    pub body: String,
    /// Where the item is in its lifecycle.
    pub status: ContentStatus,
    /// Who wrote it, as given; null when not set.
    pub author: Option<String>,
    /// When a scheduled item goes live; null when not scheduled.
    pub publish_start: Option<DateTime<Utc>>,
    /// When the item stops being public; null for never.
    pub publish_end: Option<DateTime<Utc>>,
    /// When the item was (last) published.
    pub published_date: Option<DateTime<Utc>>,
    /// A media file shown as the cover; null for none.
    pub cover_image_id: Option<Uuid>,
    /// A media file shown as the header; null for none.
    pub header_image_id: Option<Uuid>,
    /// Listed by the featured endpoint.
    pub is_featured: bool,
    /// Marks sample content created by `seed`.
    pub is_sample: bool,
    /// Its categories.
    pub category_ids: Vec<Uuid>,
    /// The main one of `category_ids`; null for none.
    pub primary_category_id: Option<Uuid>,
    /// Its tags.
    pub tag_ids: Vec<Uuid>,
    /// Fields of this kind only (pages: `route`, `sections`).
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub kind_fields: Map<String, Value>,
    /// With `locale`: the code of the locale whose localization served the
    /// item, or of the default locale when it has none in the chain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// With `locale`: a line under the title, from the chain; may be empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subtitle: Option<String>,
    /// With `locale`: the title for search engines, from the chain; may be empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta_title: Option<String>,
    /// With `locale`: the description for search engines, from the chain; may be empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta_description: Option<String>,
    /// With `include=media`: the media files the item references, by id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media: Option<BTreeMap<Uuid, EmbeddedMedia>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// What list endpoints return per item (BlogListItem, PageListItem, …).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ContentListItem {
    pub id: Uuid,
    /// `id` again, under the name the origin service's admin reads.
    pub content_id: Uuid,
    /// The sites the item appears on.
    pub site_ids: Vec<Uuid>,
    /// Unique per kind on each of its sites.
    pub slug: String,
    /// The title (a skill's name).
    pub title: String,
    /// A short summary; may be empty.
    pub excerpt: String,
    /// Where the item is in its lifecycle.
    pub status: ContentStatus,
    /// Who wrote it, as given; null when not set.
    pub author: Option<String>,
    /// When the item was (last) published; null before.
    pub published_date: Option<DateTime<Utc>>,
    /// A media file shown as the cover; null for none.
    pub cover_image_id: Option<Uuid>,
    /// Listed by the featured endpoint.
    pub is_featured: bool,
    /// Marks sample content created by `seed`.
    pub is_sample: bool,
    /// The fields of the item's kind, as on the item itself but a page's
    /// `sections`: pages `route`; CV entries `entry_type`, `organization`,
    /// `start_date`, `end_date`, `is_current`; skills `name`, `category`,
    /// `proficiency`; projects `client`, `links`, `media_ids`; legal
    /// documents `document_type`. Each kind's list item is documented as its
    /// own schema (`content::list_item_schemas`).
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub kind_fields: Map<String, Value>,
    /// With `locale`: the code of the locale whose localization served the
    /// item, or of the default locale when it has none in the chain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// With `include=media`: the media files the item references, by id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media: Option<BTreeMap<Uuid, EmbeddedMedia>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl ContentListItem {
    /// `route`: a page's route (any of its sites'; they share it).
    pub fn new(model: &content::Model, site_ids: Vec<Uuid>, route: Option<String>) -> Self {
        Self {
            id: model.id,
            content_id: model.id,
            site_ids,
            slug: model.slug.clone(),
            title: model.title.clone(),
            excerpt: model.excerpt.clone(),
            status: model.status,
            author: model.author.clone(),
            published_date: model.published_at,
            cover_image_id: model.cover_image_id,
            is_featured: model.is_featured,
            is_sample: model.is_sample,
            kind_fields: kind_fields(model, route, false),
            locale: None,
            media: None,
            created_at: model.created_at,
            updated_at: model.updated_at,
        }
    }
}

/// The fields of the item's kind, as its response shows them: its stored
/// kind data, a page's route and a skill's name. The parts (a page's
/// `sections`, a legal document's `groups`) only when `with_parts`: list
/// items leave them to the item.
pub fn kind_fields(model: &content::Model, route: Option<String>, with_parts: bool) -> Map<String, Value> {
    let mut fields = match &model.fields {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    if !with_parts {
        fields.remove("sections");
        fields.remove("groups");
    }
    if let Some(route) = route {
        fields.insert("route".into(), Value::String(route));
    }
    if model.kind == ContentKind::Page {
        // As the service the spec was written from (also for pages stored before these were kept).
        fields.entry("page_type").or_insert_with(|| Value::String("Static".into()));
        fields.entry("is_in_navigation").or_insert(Value::Bool(false));
        for optional in ["template", "navigation_order", "parent_page_id"] {
            fields.entry(optional).or_insert(Value::Null);
        }
    }
    if model.kind == ContentKind::Blog {
        // As the service the spec was written from: comments allowed, and no
        // reading time until one is given (also for blogs stored before either).
        fields.entry("allow_comments").or_insert(Value::Bool(true));
        fields.entry("reading_time_minutes").or_insert(Value::Null);
    }
    if model.kind == ContentKind::Legal {
        // The origin service's admin names a legal document by its
        // `cookie_name`, and reads its type in its own spelling.
        fields.insert("cookie_name".into(), Value::String(model.title.clone()));
        let document_type = fields.get("document_type").and_then(|t| LegalDocumentType::deserialize(t).ok());
        fields.insert("document_type".into(), json!(document_type.unwrap_or(LegalDocumentType::Other)));
        if with_parts {
            fields.entry("groups").or_insert_with(|| json!([]));
        }
    }
    if model.kind == ContentKind::Skill {
        // The spec calls a skill's title its name.
        fields.insert("name".into(), Value::String(model.title.clone()));
    }
    fields
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CategoryRef {
    pub id: Uuid,
    /// The category's slug.
    pub slug: String,
    /// The category's name.
    pub name: String,
    /// Whether it is the item's primary category.
    pub is_primary: bool,
}

/// An item with its localizations, categories and attached documents (`/detail`).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ContentDetail {
    #[serde(flatten)]
    pub item: ContentResponse,
    /// The item's translations.
    pub localizations: Vec<LocalizationResponse>,
    /// The item's categories.
    pub categories: Vec<CategoryRef>,
    /// Documents attached to the item, by `display_order`. Nothing can be attached
    /// before the documents family exists, so the list is empty until then.
    #[schema(value_type = Vec<Object>)]
    pub documents: Vec<serde_json::Value>,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[schema(example = json!({
    "site_ids": ["3f2b8c1e-6a4d-4e8f-9b2a-1c5d7e9f0a12"], "title": "Fresh bread", "excerpt": "Out of the oven at seven.",
    "body": "Our sourdough is baked every morning.", "status": "Draft"
}))]
pub struct CreateContent {
    /// The sites the item appears on (at least one). (Read as empty when
    /// missing, so that `POST /sites/{site_id}/legal` can put in its site.)
    #[serde(default)]
    #[schema(min_items = 1, required = true)]
    pub site_ids: Vec<Uuid>,
    /// `name` is accepted too (skills). Optional: an untitled item gets the slug
    /// `untitled` (`untitled-2`, …) unless `slug` is given. One line of at most 300
    /// characters (trimmed), without control characters.
    #[serde(default, alias = "name", alias = "cookie_name", deserialize_with = "crate::values::null_as_default")]
    #[schema(max_length = 300, pattern = "<optional line>")]
    pub title: String,
    /// Generated from the title when omitted. 1 to 100 lowercase letters,
    /// digits and hyphens, not starting or ending with a hyphen.
    #[schema(min_length = 1, max_length = 100, pattern = "^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")]
    pub slug: Option<String>,
    /// Text without control characters but tab and line breaks.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(pattern = "<text>")]
    pub excerpt: String,
    /// Text without control characters but tab and line breaks.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(pattern = "<text>")]
    pub body: String,
    /// Who wrote it, free text; null or omitted for none.
    pub author: Option<String>,
    /// Draft when omitted (skills: Published). `Scheduled` needs a future `publish_start`.
    pub status: Option<ContentStatus>,
    /// When the item was (or counts as) published: a date or an RFC 3339 time.
    /// Set when the item is published unless given.
    #[serde(default, deserialize_with = "crate::values::date_or_datetime")]
    #[schema(value_type = Option<String>, pattern = "<date or date-time>")]
    pub published_date: Option<DateTime<Utc>>,
    /// Go live at this time: needed (in the future) for status `Scheduled`.
    pub publish_start: Option<DateTime<Utc>>,
    /// Stop being public at this time; must be after `publish_start` (CONTENT_PUBLISH_DATE_INVALID).
    pub publish_end: Option<DateTime<Utc>>,
    /// A media file shown as the cover.
    pub cover_image_id: Option<Uuid>,
    /// A media file shown as the header.
    pub header_image_id: Option<Uuid>,
    /// Listed by the featured endpoint (default false).
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub is_featured: bool,
    /// Categories of one of the item's sites (422 otherwise).
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub category_ids: Vec<Uuid>,
    /// Must be one of `category_ids`.
    pub primary_category_id: Option<Uuid>,
    /// Tags of one of the item's sites (422 otherwise).
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub tag_ids: Vec<Uuid>,
    /// Page route (pages only), e.g. `/about/team`: `/` or segments of
    /// lowercase letters, digits, `-` and `_`.
    #[schema(max_length = 200, pattern = "^/([a-z0-9_-]+(/[a-z0-9_-]+)*)?$")]
    pub route: Option<String>,
    /// Page sections (pages only).
    pub sections: Option<Vec<PageSection>>,
    /// CV entries: work (default), education, volunteer, certification or project.
    pub entry_type: Option<CvEntryType>,
    /// CV entries: employer, school, … (`company` is accepted too).
    #[serde(alias = "company")]
    pub organization: Option<String>,
    /// CV entries (required).
    pub start_date: Option<NaiveDate>,
    /// CV entries: empty while `is_current`.
    pub end_date: Option<NaiveDate>,
    /// CV entries.
    pub is_current: Option<bool>,
    /// Projects: links to the work, the repository, …
    pub links: Option<Vec<ProjectLink>>,
    /// Projects.
    pub client: Option<String>,
    /// Projects: gallery media ids.
    pub media_ids: Option<Vec<Uuid>>,
    /// Legal documents: `CookieConsent`, `PrivacyPolicy`, `TermsOfService`, `Imprint`, `Disclaimer` or `Other`
    /// (default); `cookies`, `privacy`, `terms`, `imprint`, `disclaimer`, `other` are accepted too.
    pub document_type: Option<LegalDocumentType>,
    /// Legal documents: the consent groups, each with its items (at most 50 groups of 100 items).
    pub groups: Option<Vec<ConsentGroup>>,
    /// Skills: a grouping such as `languages`.
    pub category: Option<String>,
    /// Skills: 0 to 100 (`proficiency_level` is accepted too).
    #[serde(alias = "proficiency_level")]
    #[schema(minimum = 0, maximum = 100)]
    pub proficiency: Option<i64>,
    /// Blogs: whether the site shows comments (default true).
    pub allow_comments: Option<bool>,
    /// Blogs: minutes to read it, 0 to 32,767; null (default) for not given.
    #[schema(minimum = 0, maximum = 32767)]
    pub reading_time_minutes: Option<i64>,
    /// Pages: Static (default), Landing, Contact, BlogIndex or Custom.
    pub page_type: Option<PageType>,
    /// Pages: the template a front end renders it with, one line of at most 100 characters.
    #[schema(max_length = 100, pattern = "<optional line>")]
    pub template: Option<String>,
    /// Pages: listed in the site's navigation (default false).
    pub is_in_navigation: Option<bool>,
    /// Pages: its place in the navigation, ascending.
    pub navigation_order: Option<i32>,
    /// Pages: the page above it, a live page on one of its sites.
    pub parent_page_id: Option<Uuid>,
}

/// Every field optional; only given ones change. `null` clears the nullable ones.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateContent {
    /// Replaces the sites the item appears on: at least one, none twice.
    pub site_ids: Option<Vec<Uuid>>,
    /// One line of at most 300 characters (trimmed), without control characters; `name` is accepted too.
    #[serde(alias = "name", alias = "cookie_name")]
    #[schema(max_length = 300, pattern = "<line>")]
    pub title: Option<String>,
    /// 1 to 100 lowercase letters, digits and hyphens, not starting or ending
    /// with a hyphen.
    #[schema(min_length = 1, max_length = 100, pattern = "^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")]
    pub slug: Option<String>,
    /// Text without control characters but tab and line breaks.
    #[schema(pattern = "<text>")]
    pub excerpt: Option<String>,
    /// Text without control characters but tab and line breaks.
    #[schema(pattern = "<text>")]
    pub body: Option<String>,
    /// Who wrote it, free text; `null` clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>)]
    pub author: Option<Option<String>>,
    /// `InReview` submits the item for review.
    pub status: Option<ContentStatus>,
    /// A date or an RFC 3339 time; replaces the recorded publication date.
    #[serde(default, deserialize_with = "crate::values::date_or_datetime")]
    #[schema(value_type = Option<String>, pattern = "<date or date-time>")]
    pub published_date: Option<DateTime<Utc>>,
    /// Go live at this time (`null` clears it); status `Scheduled` needs one in the future.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub publish_start: Option<Option<DateTime<Utc>>>,
    /// Stop being public at this time (`null` clears it); must be after `publish_start`.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub publish_end: Option<Option<DateTime<Utc>>>,
    /// A media file shown as the cover; `null` clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Uuid>)]
    pub cover_image_id: Option<Option<Uuid>>,
    /// A media file shown as the header; `null` clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Uuid>)]
    pub header_image_id: Option<Option<Uuid>>,
    /// Listed by the featured endpoint.
    pub is_featured: Option<bool>,
    /// Replaces the categories: each of one of the item's sites.
    pub category_ids: Option<Vec<Uuid>>,
    /// Must be one of the categories; `null` clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Uuid>)]
    pub primary_category_id: Option<Option<Uuid>>,
    /// Replaces the tags: each of one of the item's sites.
    pub tag_ids: Option<Vec<Uuid>>,
    /// As on create.
    #[schema(max_length = 200, pattern = "^/([a-z0-9_-]+(/[a-z0-9_-]+)*)?$")]
    pub route: Option<String>,
    /// Page sections (pages only); replaces them all.
    pub sections: Option<Vec<PageSection>>,
    /// CV entries: work, education, volunteer, certification or project.
    pub entry_type: Option<CvEntryType>,
    /// CV entries: employer, school, … (`company` is accepted too).
    #[serde(alias = "company")]
    pub organization: Option<String>,
    /// CV entries: when it began.
    pub start_date: Option<NaiveDate>,
    /// `null` clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<NaiveDate>)]
    pub end_date: Option<Option<NaiveDate>>,
    /// CV entries: still ongoing (then without `end_date`).
    pub is_current: Option<bool>,
    /// Projects: replaces the links.
    pub links: Option<Vec<ProjectLink>>,
    /// Projects: who the work was for.
    pub client: Option<String>,
    /// Projects: replaces the gallery media ids.
    pub media_ids: Option<Vec<Uuid>>,
    /// Legal documents: as on create.
    pub document_type: Option<LegalDocumentType>,
    /// Legal documents: replaces the consent groups and their items.
    pub groups: Option<Vec<ConsentGroup>>,
    /// Skills: a grouping such as `languages`.
    pub category: Option<String>,
    /// Skills: 0 to 100 (`proficiency_level` is accepted too).
    #[serde(alias = "proficiency_level")]
    #[schema(minimum = 0, maximum = 100)]
    pub proficiency: Option<i64>,
    /// Blogs: whether the site shows comments.
    pub allow_comments: Option<bool>,
    /// Blogs: minutes to read it, 0 to 32,767; `null` clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 32767)]
    pub reading_time_minutes: Option<Option<i64>>,
    /// Pages: Static, Landing, Contact, BlogIndex or Custom.
    pub page_type: Option<PageType>,
    /// Pages: one line of at most 100 characters; blank or `null` removes it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, max_length = 100, pattern = "<optional line>")]
    pub template: Option<Option<String>>,
    /// Pages: listed in the site's navigation.
    pub is_in_navigation: Option<bool>,
    /// Pages: its place in the navigation; `null` clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<i32>)]
    pub navigation_order: Option<Option<i32>>,
    /// Pages: a live page on one of its sites, not itself nor one below it; `null` clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Uuid>)]
    pub parent_page_id: Option<Option<Uuid>>,
}

impl UpdateContent {
    /// Only `status` is given: a move in the lifecycle, not an edit. (The
    /// destructuring makes a new field a compile error here until it is sorted.)
    pub fn is_status_only(&self) -> bool {
        let UpdateContent {
            site_ids,
            title,
            slug,
            excerpt,
            body,
            author,
            status,
            published_date,
            publish_start,
            publish_end,
            cover_image_id,
            header_image_id,
            is_featured,
            category_ids,
            primary_category_id,
            tag_ids,
            route,
            sections,
            entry_type,
            organization,
            start_date,
            end_date,
            is_current,
            links,
            client,
            media_ids,
            document_type,
            groups,
            category,
            proficiency,
            allow_comments,
            reading_time_minutes,
            page_type,
            template,
            is_in_navigation,
            navigation_order,
            parent_page_id,
        } = self;
        status.is_some()
            && site_ids.is_none()
            && title.is_none()
            && slug.is_none()
            && excerpt.is_none()
            && body.is_none()
            && author.is_none()
            && published_date.is_none()
            && publish_start.is_none()
            && publish_end.is_none()
            && cover_image_id.is_none()
            && header_image_id.is_none()
            && is_featured.is_none()
            && category_ids.is_none()
            && primary_category_id.is_none()
            && tag_ids.is_none()
            && route.is_none()
            && sections.is_none()
            && entry_type.is_none()
            && organization.is_none()
            && start_date.is_none()
            && end_date.is_none()
            && is_current.is_none()
            && links.is_none()
            && client.is_none()
            && media_ids.is_none()
            && document_type.is_none()
            && groups.is_none()
            && category.is_none()
            && proficiency.is_none()
            && allow_comments.is_none()
            && reading_time_minutes.is_none()
            && page_type.is_none()
            && template.is_none()
            && is_in_navigation.is_none()
            && navigation_order.is_none()
            && parent_page_id.is_none()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum CvEntryType {
    Work,
    Education,
    Volunteer,
    Certification,
    Project,
}

impl CvEntryType {
    pub fn as_str(self) -> &'static str {
        match self {
            CvEntryType::Work => "work",
            CvEntryType::Education => "education",
            CvEntryType::Volunteer => "volunteer",
            CvEntryType::Certification => "certification",
            CvEntryType::Project => "project",
        }
    }
}

crate::lenient_enum!(CvEntryType {
    CvEntryType::Work => ["work"],
    CvEntryType::Education => ["education"],
    CvEntryType::Volunteer => ["volunteer"],
    CvEntryType::Certification => ["certification"],
    CvEntryType::Project => ["project"],
});

/// What a page is for, as the service the spec was written from names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub enum PageType {
    Static,
    Landing,
    Contact,
    BlogIndex,
    Custom,
}

crate::lenient_enum!(PageType {
    PageType::Static => ["Static"],
    PageType::Landing => ["Landing"],
    PageType::Contact => ["Contact"],
    PageType::BlogIndex => ["BlogIndex"],
    PageType::Custom => ["Custom"],
});

// The longer names are the ones of the service the spec was written from.

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ProjectLink {
    /// The link's text, free text.
    pub label: String,
    /// An absolute http(s) URL with a host.
    #[schema(pattern = "<http url>")]
    pub url: String,
}

pub use super::bulk::{BulkAction, BulkRequest, BulkResult, ReviewAction, ReviewRequest};
pub use super::legal_consent::{ConsentGroup, ConsentItem, LegalDocumentType};
pub use super::localization_model::{LocalizationInput, LocalizationResponse, UpdateLocalization};
pub use super::page_sections::{PageSection, SectionLocalization};
