//! Which events webhooks are sent: the delivered names of
//! [`crate::events::names`] (the spec's 28 and `form.submission.created`).

use crate::events::EventName;

/// Whether `name` is one a webhook may subscribe to.
pub fn is_known(name: &str) -> bool {
    name.parse::<EventName>().is_ok_and(|name| name.subject.delivered())
}

/// Whether a webhook subscribed to `subscribed` (empty = all) wants `event`.
/// Only delivered events are sent: the stream's presence events (edit
/// leases' `lease.*`) are not webhooks'.
pub fn wants(subscribed: &[String], event: EventName) -> bool {
    event.subject.delivered() && (subscribed.is_empty() || subscribed.iter().any(|s| event.is(s)))
}
