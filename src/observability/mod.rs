//! What operators watch: Prometheus metrics and this process's readiness.
//!
//! The bottom layer: caches and the webhook sender count into [`counters`]
//! with one atomic increment; the request middleware and the `/metrics`,
//! `/livez` and `/readyz` handlers of the system module use the per-application
//! [`Observability`] kept on the state.

pub mod counters;
pub mod http;
pub mod readiness;

use std::net::SocketAddr;
use std::sync::OnceLock;

use prometheus::{Gauge, IntGauge, IntGaugeVec, Opts, Registry};

pub use counters::{
    cache_hit, cache_lookup, cache_miss, circuit_opened, delivery_attempt, pool_exhausted, AttemptOutcome, Cache,
    CacheLookup,
};
pub use readiness::{Phase, Readiness};

/// One application's metrics registry, request series, scrape-time gauges and
/// readiness.
pub struct Observability {
    pub registry: Registry,
    pub http: http::RequestMetrics,
    pub gauges: ScrapeGauges,
    pub readiness: Readiness,
    /// The address of the separate metrics listener, once bound.
    metrics_listener: OnceLock<SocketAddr>,
}

impl Observability {
    pub fn new() -> prometheus::Result<Self> {
        let registry = Registry::new();
        counters::ProcessCounters::register_in(&registry)?;
        let http = http::RequestMetrics::new(&registry)?;
        let gauges = ScrapeGauges::new(&registry)?;
        Ok(Self { registry, http, gauges, readiness: Readiness::default(), metrics_listener: OnceLock::new() })
    }

    pub fn set_metrics_listener(&self, addr: SocketAddr) {
        let _ = self.metrics_listener.set(addr);
    }

    /// The separate metrics listener's address, when one is bound.
    pub fn metrics_listener(&self) -> Option<SocketAddr> {
        self.metrics_listener.get().copied()
    }
}

/// Values read when `/metrics` is scraped (queue lengths, pool use), not kept
/// up to date on every change.
pub struct ScrapeGauges {
    pub webhook_outbox: IntGauge,
    pub webhook_buffered: IntGauge,
    pub webhook_pending: IntGauge,
    pub webhook_retry_queue: IntGauge,
    pub webhook_oldest_pending_age: Gauge,
    pub db_pool: IntGaugeVec,
    pub db_pool_max: IntGauge,
    pub queue_depth: IntGaugeVec,
    pub site_cache_entries: IntGauge,
    pub response_cache_bytes: IntGauge,
    pub ready: IntGauge,
    /// Webhooks per circuit state (closed: those with attempts on record).
    pub webhook_circuits: IntGaugeVec,
    /// Shared pools by what they hold: webhook send slots and write turns.
    pub tenant_pools: IntGaugeVec,
    /// The sites' supervisors: running now, and restarts, panics and idle stops since start.
    pub site_supervisors: IntGaugeVec,
}

impl ScrapeGauges {
    fn new(registry: &Registry) -> prometheus::Result<Self> {
        let int = |name: &str, help: &str| IntGauge::new(name, help);
        let gauges = Self {
            webhook_outbox: int(
                "plinth_webhook_outbox_events",
                "Committed events not yet turned into webhook deliveries (the outbox depth).",
            )?,
            webhook_buffered: int(
                "plinth_webhook_debounce_buffered_events",
                "Events waiting in debounced webhooks' windows.",
            )?,
            webhook_pending: int(
                "plinth_webhook_pending_deliveries",
                "Webhook deliveries not yet attempted or being attempted.",
            )?,
            webhook_retry_queue: int(
                "plinth_webhook_retry_queue_length",
                "Webhook deliveries that failed and wait for their next attempt.",
            )?,
            webhook_oldest_pending_age: Gauge::new(
                "plinth_webhook_oldest_pending_age_seconds",
                "Age of the oldest webhook delivery not yet delivered (pending or waiting to retry); 0 when none.",
            )?,
            db_pool: IntGaugeVec::new(
                Opts::new("plinth_db_pool_connections", "Database pool connections, by state (in_use, idle)."),
                &["state"],
            )?,
            db_pool_max: int("plinth_db_pool_max_connections", "The most connections the database pool opens.")?,
            queue_depth: IntGaugeVec::new(
                Opts::new(
                    "plinth_actor_queue_depth",
                    "Work waiting for a background worker, by worker: media_pool (image jobs running or \
                     queued), pageview_writer (pageviews not yet written).",
                ),
                &["actor"],
            )?,
            site_cache_entries: int("plinth_site_cache_entries", "Sites whose state is cached in memory.")?,
            response_cache_bytes: int(
                "plinth_response_cache_bytes",
                "Memory held by the response cache (bodies, keys and overhead).",
            )?,
            ready: int("plinth_ready", "1 when /readyz answers 200 (started and not draining), else 0.")?,
            webhook_circuits: IntGaugeVec::new(
                Opts::new(
                    "plinth_webhook_circuits",
                    "Webhooks by circuit state on this instance: closed (sending), open (deliveries wait for \
                     the cool-down), half_open (one probe out). GET /webhooks/{id} shows one webhook's.",
                ),
                &["state"],
            )?,
            tenant_pools: IntGaugeVec::new(
                Opts::new(
                    "plinth_tenant_pool",
                    "Pools all sites share, taken in turn across sites: in_use, waiting and lanes (sites or \
                     callers holding or waiting), by pool: webhook_sends, write_turns.",
                ),
                &["pool", "measure"],
            )?,
            site_supervisors: IntGaugeVec::new(
                Opts::new(
                    "plinth_site_supervisors",
                    "The sites' supervisors on this instance: running (sites active lately), and since start \
                     restarts, panics (a site's request or delivery that panicked, failing alone) and \
                     stopped_idle.",
                ),
                &["measure"],
            )?,
        };
        registry.register(Box::new(gauges.webhook_outbox.clone()))?;
        registry.register(Box::new(gauges.webhook_buffered.clone()))?;
        registry.register(Box::new(gauges.webhook_pending.clone()))?;
        registry.register(Box::new(gauges.webhook_retry_queue.clone()))?;
        registry.register(Box::new(gauges.webhook_oldest_pending_age.clone()))?;
        registry.register(Box::new(gauges.db_pool.clone()))?;
        registry.register(Box::new(gauges.db_pool_max.clone()))?;
        registry.register(Box::new(gauges.queue_depth.clone()))?;
        registry.register(Box::new(gauges.site_cache_entries.clone()))?;
        registry.register(Box::new(gauges.response_cache_bytes.clone()))?;
        registry.register(Box::new(gauges.ready.clone()))?;
        registry.register(Box::new(gauges.webhook_circuits.clone()))?;
        registry.register(Box::new(gauges.tenant_pools.clone()))?;
        registry.register(Box::new(gauges.site_supervisors.clone()))?;
        let build_info = IntGaugeVec::new(
            Opts::new("plinth_build_info", "Always 1; the running version in its label."),
            &["version"],
        )?;
        build_info.with_label_values(&[env!("CARGO_PKG_VERSION")]).set(1);
        registry.register(Box::new(build_info))?;
        Ok(gauges)
    }
}
