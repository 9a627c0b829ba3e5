//! Wire shapes of forms, templates, submissions and bot protection.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::values::double_option;

/// The type of the `field_type` column, so it lives with the entities.
pub use plinth_entities::values::FieldType;

/// `none`: no check; `optional`: a given token is verified; `mandatory`: a
/// token is required and verified.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum BotProtection {
    #[default]
    None,
    Optional,
    Mandatory,
}

impl BotProtection {
    pub fn as_str(self) -> &'static str {
        match self {
            BotProtection::None => "none",
            BotProtection::Optional => "optional",
            BotProtection::Mandatory => "mandatory",
        }
    }

    pub fn parse(s: &str) -> BotProtection {
        match s {
            "optional" => BotProtection::Optional,
            "mandatory" => BotProtection::Mandatory,
            _ => BotProtection::None,
        }
    }
}

/// `queryable` also indexes submitted values for field-value search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum StorageMode {
    #[default]
    Simple,
    Queryable,
}

impl StorageMode {
    pub fn as_str(self) -> &'static str {
        match self {
            StorageMode::Simple => "simple",
            StorageMode::Queryable => "queryable",
        }
    }

    pub fn parse(s: &str) -> StorageMode {
        if s == "queryable" {
            StorageMode::Queryable
        } else {
            StorageMode::Simple
        }
    }
}

/// A field as written by the builder (and kept in templates).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FieldInput {
    /// The technical key of the submitted value; unique within the form.
    #[schema(min_length = 1, max_length = 500, pattern = "<line>")]
    pub label: String,
    /// What the field takes.
    pub field_type: FieldType,
    /// A value must be sent and not blank (default false).
    #[serde(default)]
    pub required: bool,
    /// The allowed values of select and radio fields (and of a checkbox group).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_items = 200)]
    pub options: Option<Vec<String>>,
    /// Fewest characters of a text value; not above `max_length`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u32>,
    /// Most characters of a text value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u32>,
    /// ECMAScript regular expression the whole value must match; lookaround
    /// and backreferences are refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// Smallest number (number fields only; finite, not above `max`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    /// Largest number (number fields only; finite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    /// Hint shown in the empty field, at most 500 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 500)]
    pub placeholder: Option<String>,
    /// Help shown with the field, at most 500 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 500)]
    pub help_text: Option<String>,
    /// Position in the form; its place in the list when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_order: Option<i32>,
}

/// A field's texts in one locale, naming the field by its `label`.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct FieldLocalizationInput {
    /// The `label` of one of the form's fields.
    pub label: String,
    /// The label shown in this locale, at most 500 characters (trimmed).
    #[schema(max_length = 500)]
    pub display_label: Option<String>,
    /// At most 500 characters (trimmed).
    #[schema(max_length = 500)]
    pub placeholder: Option<String>,
    /// At most 500 characters (trimmed).
    #[schema(max_length = 500)]
    pub help_text: Option<String>,
}

/// A form's texts in one locale, named by `locale_id` (a UUID) or `locale` (a code).
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct FormLocalizationInput {
    /// One of the site's locales, by id; each locale once.
    #[serde(default)]
    pub locale_id: Option<String>,
    /// One of the site's locales, by code (any letter case), where `locale_id` is not given.
    #[serde(default)]
    pub locale: Option<String>,
    /// The form's name in this locale: one line of 1 to 200 characters (trimmed).
    #[schema(min_length = 1, max_length = 200, pattern = "<line>")]
    pub name: String,
    /// At most 5,000 characters (trimmed).
    #[schema(max_length = 5000)]
    pub description: Option<String>,
    /// The consent wording, at most 5,000 characters (trimmed).
    #[schema(max_length = 5000)]
    pub consent_text: Option<String>,
    /// Texts of the form's fields in this locale.
    #[serde(default)]
    pub fields: Vec<FieldLocalizationInput>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateForm {
    /// 1 to 100 lowercase letters, digits and single hyphens, no hyphen at either end; unique on the site.
    #[schema(min_length = 1, max_length = 100, pattern = "<slug>")]
    pub slug: String,
    /// One line of 1 to 200 characters (trimmed), without control characters.
    #[schema(min_length = 1, max_length = 200, pattern = "<line>")]
    pub name: String,
    /// At most 5,000 characters (trimmed); blank for none.
    #[schema(max_length = 5000)]
    pub description: Option<String>,
    /// Accepts submissions (default true).
    #[serde(default = "yes")]
    pub is_active: bool,
    /// Starts from this template: its fields and settings, unless given here.
    pub template_id: Option<Uuid>,
    /// Submissions must carry `consent_given: true`.
    pub requires_consent: Option<bool>,
    /// How submissions are checked for bots.
    pub bot_protection: Option<BotProtection>,
    /// `queryable` also indexes values for field-value search.
    pub storage_mode: Option<StorageMode>,
    /// Days after which submissions are deleted; null or 0 keeps them.
    #[schema(minimum = 0, maximum = 3650)]
    pub retention_days: Option<i32>,
    /// The fields: at most 100, labels unique.
    pub fields: Option<Vec<FieldInput>>,
    /// Texts per locale.
    pub localizations: Option<Vec<FormLocalizationInput>>,
}

fn yes() -> bool {
    true
}

/// Every member is optional; `fields` and `localizations`, when sent, replace
/// the stored ones in one transaction.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateForm {
    /// 1 to 100 lowercase letters, digits and single hyphens, no hyphen at either end; unique on the site.
    #[schema(min_length = 1, max_length = 100, pattern = "<slug>")]
    pub slug: Option<String>,
    /// One line of 1 to 200 characters (trimmed), without control characters.
    #[schema(min_length = 1, max_length = 200, pattern = "<line>")]
    pub name: Option<String>,
    /// At most 5,000 characters (trimmed); `null` or blank clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, max_length = 5000)]
    pub description: Option<Option<String>>,
    /// Accepts submissions.
    pub is_active: Option<bool>,
    /// Submissions must carry `consent_given: true`.
    pub requires_consent: Option<bool>,
    /// How submissions are checked for bots.
    pub bot_protection: Option<BotProtection>,
    /// `queryable` also indexes values for field-value search.
    pub storage_mode: Option<StorageMode>,
    /// 0 to 3650 days after which submissions are deleted; `null` or 0 keeps them.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<i32>, minimum = 0, maximum = 3650)]
    pub retention_days: Option<Option<i32>>,
    /// Replaces the fields: at most 100, labels unique.
    pub fields: Option<Vec<FieldInput>>,
    /// Replaces the texts per locale.
    pub localizations: Option<Vec<FormLocalizationInput>>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct FieldResponse {
    pub id: Uuid,
    #[serde(flatten)]
    pub field: FieldInput,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct FieldLocalizationResponse {
    /// The field.
    pub field_id: Uuid,
    /// The field's `label`.
    pub label: String,
    /// The label shown in this locale; null when not translated.
    pub display_label: Option<String>,
    /// Null when not translated.
    pub placeholder: Option<String>,
    /// Null when not translated.
    pub help_text: Option<String>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct FormLocalizationResponse {
    /// The locale.
    pub locale_id: Uuid,
    /// Its code (`de`); null when the locale is gone.
    pub locale_code: Option<String>,
    /// The form's name in this locale.
    pub name: String,
    /// Null when none.
    pub description: Option<String>,
    /// Null when none.
    pub consent_text: Option<String>,
    /// Texts of the fields in this locale.
    pub fields: Vec<FieldLocalizationResponse>,
}

/// A form; the list leaves out `fields` and `localizations`.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct FormResponse {
    pub id: Uuid,
    /// The site it belongs to.
    pub site_id: Uuid,
    /// Unique on the site; names the form in public paths.
    pub slug: String,
    /// The form's name.
    pub name: String,
    /// Null when none.
    pub description: Option<String>,
    /// Accepts submissions.
    pub is_active: bool,
    /// Submissions must carry `consent_given: true`.
    pub requires_consent: bool,
    /// How submissions are checked for bots.
    pub bot_protection: BotProtection,
    /// `queryable` forms index values for field-value search.
    pub storage_mode: StorageMode,
    /// Days after which submissions are deleted; null or 0 keeps them.
    pub retention_days: Option<i32>,
    /// The fields, in order (not in lists).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<FieldResponse>>,
    /// Texts per locale (not in lists).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub localizations: Option<Vec<FormLocalizationResponse>>,
    /// Who created it (user or key id); null when unknown.
    pub created_by: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FormSortBy {
    Name,
    Slug,
    #[default]
    CreatedAt,
    UpdatedAt,
}

pub use crate::pagination::SortDir;

#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FormListQuery {
    #[param(schema_with = crate::pagination::page_number_schema)]
    pub page: Option<u64>,
    /// Items per page (default 10, at most 100); `per_page` is accepted too.
    #[param(schema_with = crate::pagination::per_page_schema)]
    pub page_size: Option<u32>,
    #[param(schema_with = crate::pagination::per_page_schema)]
    pub per_page: Option<u32>,
    /// Part of the name or slug, any letter case.
    pub search: Option<String>,
    // Inline: query parameters' schemas are not collected into the document's
    // components, so a `$ref` to them would dangle.
    /// The order (default `created_at`).
    #[param(inline)]
    pub sort_by: Option<FormSortBy>,
    /// `desc` (default) or `asc`.
    #[param(inline)]
    pub sort_dir: Option<SortDir>,
}

/// A template's reusable definition.
#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
pub struct TemplateDefinition {
    /// The fields: at most 100, labels unique.
    #[serde(default)]
    pub fields: Vec<FieldInput>,
    /// Submissions must carry `consent_given: true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_consent: Option<bool>,
    /// How submissions are checked for bots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot_protection: Option<BotProtection>,
    /// `queryable` indexes values for field-value search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_mode: Option<StorageMode>,
    /// 0 to 3650 days after which submissions are deleted; null or 0 keeps them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_days: Option<i32>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateTemplate {
    /// One line of 1 to 200 characters (trimmed).
    #[schema(min_length = 1, max_length = 200, pattern = "<line>")]
    pub name: String,
    /// At most 5,000 characters.
    pub description: Option<String>,
    #[serde(flatten)]
    pub definition: TemplateDefinition,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateTemplate {
    /// One line of 1 to 200 characters (trimmed).
    #[schema(min_length = 1, max_length = 200, pattern = "<line>")]
    pub name: Option<String>,
    /// At most 5,000 characters; `null` clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>)]
    pub description: Option<Option<String>>,
    /// Replaces the fields: at most 100, labels unique.
    pub fields: Option<Vec<FieldInput>>,
    /// Submissions must carry `consent_given: true`.
    pub requires_consent: Option<bool>,
    /// How submissions are checked for bots.
    pub bot_protection: Option<BotProtection>,
    /// `queryable` indexes values for field-value search.
    pub storage_mode: Option<StorageMode>,
    /// 0 to 3650 days; `null` clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<i32>)]
    pub retention_days: Option<Option<i32>>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TemplateResponse {
    pub id: Uuid,
    /// The site it belongs to.
    pub site_id: Uuid,
    /// The template's name.
    pub name: String,
    /// Null when none.
    pub description: Option<String>,
    #[serde(flatten)]
    pub definition: TemplateDefinition,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PublicFormQuery {
    /// A locale id (UUID) or code (`de`); texts of that locale replace the canonical ones.
    pub locale: Option<String>,
}

/// A field as a visitor's form renders it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PublicField {
    pub id: Uuid,
    /// The key of the value in the submitted `data`.
    pub label: String,
    /// The localized label, else `label`.
    pub display_label: String,
    /// What the field takes.
    pub field_type: FieldType,
    /// A value must be sent and not blank.
    pub required: bool,
    /// The allowed values (select, radio and checkbox fields).
    pub options: Option<Vec<String>>,
    /// Fewest characters of a text value.
    pub min_length: Option<u32>,
    /// Most characters of a text value.
    pub max_length: Option<u32>,
    /// ECMAScript regular expression the whole value must match.
    pub pattern: Option<String>,
    /// Smallest number.
    pub min: Option<f64>,
    /// Largest number.
    pub max: Option<f64>,
    /// Hint shown in the empty field, localized where translated.
    pub placeholder: Option<String>,
    /// Help shown with the field, localized where translated.
    pub help_text: Option<String>,
    /// Position in the form.
    pub display_order: i32,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PublicForm {
    pub id: Uuid,
    /// The form's slug.
    pub slug: String,
    /// The form's name, localized where translated.
    pub name: String,
    /// Localized where translated; null when none.
    pub description: Option<String>,
    /// The consent wording; null when none.
    pub consent_text: Option<String>,
    /// Submissions must carry `consent_given: true`.
    pub requires_consent: bool,
    /// How submissions are checked for bots.
    pub bot_protection: BotProtection,
    /// How a token is obtained when `bot_protection` is not `none`: `altcha`
    /// (solve `GET …/altcha-challenge`) or `remote`.
    pub bot_protection_mode: Option<BotMode>,
    /// The code of the locale whose texts were applied, if any.
    pub locale: Option<String>,
    /// The fields, in order.
    pub fields: Vec<PublicField>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum BotMode {
    #[default]
    Altcha,
    Remote,
}

impl BotMode {
    pub fn as_str(self) -> &'static str {
        match self {
            BotMode::Altcha => "altcha",
            BotMode::Remote => "remote",
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct BotProtectionUpdate {
    /// `altcha` or `remote`.
    pub mode: Option<BotMode>,
    /// Remote mode: where tokens are POSTed (`secret` and `response`, form-encoded):
    /// an http(s) URL with a host and without credentials whose host is not, and
    /// does not resolve to, a private or reserved address (422); `null` removes it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, pattern = "<http url>")]
    pub verify_url: Option<Option<String>>,
    /// Remote mode: the verifier's secret (write-only).
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>)]
    pub secret: Option<Option<String>>,
    /// Rotates the key that signs ALTCHA challenges (outstanding ones stop verifying).
    #[serde(default)]
    pub regenerate_key: bool,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BotProtectionResponse {
    /// The site.
    pub site_id: Uuid,
    /// `altcha` (proof of work solved in the browser) or `remote` (a verifier service).
    pub mode: BotMode,
    /// Remote mode: where tokens are verified; null when unset.
    pub verify_url: Option<String>,
    /// Whether a verifier secret is stored (it is never shown).
    pub secret_set: bool,
    /// When the settings last changed.
    pub updated_at: DateTime<Utc>,
}

pub use super::submission_model::{
    LookupRequest, NoteInput, NoteResponse, StatusChange, StatusCounts, StatusUpdate, SubmissionDetail,
    SubmissionListQuery, SubmissionLookup, SubmissionReceipt, SubmissionResponse, SubmissionStatus, SubmitForm,
    VisitorSubmission,
};
