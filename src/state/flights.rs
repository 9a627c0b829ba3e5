//! Single-flight cache builds: when a cached answer is missing, the first
//! reader builds it and the others asking for the same key wait for that build
//! and read its result, instead of each running the same queries at once (a
//! write drops a site's answers, and eight readers rebuilding one list on a big
//! site held the database for seconds).

use std::sync::Arc;

use dashmap::DashMap;
use tokio::sync::{Mutex, OwnedMutexGuard};

/// One lock per key being built; a key's lock is forgotten when its last
/// holder or waiter is done, so the map holds only builds in progress.
#[derive(Debug, Default)]
pub struct SingleFlight {
    building: DashMap<String, Arc<Mutex<()>>>,
}

/// The right to build `key`; the next waiter gets it when this is dropped.
pub struct Turn<'a> {
    flights: &'a SingleFlight,
    key: String,
    lock: Arc<Mutex<()>>,
    guard: Option<OwnedMutexGuard<()>>,
}

impl SingleFlight {
    /// Waits until nobody else builds `key`. The caller then looks in its
    /// cache again (the build it waited for may have filled it) and builds
    /// only on a second miss.
    pub async fn turn(&self, key: &str) -> Turn<'_> {
        let lock = Arc::clone(self.building.entry(key.to_string()).or_default().value());
        let guard = Arc::clone(&lock).lock_owned().await;
        Turn { flights: self, key: key.to_string(), lock, guard: Some(guard) }
    }

    /// Keys being built or waited for now.
    pub fn in_progress(&self) -> usize {
        self.building.len()
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.guard.take();
        // The map's reference and this turn's: nobody else waits for the key.
        self.flights
            .building
            .remove_if(&self.key, |_, lock| Arc::ptr_eq(lock, &self.lock) && Arc::strong_count(lock) <= 2);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn concurrent_misses_of_one_key_build_once() {
        let flights = Arc::new(SingleFlight::default());
        let cache: Arc<DashMap<String, u32>> = Arc::default();
        let builds = Arc::new(AtomicUsize::new(0));
        let readers = (0..8).map(|_| {
            let (flights, cache, builds) = (Arc::clone(&flights), Arc::clone(&cache), Arc::clone(&builds));
            tokio::spawn(async move {
                if let Some(hit) = cache.get("list") {
                    return *hit;
                }
                let _turn = flights.turn("list").await;
                if let Some(hit) = cache.get("list") {
                    return *hit;
                }
                builds.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
                cache.insert("list".into(), 42);
                42
            })
        });
        for reader in readers.collect::<Vec<_>>() {
            assert_eq!(reader.await.ok(), Some(42));
        }
        assert_eq!(builds.load(Ordering::SeqCst), 1);
        assert_eq!(flights.in_progress(), 0, "finished keys are forgotten");
    }
}
