//! The bodies of a review and of a bulk action, and the bulk body's hand-written
//! schema.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::ContentStatus;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ToSchema)]
pub enum ReviewAction {
    Approve,
    RequestChanges,
}

crate::lenient_enum!(ReviewAction {
    ReviewAction::Approve => ["Approve"],
    ReviewAction::RequestChanges => ["RequestChanges"],
});

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct ReviewRequest {
    /// The review decision.
    pub action: ReviewAction,
    /// Written to the server log only; not stored.
    pub comment: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ToSchema)]
pub enum BulkAction {
    UpdateStatus,
    Delete,
}

crate::lenient_enum!(BulkAction {
    BulkAction::UpdateStatus => ["UpdateStatus", "Status"],
    BulkAction::Delete => ["Delete", "SoftDelete", "Trash"],
});

/// The most ids one bulk request acts on: every id is a bound value of the
/// bulk's queries (SQLite allows 32,766 per statement), and a 4 MiB body could
/// otherwise carry about 100,000.
pub const MAX_BULK_IDS: usize = 500;

/// Documented by hand ([`bulk_request_schema`]): `status` is required with
/// `UpdateStatus` only, which one object schema cannot say.
#[derive(Clone, Debug, Deserialize)]
pub struct BulkRequest {
    pub action: BulkAction,
    pub ids: Vec<Uuid>,
    pub status: Option<ContentStatus>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BulkResult {
    /// The action done.
    pub action: String,
    /// How many items it changed.
    pub affected: usize,
    /// How many items it was asked to change. A bulk action is all or nothing, so an answer
    /// of 200 has every one succeeded (the origin service's admin reads these
    /// four fields).
    pub total: usize,
    /// How many succeeded: all of them.
    pub succeeded: usize,
    /// How many failed: none (a failure answers a problem and changes nothing).
    pub failed: usize,
    /// Each item's outcome, in the order sent.
    pub results: Vec<BulkItemResult>,
}

/// One item's outcome in a bulk answer.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BulkItemResult {
    pub id: Uuid,
    /// Always true in an answer of 200.
    pub success: bool,
}

impl BulkResult {
    /// `action` done on every one of `ids` (each counted once, in the order sent).
    pub fn all_of(action: String, ids: &[Uuid]) -> Self {
        let mut seen = std::collections::HashSet::new();
        let ids: Vec<Uuid> = ids.iter().copied().filter(|id| seen.insert(*id)).collect();
        let results: Vec<BulkItemResult> = ids.iter().map(|&id| BulkItemResult { id, success: true }).collect();
        BulkResult { action, affected: ids.len(), total: ids.len(), succeeded: ids.len(), failed: 0, results }
    }
}

impl utoipa::PartialSchema for BulkRequest {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::RefOr::T(utoipa::openapi::schema::Schema::OneOf(bulk_request_schema()))
    }
}

impl ToSchema for BulkRequest {
    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
        schemas.push((
            <ContentStatus as ToSchema>::name().into_owned(),
            <ContentStatus as utoipa::PartialSchema>::schema(),
        ));
    }
}

/// `{action: UpdateStatus, ids, status}` (status required: else the kind's
/// `*_BULK_STATUS_REQUIRED`) or `{action: Delete, ids}`.
fn bulk_request_schema() -> utoipa::openapi::schema::OneOf {
    use utoipa::openapi::{schema::ArrayBuilder, ObjectBuilder, Ref, Type};
    let ids = || {
        ArrayBuilder::new()
            .items(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(utoipa::openapi::KnownFormat::Uuid))),
            )
            .max_items(Some(MAX_BULK_IDS))
            .description(Some(
                "The items to act on, at most 500: each must be a live item of this site and kind, else the \
                 answer is 404 ENTITY_NOT_FOUND and nothing changes",
            ))
    };
    let status = |description: &str| {
        let mut status = Ref::from_schema_name(<ContentStatus as ToSchema>::name());
        status.description = description.to_string();
        status
    };
    let update = ObjectBuilder::new()
        .property("action", crate::values::one_of("Change the status of the items", &["UpdateStatus"]))
        .required("action")
        .property("ids", ids())
        .required("ids")
        .property("status", status("The status every item moves to"))
        .required("status")
        .description(Some("Moves every item to `status` (Author role or higher; authors only their own items)"));
    let delete = ObjectBuilder::new()
        .property("action", crate::values::one_of("Move the items to the trash", &["Delete"]))
        .required("action")
        .property("ids", ids())
        .required("ids")
        .property(
            "status",
            // Any value, `null` included: the server reads none of it.
            ObjectBuilder::new()
                .schema_type(utoipa::openapi::schema::SchemaType::AnyValue)
                .description(Some("Ignored: any value, null included")),
        )
        .description(Some("Moves every item to the trash (Editor role or higher); `status` is ignored"));
    utoipa::openapi::schema::OneOfBuilder::new().item(update).item(delete).build()
}
