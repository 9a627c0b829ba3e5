//! The per-site hot state cache (settings merged with defaults, modules, locales,
//! later the public files). Reads go straight to the shared [`SiteCache`]; the
//! [`SiteRegistry`] actor evicts sites nobody reads, stops the supervisors of
//! idle sites (`site_supervisor`), and applies invalidations that arrive as
//! messages (e.g. from another instance).

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use dashmap::DashMap;
use uuid::Uuid;

use crate::site_supervisor::{SiteHotState, SiteSupervisors};

struct Entry<S> {
    value: Arc<S>,
    loaded_ms: u64,
    last_read_ms: AtomicU64,
}

pub struct SiteCache<S> {
    entries: DashMap<Uuid, Entry<S>>,
    /// Bumped on every invalidation, so a load that raced a write is not cached.
    generations: DashMap<Uuid, u64>,
    /// Bumped by [`SiteCache::invalidate_all`].
    global_generation: AtomicU64,
    idle: Duration,
    /// A loaded state is re-read after this long, which bounds how stale a site
    /// can be when another instance changed it.
    max_age: Duration,
    started: Instant,
}

impl<S> SiteCache<S> {
    pub fn new(idle: Duration, max_age: Duration) -> Self {
        Self {
            max_age,
            entries: DashMap::new(),
            generations: DashMap::new(),
            global_generation: AtomicU64::new(0),
            idle,
            started: Instant::now(),
        }
    }

    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    pub fn get(&self, site: Uuid) -> Option<Arc<S>> {
        let entry = self.entries.get(&site)?;
        let now = self.now_ms();
        if now.saturating_sub(entry.loaded_ms) > self.max_age.as_millis() as u64 {
            return None;
        }
        entry.last_read_ms.store(now, Ordering::Relaxed);
        Some(Arc::clone(&entry.value))
    }

    /// The cached state, or `load`'s result (cached unless a write raced it).
    pub async fn get_or_load<E, F>(&self, site: Uuid, load: F) -> Result<Option<Arc<S>>, E>
    where
        F: Future<Output = Result<Option<S>, E>>,
    {
        if let Some(hit) = self.get(site) {
            return Ok(Some(hit));
        }
        let generation = self.generation(site);
        let Some(value) = load.await? else {
            return Ok(None);
        };
        let value = Arc::new(value);
        if self.generation(site) == generation {
            let now = self.now_ms();
            self.entries
                .insert(site, Entry { value: Arc::clone(&value), loaded_ms: now, last_read_ms: AtomicU64::new(now) });
        }
        Ok(Some(value))
    }

    fn generation(&self, site: Uuid) -> (u64, u64) {
        (self.global_generation.load(Ordering::SeqCst), self.generations.get(&site).map(|g| *g).unwrap_or(0))
    }

    /// Forgets a site's state; the next read loads it afresh.
    pub fn invalidate(&self, site: Uuid) {
        *self.generations.entry(site).or_insert(0) += 1;
        self.entries.remove(&site);
    }

    /// Forgets every site (a change that shows in all of them, e.g. a global locale).
    pub fn invalidate_all(&self) {
        self.global_generation.fetch_add(1, Ordering::SeqCst);
        self.entries.clear();
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn evict_idle(&self) -> usize {
        let now = self.now_ms();
        let idle_ms = self.idle.as_millis() as u64;
        let before = self.entries.len();
        self.entries.retain(|_, e| now.saturating_sub(e.last_read_ms.load(Ordering::Relaxed)) < idle_ms);
        before - self.entries.len()
    }
}

impl<S: Send + Sync> SiteHotState for SiteCache<S> {
    fn forget_site(&self, site: Uuid) {
        // The generation stays: a load racing this must still see a write's bump.
        self.entries.remove(&site);
    }
}

pub struct SiteRegistry<S: Send + Sync + 'static> {
    cache: Arc<SiteCache<S>>,
    supervisors: Arc<SiteSupervisors>,
}

impl<S: Send + Sync + 'static> SiteRegistry<S> {
    pub fn new(cache: Arc<SiteCache<S>>, supervisors: Arc<SiteSupervisors>) -> Self {
        supervisors.owns(Arc::clone(&cache) as Arc<dyn SiteHotState>);
        Self { cache, supervisors }
    }
}

impl<S: Send + Sync + 'static> Actor for SiteRegistry<S> {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        let every = (self.cache.idle / 4).max(Duration::from_secs(1));
        ctx.run_interval(every, |actor, _| {
            let evicted = actor.cache.evict_idle();
            let stopped = actor.supervisors.stop_idle();
            if evicted + stopped > 0 {
                tracing::debug!(evicted, stopped, "stopped idle sites' state and supervisors");
            }
        });
    }
}

#[derive(Message)]
#[rtype(result = "()")]
pub struct InvalidateSite(pub Uuid);

impl<S: Send + Sync + 'static> Handler<InvalidateSite> for SiteRegistry<S> {
    type Result = ();

    fn handle(&mut self, msg: InvalidateSite, _: &mut Self::Context) {
        self.cache.invalidate(msg.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_load_that_raced_an_invalidation_is_not_cached() {
        let cache: SiteCache<u32> = SiteCache::new(Duration::from_secs(60), Duration::from_secs(60));
        let site = Uuid::new_v4();
        let loaded = cache
            .get_or_load(site, async {
                cache.invalidate(site); // a write lands while we read the old state
                Ok::<_, ()>(Some(1))
            })
            .await;
        assert_eq!(loaded, Ok(Some(Arc::new(1))));
        assert!(cache.get(site).is_none());
        let again = cache.get_or_load(site, async { Ok::<_, ()>(Some(2)) }).await;
        assert_eq!(again, Ok(Some(Arc::new(2))));
        assert_eq!(cache.get(site).as_deref(), Some(&2));
    }

    #[tokio::test]
    async fn entries_older_than_max_age_are_reloaded() {
        let cache: SiteCache<u32> = SiteCache::new(Duration::from_secs(60), Duration::from_millis(0));
        let site = Uuid::new_v4();
        assert_eq!(cache.get_or_load(site, async { Ok::<_, ()>(Some(1)) }).await, Ok(Some(Arc::new(1))));
        std::thread::sleep(Duration::from_millis(2));
        assert!(cache.get(site).is_none());
        assert_eq!(cache.get_or_load(site, async { Ok::<_, ()>(Some(2)) }).await, Ok(Some(Arc::new(2))));
    }

    #[test]
    fn idle_sites_are_evicted() {
        let cache: SiteCache<u32> = SiteCache::new(Duration::from_millis(0), Duration::from_secs(60));
        cache
            .entries
            .insert(Uuid::new_v4(), Entry { value: Arc::new(1), loaded_ms: 0, last_read_ms: AtomicU64::new(0) });
        assert_eq!(cache.evict_idle(), 1);
        assert!(cache.is_empty());
    }
}
