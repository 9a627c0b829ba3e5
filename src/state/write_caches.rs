//! What a committed write drops (`db::WriteTxn` tells it what it touched): the
//! caches of this instance, and, through the cluster channel, the same on every
//! other instance. The one place a write reaches the caches; see `responses`
//! for the answers that depend on time instead.

use std::sync::Arc;

use dashmap::DashMap;
use plinth_actors::SiteCache;
use uuid::Uuid;

use super::{ResponseCache, SiteState};
use crate::cluster::{ClusterBus, Invalidation};
use crate::db::{CacheDrops, Touched};

/// Handles on the caches that hold what the database holds.
pub struct WriteCaches {
    pub sites: Arc<SiteCache<SiteState>>,
    pub site_slugs: Arc<DashMap<String, Uuid>>,
    pub responses: Arc<ResponseCache>,
    pub cluster: Arc<ClusterBus>,
}

impl WriteCaches {
    /// Drops what `touched` names here, without telling anyone: the work of a
    /// local commit and of a notice from another instance alike.
    pub fn drop_here(&self, touched: Touched) {
        match touched {
            Touched::AllSites => {
                self.sites.invalidate_all();
                self.site_slugs.clear();
                self.responses.everything_changed();
            }
            Touched::Site(site_id) => {
                self.sites.invalidate(site_id);
                self.site_slugs.retain(|_, id| *id != site_id);
                self.responses.site_changed(site_id);
            }
            // The site's row, settings, locales and members stay loaded (a
            // busy editor would otherwise cost every next request four queries).
            Touched::Content(site_id) => {
                if let Some(site) = self.sites.get(site_id) {
                    site.public.clear();
                }
                self.responses.site_changed(site_id);
            }
            Touched::Answers(site_id) => self.responses.site_changed(site_id),
        }
    }
}

impl CacheDrops for WriteCaches {
    fn committed(&self, touched: &[Touched]) {
        for item in touched {
            self.drop_here(*item);
            self.cluster.publish(match *item {
                Touched::AllSites => Invalidation::AllSites,
                Touched::Site(site_id) => Invalidation::Site(site_id),
                Touched::Content(site_id) => Invalidation::Content(site_id),
                Touched::Answers(site_id) => Invalidation::Answers(site_id),
            });
        }
    }
}
