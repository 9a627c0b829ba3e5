//! The response shapes and query of notifications.

use chrono::{DateTime, Utc};
use plinth_entities::notification;
use serde::{Deserialize, Serialize};

use crate::pagination::SortDir;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct NotificationResponse {
    pub id: Uuid,
    /// The site it concerns; null for none.
    pub site_id: Option<Uuid>,
    /// e.g. `review_requested`
    pub kind: String,
    /// The kind as the origin service's admin names it (`content_submitted`
    /// for `review_requested`).
    pub notification_type: String,
    /// A one-line summary.
    pub title: String,
    /// The message.
    pub body: String,
    /// The message again, under the origin service's name.
    pub message: String,
    /// The type of the item it concerns (`blog`, …); null for none.
    pub entity_type: Option<String>,
    /// The id of that item; null for none.
    pub entity_id: Option<String>,
    /// Whether it was marked read.
    pub is_read: bool,
    /// When it was marked read; null while unread.
    pub read_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

impl From<&notification::Model> for NotificationResponse {
    fn from(m: &notification::Model) -> Self {
        Self {
            id: m.id,
            site_id: m.site_id,
            kind: m.kind.as_str().to_string(),
            notification_type: origin_type(m.kind.as_str()).to_string(),
            title: m.title.clone(),
            body: m.body.clone(),
            message: m.body.clone(),
            entity_type: m.entity_type.clone(),
            entity_id: m.entity_id.clone(),
            is_read: m.read_at.is_some(),
            read_at: m.read_at,
            created_at: m.created_at,
        }
    }
}

/// The origin service's name of a notification kind.
fn origin_type(kind: &str) -> &str {
    match kind {
        "review_requested" => "content_submitted",
        other => other,
    }
}

/// A list of the caller's notifications (all of them, or one site's).
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct NotificationQuery {
    #[param(schema_with = crate::pagination::page_number_schema)]
    pub page: Option<u64>,
    /// Default 20, at most 100. Also accepted as `page_size`.
    #[serde(alias = "page_size")]
    #[param(schema_with = crate::pagination::per_page_20_schema)]
    pub per_page: Option<u32>,
    /// Only unread ones.
    #[serde(default)]
    pub unread: bool,
    /// Accepted as the origin admin sends it; the list is in order of
    /// creation whatever it names, as the origin's is.
    pub sort_by: Option<String>,
    /// `desc` (default, newest first) or `asc`.
    #[param(inline)]
    pub sort_dir: Option<SortDir>,
}

#[derive(Serialize, ToSchema)]
pub struct MarkedRead {
    /// How many notifications were marked read.
    pub updated: u64,
}

#[derive(Serialize, ToSchema)]
pub struct UnreadCount {
    /// How many of the caller's notifications on the site are unread.
    pub unread_count: u64,
}
