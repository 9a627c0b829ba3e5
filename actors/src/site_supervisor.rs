//! One [`SiteSupervisor`] actor per active site. The registry's directory
//! ([`SiteSupervisors`]) starts it on the site's first request or delivery,
//! stops it once the site has been idle for a while, and starts it again if
//! it died. The supervisor owns the lifecycle of the site's hot state: when it
//! stops or restarts, every [`SiteHotState`] forgets the site.
//!
//! Nothing on the request path waits on its mailbox. A request marks its site
//! active with one lock-free store ([`SiteSupervisors::touch`]); the budgets
//! the site's work is admitted by (the write turns, the send lanes, the media
//! turns) are shared structures that forget a lane once it is empty.
//!
//! A panic in one site's work ([`SiteSupervisors::contain`]: a request, a
//! delivery) fails that piece of work alone: it is logged with the site's id,
//! and the site's supervisor restarts, so its hot state is read afresh.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, RwLock};

use actix::prelude::*;
use dashmap::DashMap;
use futures_util::FutureExt;
use uuid::Uuid;

use crate::Clock;

/// Per-site state kept in memory for speed, forgotten when the site's
/// supervisor stops or restarts.
pub trait SiteHotState: Send + Sync {
    fn forget_site(&self, site: Uuid);
}

/// The kinds of a site's work a panic is contained in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Work {
    Request,
    Delivery,
    /// The supervisor's own message handlers.
    Supervisor,
}

/// Faults injected by tests: the next piece of a site's work of a kind panics.
/// Only Rust code in the same process arms it; nothing over HTTP can. Unarmed,
/// it costs one relaxed load per piece of work.
#[derive(Default)]
pub struct FaultInjection {
    armed: AtomicBool,
    faults: DashMap<(Uuid, Work), ()>,
}

impl FaultInjection {
    /// The next `work` of `site` panics (once).
    pub fn panic_next(&self, site: Uuid, work: Work) {
        self.faults.insert((site, work), ());
        self.armed.store(true, Ordering::Release);
    }

    /// Panics if a fault was injected into this piece of work.
    pub fn trip(&self, site: Uuid, work: Work) {
        if self.armed.load(Ordering::Relaxed) && self.faults.remove(&(site, work)).is_some() {
            panic!("fault injected into the {work:?} work of site {site}");
        }
    }
}

/// The process's fault hook (tests only arm it).
pub fn faults() -> &'static FaultInjection {
    static FAULTS: LazyLock<FaultInjection> = LazyLock::new(FaultInjection::default);
    &FAULTS
}

/// A piece of a site's work that panicked (and was logged).
#[derive(Debug)]
pub struct Panicked {
    pub message: String,
}

/// What the supervisors share with the directory.
struct Shared {
    hot_state: RwLock<Vec<Arc<dyn SiteHotState>>>,
    restarts: AtomicU64,
    panics: AtomicU64,
    stopped_idle: AtomicU64,
}

impl Shared {
    fn forget(&self, site: Uuid) {
        for state in self.hot_state.read().unwrap_or_else(std::sync::PoisonError::into_inner).iter() {
            state.forget_site(site);
        }
    }
}

struct Slot {
    addr: Addr<SiteSupervisor>,
    /// When the site last had work, in the clock's milliseconds.
    last_active_ms: AtomicI64,
}

/// Counters for the metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SupervisorCounts {
    pub active: usize,
    pub restarts: u64,
    pub panics: u64,
    pub stopped_idle: u64,
}

/// The directory of running supervisors, by site.
pub struct SiteSupervisors {
    slots: DashMap<Uuid, Slot>,
    shared: Arc<Shared>,
    arbiter: ArbiterHandle,
    clock: Arc<dyn Clock>,
    idle_ms: i64,
}

impl SiteSupervisors {
    /// Supervisors live on the calling thread's arbiter (call it inside the
    /// actix system) and stop after `idle` without work.
    pub fn new(clock: Arc<dyn Clock>, idle: std::time::Duration) -> Arc<Self> {
        Arc::new(Self {
            slots: DashMap::new(),
            shared: Arc::new(Shared {
                hot_state: RwLock::default(),
                restarts: AtomicU64::new(0),
                panics: AtomicU64::new(0),
                stopped_idle: AtomicU64::new(0),
            }),
            arbiter: Arbiter::current(),
            clock,
            idle_ms: i64::try_from(idle.as_millis()).unwrap_or(i64::MAX),
        })
    }

    /// Hot state that forgets a site when its supervisor stops (registered once at start).
    pub fn owns(&self, state: Arc<dyn SiteHotState>) {
        self.shared.hot_state.write().unwrap_or_else(std::sync::PoisonError::into_inner).push(state);
    }

    /// The site has work now: its supervisor runs (started, or started again
    /// if it died) and is not idle.
    pub fn touch(&self, site: Uuid) {
        let now = self.clock.now().timestamp_millis();
        if let Some(slot) = self.slots.get(&site) {
            if slot.addr.connected() {
                slot.last_active_ms.store(now, Ordering::Relaxed);
                return;
            }
        }
        let mut slot = self.slots.entry(site).or_insert_with(|| self.start(site, now));
        if !slot.addr.connected() {
            tracing::warn!(site_id = %site, "a site's supervisor died; starting it again");
            self.shared.restarts.fetch_add(1, Ordering::Relaxed);
            *slot = self.start(site, now);
        }
        slot.last_active_ms.store(now, Ordering::Relaxed);
    }

    fn start(&self, site: Uuid, now: i64) -> Slot {
        let shared = Arc::clone(&self.shared);
        let addr = actix::Supervisor::start_in_arbiter(&self.arbiter, move |_| SiteSupervisor { site, shared });
        Slot { addr, last_active_ms: AtomicI64::new(now) }
    }

    /// Runs a piece of `site`'s work with a panic in it contained: the work
    /// answers [`Panicked`], the panic is logged with the site's id, and the
    /// site's supervisor restarts.
    pub async fn contain<F: Future>(&self, site: Uuid, work: Work, future: F) -> Result<F::Output, Panicked> {
        self.touch(site);
        let outcome = AssertUnwindSafe(async {
            faults().trip(site, work);
            future.await
        })
        .catch_unwind()
        .await;
        outcome.map_err(|payload| self.panicked(site, work, payload.as_ref()))
    }

    /// Logs a panic in `site`'s work and restarts its supervisor.
    pub fn panicked(&self, site: Uuid, work: Work, payload: &(dyn std::any::Any + Send)) -> Panicked {
        let message = panic_message(payload);
        tracing::error!(site_id = %site, work = ?work, panic = %message, "a site's work panicked; it failed alone and the site's supervisor restarts");
        self.shared.panics.fetch_add(1, Ordering::Relaxed);
        if let Some(slot) = self.slots.get(&site) {
            slot.addr.do_send(Restart);
        }
        Panicked { message }
    }

    /// Stops the supervisors of sites idle for longer than the idle time; returns how many.
    pub fn stop_idle(&self) -> usize {
        let now = self.clock.now().timestamp_millis();
        let mut stopped = Vec::new();
        self.slots.retain(|_, slot| {
            let idle = now.saturating_sub(slot.last_active_ms.load(Ordering::Relaxed)) >= self.idle_ms;
            if idle {
                stopped.push(slot.addr.clone());
            }
            !idle
        });
        for addr in &stopped {
            addr.do_send(Stop);
        }
        self.shared.stopped_idle.fetch_add(stopped.len() as u64, Ordering::Relaxed);
        stopped.len()
    }

    /// Whether `site` has a running supervisor.
    pub fn is_running(&self, site: Uuid) -> bool {
        self.slots.get(&site).is_some_and(|slot| slot.addr.connected())
    }

    /// What the supervisor of `site` says of itself (its mailbox's answer), if it runs.
    pub async fn inspect(&self, site: Uuid) -> Option<Result<SupervisorView, MailboxError>> {
        let addr = self.slots.get(&site).map(|slot| slot.addr.clone())?;
        Some(addr.send(Inspect).await)
    }

    pub fn counts(&self) -> SupervisorCounts {
        SupervisorCounts {
            active: self.slots.len(),
            restarts: self.shared.restarts.load(Ordering::Relaxed),
            panics: self.shared.panics.load(Ordering::Relaxed),
            stopped_idle: self.shared.stopped_idle.load(Ordering::Relaxed),
        }
    }
}

/// The text a panic was raised with.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned())
}

/// The supervisor of one site. It restarts in place (actix's `Supervisor`)
/// while the directory holds it, and ends once the directory lets it go.
pub struct SiteSupervisor {
    site: Uuid,
    shared: Arc<Shared>,
}

impl Actor for SiteSupervisor {
    type Context = Context<Self>;

    fn stopped(&mut self, _: &mut Self::Context) {
        // Stopped for idleness or for a restart: either way the site's hot
        // state is read afresh next time.
        self.shared.forget(self.site);
    }
}

impl Supervised for SiteSupervisor {
    fn restarting(&mut self, _: &mut Self::Context) {
        self.shared.restarts.fetch_add(1, Ordering::Relaxed);
        tracing::info!(site_id = %self.site, "restarted a site's supervisor");
    }
}

/// Ends the supervisor (the directory has let it go).
#[derive(Message)]
#[rtype(result = "()")]
struct Stop;

impl Handler<Stop> for SiteSupervisor {
    type Result = ();

    fn handle(&mut self, _: Stop, ctx: &mut Self::Context) {
        ctx.stop();
    }
}

/// The site's work panicked: start over with fresh hot state.
#[derive(Message)]
#[rtype(result = "()")]
struct Restart;

impl Handler<Restart> for SiteSupervisor {
    type Result = ();

    fn handle(&mut self, _: Restart, ctx: &mut Self::Context) {
        ctx.stop(); // the directory still holds it, so actix starts it again
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SupervisorView {
    pub site: Uuid,
}

#[derive(Message)]
#[rtype(result = "SupervisorView")]
struct Inspect;

impl Handler<Inspect> for SiteSupervisor {
    type Result = MessageResult<Inspect>;

    fn handle(&mut self, _: Inspect, _: &mut Self::Context) -> Self::Result {
        faults().trip(self.site, Work::Supervisor);
        MessageResult(SupervisorView { site: self.site })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ShiftedClock;

    #[derive(Default)]
    struct Forgotten(DashMap<Uuid, u32>);

    impl SiteHotState for Forgotten {
        fn forget_site(&self, site: Uuid) {
            *self.0.entry(site).or_insert(0) += 1;
        }
    }

    async fn settle() {
        for _ in 0..10 {
            tokio::task::yield_now().await;
            actix::clock::sleep(std::time::Duration::from_millis(5)).await;
        }
    }

    #[actix::test]
    async fn a_site_gets_a_supervisor_on_first_work_and_loses_it_when_idle() {
        let clock = Arc::new(ShiftedClock::default());
        let supervisors = SiteSupervisors::new(clock.clone(), std::time::Duration::from_secs(60));
        let forgotten = Arc::new(Forgotten::default());
        supervisors.owns(forgotten.clone());
        let (busy, idle) = (Uuid::new_v4(), Uuid::new_v4());
        supervisors.touch(idle);
        clock.advance(chrono::Duration::seconds(45));
        supervisors.touch(busy);
        assert_eq!(supervisors.counts().active, 2);
        clock.advance(chrono::Duration::seconds(30));
        assert_eq!(supervisors.stop_idle(), 1);
        settle().await;
        assert!(supervisors.is_running(busy) && !supervisors.is_running(idle));
        assert_eq!(forgotten.0.get(&idle).map(|n| *n), Some(1), "its hot state is forgotten");
        assert!(forgotten.0.get(&busy).is_none());
    }

    #[actix::test]
    async fn a_panic_in_a_sites_work_fails_that_work_and_restarts_its_supervisor() {
        let supervisors = SiteSupervisors::new(Arc::new(ShiftedClock::default()), std::time::Duration::from_secs(60));
        let forgotten = Arc::new(Forgotten::default());
        supervisors.owns(forgotten.clone());
        let (faulty, other) = (Uuid::new_v4(), Uuid::new_v4());
        faults().panic_next(faulty, Work::Delivery);
        let failed = supervisors.contain(faulty, Work::Delivery, async { 1 }).await;
        assert!(failed.unwrap_err().message.contains("fault injected"));
        assert_eq!(supervisors.contain(other, Work::Delivery, async { 2 }).await.unwrap(), 2);
        settle().await;
        assert_eq!(supervisors.counts().restarts, 1);
        assert_eq!(forgotten.0.get(&faulty).map(|n| *n), Some(1), "restarted with its hot state forgotten");
        assert!(supervisors.is_running(faulty), "restarted in place");
        assert_eq!(supervisors.contain(faulty, Work::Delivery, async { 3 }).await.unwrap(), 3, "the fault was once");
    }

    #[actix::test]
    async fn a_supervisor_that_died_is_started_again_on_the_sites_next_work() {
        let supervisors = SiteSupervisors::new(Arc::new(ShiftedClock::default()), std::time::Duration::from_secs(60));
        let site = Uuid::new_v4();
        supervisors.touch(site);
        faults().panic_next(site, Work::Supervisor);
        assert!(matches!(supervisors.inspect(site).await, Some(Err(_))), "its handler panicked");
        settle().await;
        assert!(!supervisors.is_running(site));
        supervisors.touch(site);
        assert_eq!(supervisors.inspect(site).await.unwrap().unwrap(), SupervisorView { site });
        assert_eq!(supervisors.counts().restarts, 1);
    }
}
