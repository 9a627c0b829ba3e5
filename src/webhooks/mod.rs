//! Webhooks (spec "Webhooks"): endpoints, the SSRF guard, signed
//! delivery, the dispatcher, debounce batches and persisted retries.

pub mod delivery;
pub mod dispatcher;
pub mod events;
mod routes;
pub mod signature;
pub mod ssrf;

pub use dispatcher::{WebhookDispatcher, WebhookRuntime};
pub(crate) use routes::*;

use crate::routes::Routes;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_webhooks, create_webhook, retry_delivery, get_webhook, update_webhook, delete_webhook,
        test_webhook, list_deliveries, webhook_stats]);
}
