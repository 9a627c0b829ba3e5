//! Wire shapes of forms, templates, submissions and bot protection.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::values::double_option;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum FieldType {
    Text,
    Textarea,
    Email,
    Number,
    Date,
    Select,
    Radio,
    Checkbox,
}

impl FieldType {
    pub fn as_str(self) -> &'static str {
        match self {
            FieldType::Text => "text",
            FieldType::Textarea => "textarea",
            FieldType::Email => "email",
            FieldType::Number => "number",
            FieldType::Date => "date",
            FieldType::Select => "select",
            FieldType::Radio => "radio",
            FieldType::Checkbox => "checkbox",
        }
    }

    pub fn parse(s: &str) -> Option<FieldType> {
        serde_json::from_value(Value::String(s.to_ascii_lowercase())).ok()
    }

    /// Types whose value must be one of the field's options.
    pub fn has_options(self) -> bool {
        matches!(self, FieldType::Select | FieldType::Radio)
    }

    /// Types whose value is text (length and pattern rules apply).
    pub fn is_text(self) -> bool {
        matches!(self, FieldType::Text | FieldType::Textarea | FieldType::Email)
    }
}

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
    pub label: String,
    pub field_type: FieldType,
    #[serde(default)]
    pub required: bool,
    /// The allowed values of select and radio fields (and of a checkbox group).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u32>,
    /// ECMAScript regular expression the whole value must match; lookaround
    /// and backreferences are refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_order: Option<i32>,
}

/// A field's texts in one locale, naming the field by its `label`.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct FieldLocalizationInput {
    pub label: String,
    pub display_label: Option<String>,
    pub placeholder: Option<String>,
    pub help_text: Option<String>,
}

/// A form's texts in one locale, named by `locale_id` (a UUID) or `locale` (a code).
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct FormLocalizationInput {
    #[serde(default)]
    pub locale_id: Option<String>,
    #[serde(default)]
    pub locale: Option<String>,
    pub name: String,
    pub description: Option<String>,
    pub consent_text: Option<String>,
    #[serde(default)]
    pub fields: Vec<FieldLocalizationInput>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateForm {
    pub slug: String,
    pub name: String,
    pub description: Option<String>,
    #[serde(default = "yes")]
    pub is_active: bool,
    /// Starts from this template: its fields and settings, unless given here.
    pub template_id: Option<Uuid>,
    pub requires_consent: Option<bool>,
    pub bot_protection: Option<BotProtection>,
    pub storage_mode: Option<StorageMode>,
    /// Days after which submissions are deleted; null or 0 keeps them.
    pub retention_days: Option<i32>,
    pub fields: Option<Vec<FieldInput>>,
    pub localizations: Option<Vec<FormLocalizationInput>>,
}

fn yes() -> bool {
    true
}

/// Every member is optional; `fields` and `localizations`, when sent, replace
/// the stored ones in one transaction.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateForm {
    pub slug: Option<String>,
    pub name: Option<String>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>)]
    pub description: Option<Option<String>>,
    pub is_active: Option<bool>,
    pub requires_consent: Option<bool>,
    pub bot_protection: Option<BotProtection>,
    pub storage_mode: Option<StorageMode>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<i32>)]
    pub retention_days: Option<Option<i32>>,
    pub fields: Option<Vec<FieldInput>>,
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
    pub field_id: Uuid,
    pub label: String,
    pub display_label: Option<String>,
    pub placeholder: Option<String>,
    pub help_text: Option<String>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct FormLocalizationResponse {
    pub locale_id: Uuid,
    pub locale_code: Option<String>,
    pub name: String,
    pub description: Option<String>,
    pub consent_text: Option<String>,
    pub fields: Vec<FieldLocalizationResponse>,
}

/// A form; the list leaves out `fields` and `localizations`.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct FormResponse {
    pub id: Uuid,
    pub site_id: Uuid,
    pub slug: String,
    pub name: String,
    pub description: Option<String>,
    pub is_active: bool,
    pub requires_consent: bool,
    pub bot_protection: BotProtection,
    pub storage_mode: StorageMode,
    pub retention_days: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<FieldResponse>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub localizations: Option<Vec<FormLocalizationResponse>>,
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

#[derive(Clone, Copy, Debug, Default, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SortDir {
    Asc,
    #[default]
    Desc,
}

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
    #[param(inline)]
    pub sort_by: Option<FormSortBy>,
    #[param(inline)]
    pub sort_dir: Option<SortDir>,
}

/// A template's reusable definition.
#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
pub struct TemplateDefinition {
    #[serde(default)]
    pub fields: Vec<FieldInput>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_consent: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot_protection: Option<BotProtection>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_mode: Option<StorageMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_days: Option<i32>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateTemplate {
    pub name: String,
    pub description: Option<String>,
    #[serde(flatten)]
    pub definition: TemplateDefinition,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateTemplate {
    pub name: Option<String>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>)]
    pub description: Option<Option<String>>,
    pub fields: Option<Vec<FieldInput>>,
    pub requires_consent: Option<bool>,
    pub bot_protection: Option<BotProtection>,
    pub storage_mode: Option<StorageMode>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<i32>)]
    pub retention_days: Option<Option<i32>>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TemplateResponse {
    pub id: Uuid,
    pub site_id: Uuid,
    pub name: String,
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
    pub field_type: FieldType,
    pub required: bool,
    pub options: Option<Vec<String>>,
    pub min_length: Option<u32>,
    pub max_length: Option<u32>,
    pub pattern: Option<String>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub placeholder: Option<String>,
    pub help_text: Option<String>,
    pub display_order: i32,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PublicForm {
    pub id: Uuid,
    pub slug: String,
    pub name: String,
    pub description: Option<String>,
    pub consent_text: Option<String>,
    pub requires_consent: bool,
    pub bot_protection: BotProtection,
    /// How a token is obtained when `bot_protection` is not `none`: `altcha`
    /// (solve `GET …/altcha-challenge`) or `remote`.
    pub bot_protection_mode: Option<BotMode>,
    /// The code of the locale whose texts were applied, if any.
    pub locale: Option<String>,
    pub fields: Vec<PublicField>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct SubmitForm {
    /// Values by field `label`; unknown labels are refused.
    #[schema(value_type = Object)]
    pub data: Map<String, Value>,
    #[serde(default)]
    pub consent_given: Option<bool>,
    /// The solved ALTCHA payload (base64 JSON) or the remote verifier's token.
    #[serde(default)]
    pub bot_protection_token: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SubmissionStatus {
    New,
    InReview,
    Resolved,
    Archived,
}

impl SubmissionStatus {
    pub const ALL: [SubmissionStatus; 4] =
        [SubmissionStatus::New, SubmissionStatus::InReview, SubmissionStatus::Resolved, SubmissionStatus::Archived];

    pub fn as_str(self) -> &'static str {
        match self {
            SubmissionStatus::New => "new",
            SubmissionStatus::InReview => "in_review",
            SubmissionStatus::Resolved => "resolved",
            SubmissionStatus::Archived => "archived",
        }
    }

    pub fn parse(s: &str) -> Option<SubmissionStatus> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// The review state machine: new → in_review | resolved | archived;
    /// in_review → resolved | archived; resolved → in_review (reopen) |
    /// archived; archived → in_review (restore). Nothing returns to `new`
    /// (it means "nobody looked yet") and nothing moves to itself.
    pub fn may_move_to(self, to: SubmissionStatus) -> bool {
        use SubmissionStatus::*;
        matches!(
            (self, to),
            (New, InReview | Resolved | Archived)
                | (InReview, Resolved | Archived)
                | (Resolved, InReview | Archived)
                | (Archived, InReview)
        )
    }
}

/// What a visitor is told when a submission is received.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SubmissionReceipt {
    /// `XXXX-XXXX-XXXX`: the visitor's handle on the submission.
    pub reference_code: String,
    pub status: SubmissionStatus,
    pub created_at: DateTime<Utc>,
}

/// What a lookup by reference code tells: the spec's "status and created_at
/// only" (the caller already holds the code).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SubmissionLookup {
    pub status: SubmissionStatus,
    pub created_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct LookupRequest {
    pub reference_code: String,
}

/// The visitor's full view of their submission.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct VisitorSubmission {
    pub reference_code: String,
    pub form_slug: String,
    pub form_name: String,
    pub status: SubmissionStatus,
    #[schema(value_type = Object)]
    pub data: Value,
    pub consent_given: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SubmissionResponse {
    pub id: Uuid,
    pub form_id: Uuid,
    pub site_id: Uuid,
    pub reference_code: String,
    pub status: SubmissionStatus,
    #[schema(value_type = Object)]
    pub data: Value,
    pub consent_given: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct NoteResponse {
    pub id: Uuid,
    pub submission_id: Uuid,
    pub body: String,
    pub author: Option<String>,
    pub created_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct StatusChange {
    /// Null for the submission's arrival.
    pub from_status: Option<SubmissionStatus>,
    pub to_status: SubmissionStatus,
    pub actor: Option<String>,
    pub created_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SubmissionDetail {
    #[serde(flatten)]
    pub submission: SubmissionResponse,
    pub notes: Vec<NoteResponse>,
    pub status_history: Vec<StatusChange>,
}

#[derive(Clone, Debug, Default, Serialize, ToSchema, PartialEq, Eq)]
pub struct StatusCounts {
    pub new: u64,
    pub in_review: u64,
    pub resolved: u64,
    pub archived: u64,
    pub total: u64,
}

#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SubmissionListQuery {
    #[param(schema_with = crate::pagination::page_number_schema)]
    pub page: Option<u64>,
    /// Items per page (default 10, at most 100); `per_page` is accepted too.
    #[param(schema_with = crate::pagination::per_page_schema)]
    pub page_size: Option<u32>,
    #[param(schema_with = crate::pagination::per_page_schema)]
    pub per_page: Option<u32>,
    pub status: Option<SubmissionStatus>,
    /// With `value`: submissions whose `field` (a label) has this value, any
    /// letter case. Only for `queryable` forms (an indexed query).
    pub field: Option<String>,
    pub value: Option<String>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct StatusUpdate {
    pub status: SubmissionStatus,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct NoteInput {
    pub body: String,
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
    pub mode: Option<BotMode>,
    /// Remote mode: where tokens are POSTed (`secret` and `response`, form-encoded).
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>)]
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
    pub site_id: Uuid,
    pub mode: BotMode,
    pub verify_url: Option<String>,
    pub secret_set: bool,
    pub updated_at: DateTime<Utc>,
}
