//! The tenant a request acts for, noted as authentication and role checks
//! learn it: the first site whose role the request checked, else the site a
//! scoped key belongs to, else the caller. Requests with neither are the
//! public's; work outside any request is the background's. The pools all
//! sites share (the write lock, the media workers, imports) take turns by it.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use uuid::Uuid;

/// On whose behalf a request waits for its turn at a shared pool.
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
    static ACTING_FOR: Tenant;
}

/// Runs `work` outside any request on `tenant`'s behalf: a site's webhook
/// sends, an import's batches on the blocking pool. Its turns at the shared
/// pools are that tenant's: one site's backlog of such work waits in its own
/// lane, not in the background's ahead of every other site's fan-out.
pub async fn acting_for<F: std::future::Future>(tenant: Tenant, work: F) -> F::Output {
    ACTING_FOR.scope(tenant, work).await
}

/// Runs a request with its tenant noted as authentication and role checks
/// learn it, and a panic in it caught (the app's middleware wraps every
/// request in this): the request's outcome, or the panic's payload, and the
/// tenant it learnt.
pub async fn for_request<F: std::future::Future>(request: F) -> (std::thread::Result<F::Output>, Tenant) {
    use futures_util::FutureExt as _;
    let noted = Rc::<RefCell<RequestTenant>>::default();
    let outcome = REQUEST_TENANT.scope(Rc::clone(&noted), std::panic::AssertUnwindSafe(request).catch_unwind()).await;
    let tenant = noted.borrow().tenant();
    (outcome, tenant)
}

/// The request acts on `site` (its first role check, or its key's scope).
pub fn note_site(site: Uuid) {
    let first = REQUEST_TENANT
        .try_with(|tenant| {
            let mut tenant = tenant.borrow_mut();
            let first = tenant.site.is_none();
            tenant.site.get_or_insert(site);
            first
        })
        .unwrap_or(false);
    if first {
        plinth_actors::site_supervisor::faults().trip(site, plinth_actors::Work::Request);
    }
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

/// The tenant of the request this runs in, else the one the work acts for
/// ([`acting_for`]), else the background.
pub fn current() -> Tenant {
    REQUEST_TENANT
        .try_with(|tenant| tenant.borrow().tenant())
        .or_else(|_| ACTING_FOR.try_with(Tenant::clone))
        .unwrap_or(Tenant::Background)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_request_is_its_first_site_else_its_caller() {
        assert_eq!(current(), Tenant::Background, "outside a request");
        let site = Uuid::new_v4();
        let (_, learnt) = for_request(async move {
            assert_eq!(current(), Tenant::Public);
            note_caller("key-1");
            assert_eq!(current(), Tenant::Caller(Arc::from("key-1")));
            note_site(site);
            note_site(Uuid::new_v4());
            assert_eq!(current(), Tenant::Site(site), "the first site checked");
        })
        .await;
        assert_eq!(learnt, Tenant::Site(site));
    }

    #[tokio::test]
    async fn work_outside_a_request_acts_for_the_tenant_it_names() {
        let site = Uuid::new_v4();
        let tenant = acting_for(Tenant::Site(site), async { current() }).await;
        assert_eq!(tenant, Tenant::Site(site));
        assert_eq!(current(), Tenant::Background, "only inside");
    }
}
