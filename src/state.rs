//! The state every handler and service shares: the database, configuration,
//! caches, the clock and the handles of the long-lived actors. Families import
//! this module; `app.rs` builds one value of it and wires the routes.

use std::sync::Arc;

use actix::Addr;
use plinth_actors::{
    Clock, KeyUsageCounters, KeyUsageRecorder, RateLimitTrackers, RateLimiter, SiteCache, SiteRegistry,
};
use sea_orm::DatabaseConnection;

use crate::auth::jwt::JwtVerifier;
use crate::auth::keys::KeyStore;
use crate::auth::AccountGate;
use crate::config::Config;
use crate::events::EventBus;
use crate::sites::SiteState;
use crate::storage::Storage;
use crate::webhooks::WebhookRuntime;

/// Everything a handler may need, shared by all workers.
pub struct AppState {
    pub db: DatabaseConnection,
    pub config: Arc<Config>,
    pub keys: KeyStore,
    pub jwt: Option<JwtVerifier>,
    /// Whether an identity-provider user may act now (suspensions and bans),
    /// asked on every bearer request.
    pub account_gate: Arc<dyn AccountGate>,
    /// The identity provider's user-management API, when configured.
    pub idp: Option<Arc<dyn crate::idp::provider::IdentityProvider>>,
    pub rate_limits: Arc<RateLimitTrackers>,
    pub key_usage: Arc<KeyUsageCounters>,
    pub sites: Arc<SiteCache<SiteState>>,
    pub storage: Storage,
    pub events: EventBus,
    pub clock: Arc<dyn Clock>,
    pub webhooks: WebhookRuntime,
    pub actors: Actors,
}

#[derive(Clone)]
pub struct Actors {
    pub key_usage: Addr<KeyUsageRecorder>,
    pub site_registry: Addr<SiteRegistry<SiteState>>,
    pub rate_limiter: Addr<RateLimiter>,
}
