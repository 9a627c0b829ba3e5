//! Built responses of authenticated reads, cached per caller and URL and dropped
//! by a per-site generation that every write to the site bumps.
//!
//! The generation is the whole invalidation story, so it has to be exact:
//! - A read notes the site it works on when it checks the caller's role there
//!   ([`note_site`], called by `Principal::site_role`): every handler that reads
//!   a site's data authorizes on that site first. A read that worked on one
//!   site is cached under it.
//! - A write bumps the generation of every site it touched as its transaction
//!   commits, whoever wrote (a request, scheduled publishing, a webhook
//!   attempt, a site purge): `db::WriteTxn` notes the sites from its audit
//!   entries and events, and `state::write_caches` drops them.
//! - Answers that change with time rather than with writes are never cached
//!   ([`depends_on_time`]): the one other path, for time-driven state.
//! - A response is stored only if no write to its site committed while it was
//!   being built: generations come from one counter, and the entry is refused
//!   when the site's generation moved past the counter value read at the start
//!   of the request. A stored entry is served while its site's generation is
//!   still the one it was built under.
//!
//! Memory is bounded by `sites.response_cache_bytes` (the sum of key and body
//! lengths plus a fixed overhead per entry); eviction is quick_cache's
//! CLOCK-Pro, so entries read often outlive those read once.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use actix_web::http::header::HeaderValue;
use actix_web::web::Bytes;
use dashmap::DashMap;
use quick_cache::sync::Cache;
use quick_cache::Weighter;
use uuid::Uuid;

/// What one cached entry costs beyond its key and body (the entry, its headers).
const ENTRY_OVERHEAD_BYTES: u64 = 192;
/// Bodies larger than this are served but not cached: a few of them would push
/// out hundreds of the small lists an admin UI polls.
pub const MAX_CACHED_BODY_BYTES: usize = 1024 * 1024;

/// A built `200` response and the generation of its site it was built under.
#[derive(Debug)]
pub struct CachedResponse {
    pub site_id: Uuid,
    pub generation: u64,
    /// The counter value when the request that built it started.
    pub epoch: u64,
    pub etag: HeaderValue,
    pub content_type: Option<HeaderValue>,
    pub body: Bytes,
}

#[derive(Clone)]
struct ByteWeight;

impl Weighter<String, Arc<CachedResponse>> for ByteWeight {
    fn weight(&self, key: &String, value: &Arc<CachedResponse>) -> u64 {
        key.len() as u64 + value.body.len() as u64 + ENTRY_OVERHEAD_BYTES
    }
}

pub struct ResponseCache {
    /// `None` when `response_cache_bytes` is 0: every read is built afresh.
    entries: Option<Cache<String, Arc<CachedResponse>, ByteWeight>>,
    /// The last generation each written site was given.
    generations: DashMap<Uuid, u64>,
    counter: AtomicU64,
    /// Entries built by requests that started before this are stale everywhere
    /// (a global locale renamed, say).
    floor: AtomicU64,
}

impl ResponseCache {
    pub fn new(capacity_bytes: u64) -> Self {
        // quick_cache sizes its tables from an item estimate; small admin lists
        // run a few KB, so assume 4 KB per entry.
        let entries = (capacity_bytes > 0).then(|| {
            let estimated_items = usize::try_from(capacity_bytes / 4096).unwrap_or(usize::MAX).max(16);
            Cache::with_weighter(estimated_items, capacity_bytes, ByteWeight)
        });
        Self { entries, generations: DashMap::new(), counter: AtomicU64::new(0), floor: AtomicU64::new(0) }
    }

    pub fn enabled(&self) -> bool {
        self.entries.is_some()
    }

    /// Read at the start of a request; see [`ResponseCache::store`].
    pub fn epoch(&self) -> u64 {
        self.counter.load(Ordering::Acquire)
    }

    fn generation(&self, site_id: Uuid) -> u64 {
        self.generations.get(&site_id).map(|g| *g).unwrap_or(0)
    }

    /// A number that grows with every write to the site (and every write that
    /// all sites' answers may show): what other per-site derived state, such
    /// as a list's page boundaries, is stamped with. Read it before reading
    /// the data the state is derived from.
    pub fn write_generation(&self, site_id: Uuid) -> u64 {
        self.generation(site_id).max(self.floor.load(Ordering::Acquire))
    }

    /// After a write to the site committed: every response built before is stale.
    pub fn site_changed(&self, site_id: Uuid) {
        let generation = self.counter.fetch_add(1, Ordering::AcqRel) + 1;
        self.generations.insert(site_id, generation);
    }

    /// After a write that every site's answers may show (global locales).
    pub fn everything_changed(&self) {
        let generation = self.counter.fetch_add(1, Ordering::AcqRel) + 1;
        self.floor.fetch_max(generation, Ordering::AcqRel);
    }

    /// The entry for `key` if its site has not been written since it was built.
    pub fn get(&self, key: &str) -> Option<Arc<CachedResponse>> {
        let lookup = crate::observability::CacheLookup::start(crate::observability::Cache::Responses);
        let hit = self.entries.as_ref()?.get(key)?;
        let fresh = hit.generation == self.generation(hit.site_id) && hit.epoch >= self.floor.load(Ordering::Acquire);
        lookup.finish(fresh); // dropped unfinished (an early return above), it counts a miss
        fresh.then_some(hit)
    }

    /// Keeps a response built by a request that started at `epoch`, unless a
    /// write to its site committed since (its data may predate that write).
    pub fn store(&self, key: String, epoch: u64, mut response: CachedResponse) {
        let Some(entries) = &self.entries else { return };
        let generation = self.generation(response.site_id);
        let changed_since = generation > epoch || self.floor.load(Ordering::Acquire) > epoch;
        if changed_since || response.body.len() > MAX_CACHED_BODY_BYTES {
            return;
        }
        response.generation = generation;
        response.epoch = epoch;
        entries.insert(key, Arc::new(response));
    }

    /// Bytes held (the weight quick_cache bounds).
    pub fn weight(&self) -> u64 {
        self.entries.as_ref().map_or(0, |e| e.weight())
    }
}

/// The sites one request worked on, as its role checks named them.
#[derive(Debug, Default)]
pub struct RequestSites {
    pub sites: Vec<Uuid>,
    /// Set by handlers whose answer changes with time, not only with writes.
    pub time_dependent: bool,
}

impl RequestSites {
    /// The one site a cacheable read worked on; `None` for a read across sites,
    /// one that touched none, or one that depends on the clock.
    pub fn cacheable_site(&self) -> Option<Uuid> {
        match self.sites.as_slice() {
            [site] if !self.time_dependent => Some(*site),
            _ => None,
        }
    }
}

tokio::task_local! {
    static REQUEST_SITES: Rc<RefCell<RequestSites>>;
}

/// Runs a request's handler while recording the sites it works on.
pub async fn track_sites<F: std::future::Future>(sites: Rc<RefCell<RequestSites>>, request: F) -> F::Output {
    REQUEST_SITES.scope(sites, request).await
}

/// Notes that the current request works on `site_id` (no-op outside a request):
/// its cached answers follow the site, and its writes take the site's turns.
pub fn note_site(site_id: Uuid) {
    crate::tenant::note_site(site_id);
    let _ = REQUEST_SITES.try_with(|sites| {
        let mut sites = sites.borrow_mut();
        if !sites.sites.contains(&site_id) {
            sites.sites.push(site_id);
        }
    });
}

/// Marks the current read as depending on the clock (a sliding window, say), so
/// it is never served from the cache.
pub fn depends_on_time() {
    let _ = REQUEST_SITES.try_with(|sites| sites.borrow_mut().time_dependent = true);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(site_id: Uuid, body: &'static str) -> CachedResponse {
        CachedResponse {
            site_id,
            generation: 0,
            epoch: 0,
            etag: HeaderValue::from_static("\"e\""),
            content_type: None,
            body: Bytes::from_static(body.as_bytes()),
        }
    }

    #[test]
    fn a_write_to_the_site_drops_its_entries_and_only_its() {
        let cache = ResponseCache::new(1 << 20);
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        cache.store("a".into(), cache.epoch(), response(a, "[1]"));
        cache.store("b".into(), cache.epoch(), response(b, "[2]"));
        cache.site_changed(a);
        assert!(cache.get("a").is_none(), "site a was written");
        assert_eq!(cache.get("b").map(|r| r.body.clone()), Some(Bytes::from_static(b"[2]")));
    }

    #[test]
    fn a_response_built_across_a_write_is_not_kept() {
        let cache = ResponseCache::new(1 << 20);
        let site = Uuid::new_v4();
        let started = cache.epoch();
        cache.site_changed(site); // committed while the response was being built
        cache.store("k".into(), started, response(site, "old"));
        assert!(cache.get("k").is_none());
        cache.store("k".into(), cache.epoch(), response(site, "new"));
        assert!(cache.get("k").is_some(), "built after the write");
    }

    #[test]
    fn a_global_change_drops_every_site() {
        let cache = ResponseCache::new(1 << 20);
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let started = cache.epoch();
        cache.store("a".into(), started, response(a, "[1]"));
        cache.everything_changed();
        cache.store("b".into(), started, response(b, "[2]"));
        assert!(cache.get("a").is_none() && cache.get("b").is_none());
        cache.store("b".into(), cache.epoch(), response(b, "[2]"));
        assert!(cache.get("b").is_some());
    }

    #[test]
    fn memory_stays_within_the_budget() {
        let budget = 64 * 1024;
        let cache = ResponseCache::new(budget);
        let site = Uuid::new_v4();
        for i in 0..1000 {
            cache.store(format!("key-{i}"), cache.epoch(), response(site, "a body of some thirty bytes.."));
        }
        assert!(cache.weight() <= budget, "{} bytes held", cache.weight());
        assert!(cache.weight() > budget / 2, "the budget is used");
        assert!(!ResponseCache::new(0).enabled());
    }
}
