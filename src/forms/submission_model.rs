//! Wire shapes of form submissions: what visitors send and see, and what the
//! site's reviewers list, read and change.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct SubmitForm {
    /// Values by field `label`; unknown labels are refused.
    #[schema(value_type = Object)]
    pub data: Map<String, Value>,
    /// Must be `true` when the form requires consent.
    #[serde(default)]
    pub consent_given: Option<bool>,
    /// The solved ALTCHA payload (base64 JSON) or the remote verifier's token.
    #[serde(default)]
    pub bot_protection_token: Option<String>,
}

/// The type of the `status` columns, so it lives with the entities.
pub use plinth_entities::values::SubmissionStatus;

/// What a visitor is told when a submission is received.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SubmissionReceipt {
    /// `XXXX-XXXX-XXXX`: the visitor's handle on the submission.
    pub reference_code: String,
    /// The submission's review status (`new`).
    pub status: SubmissionStatus,
    pub created_at: DateTime<Utc>,
}

/// What a lookup by reference code tells: the spec's "status and created_at
/// only" (the caller already holds the code).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SubmissionLookup {
    /// The submission's review status.
    pub status: SubmissionStatus,
    /// When it was received.
    pub created_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct LookupRequest {
    /// The code the visitor was given (`XXXX-XXXX-XXXX`).
    pub reference_code: String,
}

/// The visitor's full view of their submission.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct VisitorSubmission {
    /// The visitor's handle on the submission.
    pub reference_code: String,
    /// The form's slug.
    pub form_slug: String,
    /// The form's name.
    pub form_name: String,
    /// The review status.
    pub status: SubmissionStatus,
    /// The submitted values by field label.
    #[schema(value_type = Object)]
    pub data: Value,
    /// Whether consent was given.
    pub consent_given: bool,
    /// When it was received.
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SubmissionResponse {
    pub id: Uuid,
    /// The form.
    pub form_id: Uuid,
    /// The form's site.
    pub site_id: Uuid,
    /// The visitor's handle on the submission.
    pub reference_code: String,
    /// The review status.
    pub status: SubmissionStatus,
    /// The submitted values by field label.
    #[schema(value_type = Object)]
    pub data: Value,
    /// Whether consent was given.
    pub consent_given: bool,
    /// When it was received.
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct NoteResponse {
    pub id: Uuid,
    /// The submission.
    pub submission_id: Uuid,
    /// The note's text.
    pub body: String,
    /// Who wrote it (user or key id); null when unknown.
    pub author: Option<String>,
    pub created_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct StatusChange {
    /// Null for the submission's arrival.
    pub from_status: Option<SubmissionStatus>,
    /// The new status.
    pub to_status: SubmissionStatus,
    /// Who changed it; null for the arrival.
    pub actor: Option<String>,
    /// When it changed.
    pub created_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SubmissionDetail {
    #[serde(flatten)]
    pub submission: SubmissionResponse,
    /// Internal notes, oldest first.
    pub notes: Vec<NoteResponse>,
    /// Status changes, oldest first.
    pub status_history: Vec<StatusChange>,
}

#[derive(Clone, Debug, Default, Serialize, ToSchema, PartialEq, Eq)]
pub struct StatusCounts {
    /// Submissions nobody looked at yet.
    pub new: u64,
    /// Being reviewed.
    pub in_review: u64,
    /// Resolved.
    pub resolved: u64,
    /// Archived.
    pub archived: u64,
    /// All of them.
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
    /// Only submissions in this status.
    pub status: Option<SubmissionStatus>,
    /// With `value`: submissions whose `field` (a label) has this value, any
    /// letter case. Only for `queryable` forms (an indexed query).
    pub field: Option<String>,
    /// With `field` (one without the other: 422): the value, trimmed and
    /// compared in any letter case on its first 200 characters.
    pub value: Option<String>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct StatusUpdate {
    /// The new status: new → in_review, resolved or archived; in_review → resolved or archived; resolved → in_review or archived; archived → in_review.
    pub status: SubmissionStatus,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct NoteInput {
    /// The note's text: 1 to 10,000 characters (trimmed), not blank, without
    /// control characters but tab and line breaks.
    #[schema(min_length = 1, max_length = 10000, pattern = "<text>")]
    pub body: String,
}
