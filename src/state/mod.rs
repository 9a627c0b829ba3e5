//! The state every handler and service shares: the database, configuration,
//! caches, the clock and the handles of the long-lived actors. Families import
//! this module; `app.rs` builds one value of it and wires the routes.

use std::sync::Arc;

use actix::Addr;
use plinth_actors::{
    Clock, KeyUsageCounters, KeyUsageRecorder, RateLimitTrackers, RateLimiter, SiteCache, SiteRegistry,
};

use crate::config::Config;
use crate::events::EventBus;
use crate::storage::Storage;

pub mod cluster;
pub mod derived;
pub mod flights;
pub mod gate;
pub mod identity_provider;
pub mod jwt;
pub mod keys;
pub mod pageviews;
pub mod responses;
pub mod site;
pub mod site_settings;
pub mod write_caches;

pub use gate::AccountGate;
pub use identity_provider::IdentityProvider;
pub use jwt::JwtVerifier;
pub use keys::KeyStore;
pub use pageviews::PageviewIngest;
pub use responses::ResponseCache;
pub use site::{CachedBody, PublicCache, SiteLocaleResponse, SiteState};
pub use site_settings::SiteSettings;

/// Everything a handler may need, shared by all workers.
pub struct AppState {
    pub db: crate::db::Db,
    pub config: Arc<Config>,
    pub keys: KeyStore,
    pub jwt: Option<JwtVerifier>,
    /// Whether an identity-provider user may act now (suspensions and bans),
    /// asked on every bearer request.
    pub account_gate: Arc<dyn AccountGate>,
    /// The identity provider's user-management API, when configured.
    pub idp: Option<Arc<dyn IdentityProvider>>,
    pub rate_limits: Arc<RateLimitTrackers>,
    pub key_usage: Arc<KeyUsageCounters>,
    pub sites: Arc<SiteCache<SiteState>>,
    /// One supervisor per active site: owns its hot state's lifecycle and
    /// contains panics in its work (`plinth_actors::site_supervisor`).
    pub supervisors: Arc<plinth_actors::SiteSupervisors>,
    /// Server secrets read from the database (see `secrets`).
    pub secrets: dashmap::DashMap<String, [u8; 32]>,
    /// Site ids by slug (see `live_site_by_slug`).
    pub site_slugs: Arc<dashmap::DashMap<String, uuid::Uuid>>,
    /// Built responses of authenticated reads, per caller and URL.
    pub responses: Arc<ResponseCache>,
    /// One build at a time per response-cache key (`http_cache`).
    pub response_flights: flights::SingleFlight,
    /// Values derived from sites' data, such as where deep pages of the
    /// content lists start (`content::listing::seek`).
    pub derived: derived::DerivedValues,
    /// PostgreSQL's statistics, refreshed once after a burst of bulk writes.
    pub statistics: Arc<crate::db::StatisticsRefresh>,
    /// Pageviews on their way to the database.
    pub pageviews: PageviewIngest,
    /// Wakes the export builder when a job is queued.
    pub exports_queued: tokio::sync::Notify,
    pub storage: Storage,
    /// The one client for destinations a tenant chose (webhooks, AI, bot checks).
    pub outbound: crate::outbound::Outbound,
    pub events: EventBus,
    /// Tells the other instances what a write made stale (PostgreSQL).
    pub cluster: Arc<crate::cluster::ClusterBus>,
    /// What a committed write drops (the same handles as above).
    pub write_caches: Arc<write_caches::WriteCaches>,
    pub clock: Arc<dyn Clock>,
    pub actors: Actors,
    /// Metrics and readiness (see `observability`).
    pub observability: crate::observability::Observability,
}

#[derive(Clone)]
pub struct Actors {
    pub key_usage: Addr<KeyUsageRecorder>,
    pub site_registry: Addr<SiteRegistry<SiteState>>,
    pub rate_limiter: Addr<RateLimiter>,
    /// Image work off the request threads.
    pub media_pool: plinth_actors::media_pool::MediaPool,
}
