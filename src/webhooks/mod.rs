//! Webhooks (spec "Webhooks"): endpoints, the SSRF guard, signed
//! delivery, the dispatcher, debounce batches and persisted retries.

pub mod circuits;
pub mod claims;
pub mod delivery;
pub mod dispatcher;
pub mod events;
pub mod holds;
mod lanes;
mod lease;
mod model;
pub mod outbox_turns;
pub mod results;
pub mod retries;
mod routes;
pub mod service;
pub mod signature;

pub use dispatcher::{WebhookDispatcher, WebhookRuntime};
pub use model::*;

use crate::routes::Routes;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, routes => [list_webhooks, create_webhook, retry_delivery, get_webhook, update_webhook, delete_webhook,
        test_webhook, list_deliveries, webhook_stats], lease => [take_webhook_lease, release_webhook_lease]);
}
