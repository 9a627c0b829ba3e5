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

use actix_web::web::{self, delete, get, post, put, resource};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(resource("/sites/{site_id}/webhooks").route(get().to(list_webhooks)).route(post().to(create_webhook)))
        .service(resource("/webhooks/deliveries/{id}/retry").route(post().to(retry_delivery)))
        .service(
            resource("/webhooks/{id}")
                .route(get().to(get_webhook))
                .route(put().to(update_webhook))
                .route(delete().to(delete_webhook)),
        )
        .service(resource("/webhooks/{id}/test").route(post().to(test_webhook)))
        .service(resource("/webhooks/{id}/deliveries").route(get().to(list_deliveries)))
        .service(resource("/webhooks/{id}/stats").route(get().to(webhook_stats)));
}
