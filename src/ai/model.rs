//! Wire shapes of AI assist: the site's settings and each action's request
//! and answer.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::values::double_option;

/// The provider settings of a site. The API key is never shown: `api_key_set`
/// says whether one is stored.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AiSettingsResponse {
    /// The site.
    pub site_id: Uuid,
    /// Whether the site has settings (actions answer AI_NOT_CONFIGURED otherwise);
    /// the other fields are null while it has none.
    pub configured: bool,
    /// The provider label (`openai`, …).
    pub provider: Option<String>,
    /// The API root calls go to.
    pub base_url: Option<String>,
    /// The model for text actions.
    pub model: Option<String>,
    /// The model for `alt_text` and `auto_tag`; null means `model`.
    pub vision_model: Option<String>,
    /// Whether an API key is stored (it is never shown).
    pub api_key_set: bool,
    /// 0-2; null leaves it to the provider.
    pub temperature: Option<f64>,
    /// Null leaves it to the provider.
    pub max_tokens: Option<i32>,
    /// Seconds one provider call may take in all.
    pub timeout_secs: i32,
    /// What the site's calls cost so far.
    pub usage: AiUsage,
    /// The site's own instructions per content-assist action; empty for the defaults.
    pub system_prompts: BTreeMap<String, String>,
    /// When the settings last changed; null while there are none.
    pub updated_at: Option<DateTime<Utc>>,
}

/// What the site's calls cost so far.
#[derive(Clone, Debug, Default, Serialize, ToSchema)]
pub struct AiUsage {
    /// Calls the provider answered.
    pub requests: i64,
    /// Sum of the provider's `usage.total_tokens`.
    pub total_tokens: i64,
}

/// Replaces the settings. On the first save `base_url` and `model` are
/// required; later, omitted fields keep their values. `api_key`: omitted keeps
/// the stored key, `null` or `""` removes it.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateAiSettings {
    /// A label (`openai`, `openrouter`, `ollama`, …), 1-50 characters; default
    /// `openai`. Every provider is called through the OpenAI-compatible
    /// `POST {base_url}/chat/completions`.
    pub provider: Option<String>,
    /// The API root, e.g. `https://api.openai.com/v1`; http(s), no credentials,
    /// no private network address (AI_URL_SSRF).
    pub base_url: Option<String>,
    /// The model for text actions: 1 to 200 characters (trimmed, not blank); required on the first save.
    #[schema(min_length = 1, max_length = 200)]
    pub model: Option<String>,
    /// The model for `alt_text` and `auto_tag`; `model` when unset (`null` unsets).
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>)]
    pub vision_model: Option<Option<String>>,
    /// Sent as `Authorization: Bearer …`; stored encrypted, never shown.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>)]
    pub api_key: Option<Option<String>>,
    /// 0-2; `null` leaves it to the provider.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 2)]
    pub temperature: Option<Option<f64>>,
    /// 1-32,000; `null` leaves it to the provider.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<i32>, minimum = 1, maximum = 32000)]
    pub max_tokens: Option<Option<i32>>,
    /// Seconds one call may take in all (connecting: 5 s at most); default 30.
    #[schema(minimum = 1, maximum = 120)]
    pub timeout_secs: Option<i32>,
    /// The site's own instructions per content-assist action (`seo`, `excerpt`, `translate`, `draft_outline`,
    /// `draft_post`), each at most 4,000 characters; replaces the stored ones (blank values and `{}` mean the
    /// defaults). Omitted keeps them.
    pub system_prompts: Option<BTreeMap<String, String>>,
}

/// A field `suggest` proposes values for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SuggestField {
    Title,
    Excerpt,
    MetaTitle,
    MetaDescription,
    Slug,
    Tags,
}

crate::lenient_enum!(SuggestField {
    SuggestField::Title => ["title"],
    SuggestField::Excerpt => ["excerpt"],
    SuggestField::MetaTitle => ["meta_title"],
    SuggestField::MetaDescription => ["meta_description"],
    SuggestField::Slug => ["slug"],
    SuggestField::Tags => ["tags"],
});

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct SuggestRequest {
    /// What to suggest.
    pub field: SuggestField,
    /// The text to suggest from: at least 50 characters once trimmed
    /// (AI_CONTEXT_INSUFFICIENT), at most 50,000.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub content: String,
    /// The language to answer in (a code of the global locale list).
    pub locale: Option<String>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SuggestResponse {
    /// What was suggested.
    pub field: SuggestField,
    /// Up to 10 proposals (slugs are made URL-safe).
    pub suggestions: Vec<String>,
}

/// A text field of a content item `translate` works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TranslateField {
    Title,
    Excerpt,
    Body,
    MetaTitle,
    MetaDescription,
}

crate::lenient_enum!(TranslateField {
    TranslateField::Title => ["title"],
    TranslateField::Excerpt => ["excerpt"],
    TranslateField::Body => ["body"],
    TranslateField::MetaTitle => ["meta_title"],
    TranslateField::MetaDescription => ["meta_description"],
});

impl TranslateField {
    pub fn as_str(self) -> &'static str {
        match self {
            TranslateField::Title => "title",
            TranslateField::Excerpt => "excerpt",
            TranslateField::Body => "body",
            TranslateField::MetaTitle => "meta_title",
            TranslateField::MetaDescription => "meta_description",
        }
    }
}

/// Either `text` (answered as `translations.text`) or `content_id`, an item
/// on this site whose `fields` are translated (default title, excerpt, body;
/// fields that are empty on the item are skipped).
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct TranslateRequest {
    /// At most 50,000 characters.
    pub text: Option<String>,
    /// A content item of this site whose fields are translated (instead of `text`).
    pub content_id: Option<Uuid>,
    /// With `content_id`: which fields (default `title`, `excerpt` and `body`).
    pub fields: Option<Vec<TranslateField>>,
    /// A code of the global locale list; the model detects the language when omitted.
    pub source_locale: Option<String>,
    /// A code of the global locale list (AI_TRANSLATE_INVALID otherwise).
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub target_locale: String,
    /// With `content_id`: store the translation as the item's localization for
    /// `target_locale` (created, or updated when one exists), as
    /// `POST /blogs/{id}/localizations` would; the locale must be assigned to
    /// one of the item's sites.
    #[serde(default)]
    pub save: bool,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TranslateResponse {
    /// The language translated into.
    pub target_locale: String,
    /// Field name (or `text`) → translated text.
    pub translations: BTreeMap<String, String>,
    /// The stored localization, with `save`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saved_localization_id: Option<Uuid>,
}

/// An image for `alt_text` and `auto_tag`: `image_url` or `media_id` (an image
/// file of this site; it wins when both are sent), one of them required
/// (AI_VISION_MISSING_IMAGE). The provider fetches the image itself: a media
/// file is sent as its URL under `PLINTH_PUBLIC_URL`, which the provider must
/// be able to reach.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct VisionRequest {
    /// http(s), or a `data:image/…` URL; the provider fetches it.
    pub image_url: Option<String>,
    /// An image file of this site.
    pub media_id: Option<Uuid>,
    /// With `media_id`: `alt_text` stores the text as the file's metadata in
    /// `locale` (created or updated); `auto_tag` adds the tags to the file's
    /// tags (at most 20 in all).
    #[serde(default)]
    pub save: bool,
    /// The language to answer in, and of the stored metadata: a code of the
    /// global locale list; default the site's default locale.
    pub locale: Option<String>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AltTextResponse {
    /// At most 500 characters.
    pub alt_text: String,
    /// The metadata record written, with `save`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saved_metadata_id: Option<Uuid>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AutoTagResponse {
    /// Up to 20 tags of 1-50 letters, digits, spaces, `-` or `_`.
    pub tags: Vec<String>,
    /// The file's tags after the save, with `save`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saved_tags: Option<Vec<String>>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct SectionContentRequest {
    /// hero, text, features, faq, testimonials or call_to_action
    /// (AI_SECTION_TYPE_UNKNOWN otherwise; missing: AI_SECTION_CONTEXT_INSUFFICIENT).
    pub section_type: Option<String>,
    /// What the section is about: at least 20 characters once trimmed
    /// (AI_SECTION_CONTEXT_INSUFFICIENT), at most 50,000.
    pub section_context: Option<String>,
    /// The language to write in (a code of the global locale list).
    pub locale: Option<String>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SectionContentResponse {
    /// The section type asked for.
    pub section_type: String,
    /// The section's fields as the type lists them (see the module's
    /// documentation), e.g. `{title, subtitle, cta_label}` for a hero.
    #[schema(value_type = Object)]
    pub content: Value,
}

/// What `generate` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AssistAction {
    /// `meta_title` and `meta_description` for the content.
    Seo,
    /// An `excerpt` of the content.
    Excerpt,
    /// The post (`title`, `subtitle`, `excerpt`, `body`, meta fields) in `target_locale`.
    Translate,
    /// A `title`, `subtitle` and `outline` from a topic.
    DraftOutline,
    /// A `body`, `excerpt` and meta fields from a title and outline.
    DraftPost,
}

impl AssistAction {
    pub const ALL: [AssistAction; 5] = [
        AssistAction::Seo,
        AssistAction::Excerpt,
        AssistAction::Translate,
        AssistAction::DraftOutline,
        AssistAction::DraftPost,
    ];

    pub fn key(self) -> &'static str {
        match self {
            AssistAction::Seo => "seo",
            AssistAction::Excerpt => "excerpt",
            AssistAction::Translate => "translate",
            AssistAction::DraftOutline => "draft_outline",
            AssistAction::DraftPost => "draft_post",
        }
    }
}
