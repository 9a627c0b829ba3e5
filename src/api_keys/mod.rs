//! API keys: create (secret shown once), list, get, update, block and unblock,
//! revoke, their newest requests; the bootstrap
//! Master key; the helper the CLI shares.

mod model;
mod routes;
pub mod service;
pub mod usage;

pub use model::{ApiKeyResponse, CreateApiKey, CreatedApiKey, KeyStatus};
pub use service::{bootstrap, insert_key, NewKey};

use crate::routes::Routes;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, routes => [
        list_api_keys, create_api_key, get_api_key, update_api_key, revoke_api_key,
        block_api_key, unblock_api_key, revoke_api_key_answering,
    ]);
    crate::mount!(r, usage => [api_key_usage]);
}
