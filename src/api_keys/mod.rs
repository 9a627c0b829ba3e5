//! API keys: create (secret shown once), list, revoke; the bootstrap
//! Master key; the helper the CLI shares.

mod routes;
mod service;

pub(crate) use routes::{__path_create_api_key, __path_list_api_keys, __path_revoke_api_key};
pub use routes::{ApiKeyResponse, CreateApiKey, CreatedApiKey};
pub use service::{bootstrap, insert_key, NewKey};

use actix_web::web;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/api-keys")
            .route(web::get().to(routes::list_api_keys))
            .route(web::post().to(routes::create_api_key)),
    )
    .service(web::resource("/api-keys/{id}").route(web::delete().to(routes::revoke_api_key)));
}
