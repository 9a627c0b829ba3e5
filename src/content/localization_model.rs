//! The request and response shapes of a content item's localizations.

use chrono::{DateTime, Utc};
use plinth_entities::content_localization;
use plinth_entities::values::TranslationStatus;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct LocalizationResponse {
    pub id: Uuid,
    /// The item it translates.
    pub content_id: Uuid,
    /// The global locale it is in.
    pub locale_id: Uuid,
    /// The translated title.
    pub title: String,
    /// A line under the title; may be empty.
    pub subtitle: String,
    /// The translated summary.
    pub excerpt: String,
    /// The translated text.
    pub body: String,
    /// Title for search engines; may be empty.
    pub meta_title: String,
    /// Description for search engines; may be empty.
    pub meta_description: String,
    /// Where the translation stands: Pending (new), InProgress, Review, Approved or Outdated.
    pub translation_status: TranslationStatus,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&content_localization::Model> for LocalizationResponse {
    fn from(m: &content_localization::Model) -> Self {
        Self {
            id: m.id,
            content_id: m.content_id,
            locale_id: m.locale_id,
            title: m.title.clone(),
            subtitle: m.subtitle.clone(),
            excerpt: m.excerpt.clone(),
            body: m.body.clone(),
            meta_title: m.meta_title.clone(),
            meta_description: m.meta_description.clone(),
            translation_status: m.translation_status,
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
#[schema(example = json!({"locale_id": "de", "title": "Frisches Brot", "excerpt": "Um sieben aus dem Ofen."}))]
pub struct LocalizationInput {
    /// A locale assigned to one of the item's sites, by UUID or code (422 otherwise, naming the sites' codes); one
    /// localization per locale (ENTITY_LOCALIZATION_EXISTS).
    pub locale_id: crate::values::LocaleName,
    /// One line of 1 to 300 characters (trimmed), without control characters.
    #[schema(min_length = 1, max_length = 300, pattern = "<line>")]
    pub title: String,
    /// A line under the title: at most 300 characters (trimmed); empty when omitted.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(max_length = 300, pattern = "<optional line>")]
    pub subtitle: String,
    /// Text without control characters but tab and line breaks.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(pattern = "<text>")]
    pub excerpt: String,
    /// Text without control characters but tab and line breaks.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(pattern = "<text>")]
    pub body: String,
    /// Title for search engines, free text; empty when omitted.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub meta_title: String,
    /// Description for search engines, free text; empty when omitted.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub meta_description: String,
    /// Pending when omitted; InProgress, Review, Approved, Outdated.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub translation_status: TranslationStatus,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateLocalization {
    /// One line of 1 to 300 characters (trimmed), without control characters.
    #[schema(min_length = 1, max_length = 300, pattern = "<line>")]
    pub title: Option<String>,
    /// At most 300 characters (trimmed); empty removes it.
    #[schema(max_length = 300, pattern = "<optional line>")]
    pub subtitle: Option<String>,
    /// Text without control characters but tab and line breaks.
    #[schema(pattern = "<text>")]
    pub excerpt: Option<String>,
    /// Text without control characters but tab and line breaks.
    #[schema(pattern = "<text>")]
    pub body: Option<String>,
    /// Title for search engines, free text.
    pub meta_title: Option<String>,
    /// Description for search engines, free text.
    pub meta_description: Option<String>,
    /// Pending, InProgress, Review, Approved or Outdated.
    pub translation_status: Option<TranslationStatus>,
}
