//! Turns at the write lock, taken fairly across tenants.
//!
//! Every write waits for its turn before BEGIN: on SQLite for the one write
//! lock (one writer at a time, per database file), on PostgreSQL for one of
//! the connections writes may hold, of which one tenant holds at most a
//! bounded share. Waiting tenants are served in turn (see
//! [`plinth_actors::fair_share`]), so a site running sixteen writers at once
//! gets one turn per round, and another site's single writer waits for one
//! write at most instead of sixteen.
//!
//! The tenant is the request's: the first site whose role the request
//! checked, else the site a scoped key belongs to, else the caller; work
//! outside a request (webhook fan-out, the janitor, results) takes the
//! background's turn, and requests with no caller and no site the public's.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, LazyLock};

use dashmap::DashMap;
use plinth_actors::{FairShare, Permit, Policy};
use uuid::Uuid;

/// On whose behalf a write waits for its turn.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Tenant {
    Site(Uuid),
    /// A caller acting on no one site (an unscoped key's or a user's account
    /// and system writes): the key's id or the user's identity-provider id.
    Caller(Arc<str>),
    /// Requests with neither a site nor a caller.
    Public,
    /// Work outside any request.
    Background,
}

/// What a request has learnt of its tenant so far.
#[derive(Default)]
pub struct RequestTenant {
    site: Option<Uuid>,
    caller: Option<Arc<str>>,
}

impl RequestTenant {
    fn tenant(&self) -> Tenant {
        match (self.site, &self.caller) {
            (Some(site), _) => Tenant::Site(site),
            (None, Some(caller)) => Tenant::Caller(Arc::clone(caller)),
            (None, None) => Tenant::Public,
        }
    }
}

tokio::task_local! {
    static REQUEST_TENANT: Rc<RefCell<RequestTenant>>;
}

/// Runs a request with its tenant noted as authentication and role checks
/// learn it (the app's middleware wraps every request in this).
pub async fn for_request<F: std::future::Future>(request: F) -> F::Output {
    REQUEST_TENANT.scope(Rc::default(), request).await
}

/// The request acts on `site` (its first role check, or its key's scope).
pub fn note_site(site: Uuid) {
    let _ = REQUEST_TENANT.try_with(|tenant| {
        let mut tenant = tenant.borrow_mut();
        tenant.site.get_or_insert(site);
    });
}

/// The request's caller, by a stable id.
pub fn note_caller(caller: &str) {
    let _ = REQUEST_TENANT.try_with(|tenant| {
        let mut tenant = tenant.borrow_mut();
        if tenant.caller.is_none() {
            tenant.caller = Some(Arc::from(caller));
        }
    });
}

/// The tenant a write begun now waits for its turn as.
pub fn current() -> Tenant {
    REQUEST_TENANT.try_with(|tenant| tenant.borrow().tenant()).unwrap_or(Tenant::Background)
}

pub type WriteTurn = Permit<Tenant>;
pub type WriteTurns = FairShare<Tenant>;

/// One queue per SQLite file: SQLite has one writer at a time whatever the
/// connection.
static SQLITE_TURNS: LazyLock<DashMap<std::path::PathBuf, Arc<WriteTurns>>> = LazyLock::new(DashMap::new);

pub fn sqlite_turns(file: std::path::PathBuf) -> Arc<WriteTurns> {
    Arc::clone(SQLITE_TURNS.entry(file).or_insert_with(|| FairShare::new(Policy::exclusive())).value())
}

/// PostgreSQL: `connections` of the pool may write at once, one tenant holding
/// at most `share_percent` of them (at least one).
pub fn postgres_turns(connections: usize, share_percent: usize) -> Arc<WriteTurns> {
    let per_lane = (connections * share_percent.min(100) / 100).max(1);
    FairShare::new(Policy { capacity: connections, per_lane, guaranteed_share: false })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_request_is_its_first_site_else_its_caller() {
        assert_eq!(current(), Tenant::Background, "outside a request");
        let site = Uuid::new_v4();
        for_request(async move {
            assert_eq!(current(), Tenant::Public);
            note_caller("key-1");
            assert_eq!(current(), Tenant::Caller(Arc::from("key-1")));
            note_site(site);
            note_site(Uuid::new_v4());
            assert_eq!(current(), Tenant::Site(site), "the first site checked");
        })
        .await;
    }
}
