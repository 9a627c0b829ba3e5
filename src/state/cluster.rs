//! The caches' side of several instances (see `cluster`): what a local write
//! drops and tells, and what a notification from another instance drops here.

use uuid::Uuid;

use super::AppState;
use crate::cluster::{Invalidation, Notice};
use crate::db::Touched;

impl AppState {
    /// After a key was revoked or changed: refused here at once, and on the
    /// other instances as soon as they hear of it.
    pub fn forget_key(&self, key_id: Uuid) {
        self.keys.forget(key_id);
        self.cluster.publish(Invalidation::Key(key_id));
    }

    /// After a user's moderation changed (suspension, ban, lift).
    pub fn forget_user(&self, idp_user_id: &str) {
        self.account_gate.forget(idp_user_id);
        self.cluster.publish(Invalidation::User(idp_user_id.to_string()));
    }

    /// Drops what another instance made stale; returns the sites whose webhook
    /// subscriptions changed (the webhook runtime keeps those).
    pub fn apply_notice(&self, notice: &Notice) -> Vec<Option<Uuid>> {
        match notice {
            Notice::Lost => {
                self.drop_every_cache();
                vec![None]
            }
            Notice::Stale(items) => items.iter().filter_map(|item| self.apply_remote(item)).collect(),
        }
    }

    /// One item from another instance: like the local write's own drop, but not
    /// told again. `Some` for webhook subscriptions (`None` = every site).
    fn apply_remote(&self, item: &Invalidation) -> Option<Option<Uuid>> {
        match item {
            Invalidation::Site(site_id) => self.write_caches.drop_here(Touched::Site(*site_id)),
            Invalidation::Content(site_id) => self.write_caches.drop_here(Touched::Content(*site_id)),
            Invalidation::Answers(site_id) => self.write_caches.drop_here(Touched::Answers(*site_id)),
            Invalidation::AllSites => self.write_caches.drop_here(Touched::AllSites),
            Invalidation::Key(key_id) => self.keys.forget(*key_id),
            Invalidation::User(user) => self.account_gate.forget(user),
            Invalidation::Webhooks(site_id) => return Some(Some(*site_id)),
            Invalidation::Events => self.events.stream_moved(),
        }
        None
    }

    /// After notifications may have been missed: every cache that a write on
    /// another instance could have made stale.
    fn drop_every_cache(&self) {
        self.write_caches.drop_here(Touched::AllSites);
        self.keys.forget_all();
        self.account_gate.forget_all();
        self.events.stream_moved();
    }
}
