//! Values derived from a site's data and kept between requests (a content
//! list's deep-page boundaries), each stamped with the site's write
//! generation (`ResponseCache::write_generation`) when it was read: a value
//! is served only while the generation is unchanged, so any write to the site
//! makes it stale, as it makes the site's cached answers stale.
//!
//! The store does not know what it holds (the families that derive values sit
//! above `state`); each value is one type per key, checked when read.

use std::any::Any;
use std::sync::Arc;

use super::flights::SingleFlight;

type Stamped = (u64, Arc<dyn Any + Send + Sync>);

pub struct DerivedValues {
    entries: quick_cache::sync::Cache<String, Stamped>,
    /// One build per key at a time.
    pub building: SingleFlight,
}

impl DerivedValues {
    /// Keeps at most `capacity` values.
    pub fn new(capacity: usize) -> Self {
        DerivedValues { entries: quick_cache::sync::Cache::new(capacity.max(1)), building: SingleFlight::default() }
    }

    /// The value under `key` if it was derived under `generation`.
    pub fn get<T: Any + Send + Sync>(&self, key: &str, generation: u64) -> Option<Arc<T>> {
        let (stamp, value) = self.entries.get(key)?;
        (stamp == generation).then(|| value.downcast::<T>().ok()).flatten()
    }

    pub fn insert<T: Any + Send + Sync>(&self, key: String, generation: u64, value: Arc<T>) {
        self.entries.insert(key, (generation, value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_served_only_under_its_generation_and_type() {
        let values = DerivedValues::new(4);
        values.insert("list".into(), 7, Arc::new(vec![1_u32, 2]));
        assert_eq!(values.get::<Vec<u32>>("list", 7).as_deref(), Some(&vec![1, 2]));
        assert!(values.get::<Vec<u32>>("list", 8).is_none(), "a write since: stale");
        assert!(values.get::<String>("list", 7).is_none(), "another type: nothing");
    }
}
