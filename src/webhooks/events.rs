//! The webhook event names of the spec.

pub const EVENT_NAMES: [&str; 28] = [
    "blog.created",
    "blog.updated",
    "blog.deleted",
    "blog.published",
    "page.created",
    "page.updated",
    "page.deleted",
    "page.published",
    "legal.created",
    "legal.updated",
    "legal.deleted",
    "legal.published",
    "cv.created",
    "cv.updated",
    "cv.deleted",
    "cv.published",
    "project.created",
    "project.updated",
    "project.deleted",
    "project.published",
    "document.created",
    "document.updated",
    "document.deleted",
    "media.created",
    "media.deleted",
    "navigation.created",
    "navigation.updated",
    "navigation.deleted",
];

/// The 29th name: form submissions (the spec lists 28 plus this one).
pub const FORM_SUBMISSION_CREATED: &str = "form.submission.created";

pub fn is_known(name: &str) -> bool {
    name == FORM_SUBMISSION_CREATED || EVENT_NAMES.contains(&name)
}

/// Whether a webhook subscribed to `subscribed` (empty = all) wants `event`.
/// Only the catalogue's events are sent: the stream's presence events
/// (edit leases' `lease.*`) are not webhooks'.
pub fn wants(subscribed: &[String], event: &str) -> bool {
    is_known(event) && (subscribed.is_empty() || subscribed.iter().any(|s| s == event))
}
