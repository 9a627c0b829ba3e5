//! Counters bumped from deep inside the caches and the webhook sender, where no
//! application state is at hand: one process-wide set (a process serves one
//! application), each a pre-resolved handle, so a hook costs one atomic
//! increment. Every application's registry exposes the same set.

use std::sync::LazyLock;

use prometheus::{IntCounter, IntCounterVec, Opts, Registry};

/// The caches whose hits and misses are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cache {
    /// A site's row, settings, locales and members (`AppState::site_state`).
    Site = 0,
    /// API keys by secret (`KeyStore`).
    Keys = 1,
    /// Built responses of authenticated reads (`ResponseCache`).
    Responses = 2,
    /// Verified bearer tokens (`JwtVerifier`).
    Jwt = 3,
    /// Bodies built from a site's published content (`PublicCache`).
    Public = 4,
}

impl Cache {
    pub const ALL: [Cache; 5] = [Cache::Site, Cache::Keys, Cache::Responses, Cache::Jwt, Cache::Public];

    pub fn label(self) -> &'static str {
        match self {
            Cache::Site => "site",
            Cache::Keys => "keys",
            Cache::Responses => "responses",
            Cache::Jwt => "jwt",
            Cache::Public => "public",
        }
    }
}

/// How a webhook delivery attempt ended (the delivery's status after it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptOutcome {
    Success = 0,
    /// Failed; another attempt is scheduled.
    Failed = 1,
    /// Failed for the last time.
    Dead = 2,
}

impl AttemptOutcome {
    pub const ALL: [AttemptOutcome; 3] = [AttemptOutcome::Success, AttemptOutcome::Failed, AttemptOutcome::Dead];

    pub fn label(self) -> &'static str {
        match self {
            AttemptOutcome::Success => "success",
            AttemptOutcome::Failed => "failed",
            AttemptOutcome::Dead => "dead",
        }
    }
}

pub(super) struct ProcessCounters {
    cache_hits: IntCounterVec,
    cache_misses: IntCounterVec,
    attempts: IntCounterVec,
    pool_exhausted: IntCounter,
    circuits_opened: IntCounter,
    hits: [IntCounter; 5],
    misses: [IntCounter; 5],
    outcomes: [IntCounter; 3],
}

impl ProcessCounters {
    fn new() -> prometheus::Result<Self> {
        let cache_hits = IntCounterVec::new(
            Opts::new("plinth_cache_hits_total", "Lookups answered from an in-memory cache, by cache."),
            &["cache"],
        )?;
        let cache_misses = IntCounterVec::new(
            Opts::new("plinth_cache_misses_total", "Lookups an in-memory cache could not answer, by cache."),
            &["cache"],
        )?;
        let attempts = IntCounterVec::new(
            Opts::new(
                "plinth_webhook_delivery_attempts_total",
                "Webhook delivery attempts by outcome: success, failed (retried later) or dead (the last attempt failed).",
            ),
            &["outcome"],
        )?;
        let pool_exhausted = IntCounter::new(
            "plinth_db_pool_exhausted_total",
            "Requests answered 503 because no pooled database connection came free within the acquire wait.",
        )?;
        let circuits_opened = IntCounter::new(
            "plinth_webhook_circuits_opened_total",
            "Times a webhook's circuit opened (consecutive failed attempts, or a failed probe): its deliveries then wait for the cool-down.",
        )?;
        let each = |vec: &IntCounterVec, label: &str| vec.get_metric_with_label_values(&[label]);
        let [site, keys, responses, jwt, public] = Cache::ALL.map(Cache::label);
        let [success, failed, dead] = AttemptOutcome::ALL.map(AttemptOutcome::label);
        Ok(Self {
            hits: [
                each(&cache_hits, site)?,
                each(&cache_hits, keys)?,
                each(&cache_hits, responses)?,
                each(&cache_hits, jwt)?,
                each(&cache_hits, public)?,
            ],
            misses: [
                each(&cache_misses, site)?,
                each(&cache_misses, keys)?,
                each(&cache_misses, responses)?,
                each(&cache_misses, jwt)?,
                each(&cache_misses, public)?,
            ],
            outcomes: [each(&attempts, success)?, each(&attempts, failed)?, each(&attempts, dead)?],
            cache_hits,
            cache_misses,
            attempts,
            pool_exhausted,
            circuits_opened,
        })
    }

    /// Adds the process-wide counters to an application's registry.
    pub(super) fn register_in(registry: &Registry) -> prometheus::Result<()> {
        let Some(counters) = PROCESS.as_ref() else {
            return Err(prometheus::Error::Msg("the process-wide counters could not be created".into()));
        };
        registry.register(Box::new(counters.cache_hits.clone()))?;
        registry.register(Box::new(counters.cache_misses.clone()))?;
        registry.register(Box::new(counters.attempts.clone()))?;
        registry.register(Box::new(counters.pool_exhausted.clone()))?;
        registry.register(Box::new(counters.circuits_opened.clone()))?;
        Ok(())
    }
}

/// `None` only if a metric name above were invalid (a unit test rules it out).
static PROCESS: LazyLock<Option<ProcessCounters>> = LazyLock::new(|| ProcessCounters::new().ok());

/// Counts a request shed because the database pool stayed full.
#[inline]
pub fn pool_exhausted() {
    if let Some(counters) = PROCESS.as_ref() {
        counters.pool_exhausted.inc();
    }
}

/// Counts one lookup of `cache`: a hit or a miss.
#[inline]
pub fn cache_lookup(cache: Cache, hit: bool) {
    if let Some(counters) = PROCESS.as_ref() {
        let series = if hit { &counters.hits } else { &counters.misses };
        series[cache as usize].inc();
    }
}

#[inline]
pub fn cache_hit(cache: Cache) {
    cache_lookup(cache, true);
}

#[inline]
pub fn cache_miss(cache: Cache) {
    cache_lookup(cache, false);
}

/// Counts a lookup that is a miss unless [`CacheLookup::hit`] is called: for
/// functions that leave early on a miss in several places.
#[must_use]
pub struct CacheLookup {
    cache: Cache,
    hit: bool,
}

impl CacheLookup {
    pub fn start(cache: Cache) -> Self {
        Self { cache, hit: false }
    }

    /// Counts the lookup as a hit (when dropped, at once).
    pub fn hit(self) {
        self.finish(true);
    }

    /// Counts the lookup as a hit or a miss.
    pub fn finish(mut self, hit: bool) {
        self.hit = hit;
    }
}

impl Drop for CacheLookup {
    fn drop(&mut self) {
        cache_lookup(self.cache, self.hit);
    }
}

/// Counts a webhook circuit opening.
pub fn circuit_opened() {
    if let Some(counters) = PROCESS.as_ref() {
        counters.circuits_opened.inc();
    }
}

/// Counts one webhook delivery attempt by the status it left its delivery in
/// (`success`, `failed`, `dead`; anything else is not counted).
#[inline]
pub fn delivery_attempt(status: &str) {
    let Some(outcome) = AttemptOutcome::ALL.into_iter().find(|o| o.label() == status) else { return };
    if let Some(counters) = PROCESS.as_ref() {
        counters.outcomes[outcome as usize].inc();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_process_counters_exist_and_count() {
        assert!(PROCESS.is_some(), "metric names are valid");
        let registry = Registry::new();
        assert!(ProcessCounters::register_in(&registry).is_ok());
        let value = |name: &str, label: &str| {
            registry
                .gather()
                .iter()
                .filter(|f| f.name() == name)
                .flat_map(|f| f.get_metric().to_vec())
                .find(|m| m.get_label().iter().any(|l| l.value() == label))
                .map(|m| m.get_counter().get_value())
                .unwrap_or(-1.0)
        };
        let before = value("plinth_cache_misses_total", "jwt");
        assert!(before >= 0.0, "every cache has its series from the start");
        drop(CacheLookup::start(Cache::Jwt));
        assert!(value("plinth_cache_misses_total", "jwt") > before, "a lookup not marked a hit is a miss");
        let hits = value("plinth_cache_hits_total", "public");
        CacheLookup::start(Cache::Public).hit();
        assert!(value("plinth_cache_hits_total", "public") > hits);
    }
}
