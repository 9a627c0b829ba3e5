//! Turns at a shared pool, taken fairly across tenants.
//!
//! A [`FairShare`] hands out permits of one pool (the SQLite write lock, the
//! PostgreSQL connections writes may hold, the webhook send slots) to callers
//! grouped in lanes (a site, a caller, the background work). Waiting lanes are
//! served in turn, one permit per lane per round, so a lane with sixteen
//! waiters gets one turn in a round, not sixteen in a row. While other lanes
//! wait, no lane takes more than its fair share (the pool divided by the lanes
//! that hold or wait); a pool nobody else wants is one lane's whole.
//!
//! With [`Policy::guaranteed_share`], a lane below its fair share is admitted
//! at once even when the pool is full, up to twice the pool: permits held by a
//! lane whose work hangs (a webhook endpoint that never answers) cannot be
//! taken back, so the other lanes' share is lent on top rather than waited for.
//! The sum of fair shares is the pool, so the total never passes twice the pool.
//!
//! Admission is a short critical section under a mutex (no await inside); a
//! permit is released when dropped, also when its holder panics or its future
//! is dropped while waiting.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::oneshot;

/// How a pool is shared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Permits the pool has.
    pub capacity: usize,
    /// Permits one lane may hold at once, whatever else waits.
    pub per_lane: usize,
    /// A lane under its fair share is admitted past a full pool (see the module).
    pub guaranteed_share: bool,
}

impl Policy {
    /// One permit at a time (the SQLite write lock), taken in turn.
    pub fn exclusive() -> Self {
        Self { capacity: 1, per_lane: 1, guaranteed_share: false }
    }
}

pub struct FairShare<K: Eq + Hash + Clone> {
    policy: Policy,
    lanes: Mutex<Lanes<K>>,
}

struct Lanes<K: Eq + Hash + Clone> {
    in_use: usize,
    /// Lanes that hold or wait for a permit; a lane leaves when it does neither.
    by_key: HashMap<K, Lane<K>>,
    /// Lanes with waiters, in the order their next turn comes.
    turns: VecDeque<K>,
}

struct Lane<K: Eq + Hash + Clone> {
    held: usize,
    waiting: VecDeque<oneshot::Sender<Permit<K>>>,
}

/// A permit of the pool, released when dropped.
pub struct Permit<K: Eq + Hash + Clone> {
    share: Arc<FairShare<K>>,
    lane: Option<K>,
}

impl<K: Eq + Hash + Clone> std::fmt::Debug for Permit<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Permit")
    }
}

impl<K: Eq + Hash + Clone> Drop for Permit<K> {
    fn drop(&mut self) {
        if let Some(lane) = self.lane.take() {
            self.share.release(lane);
        }
    }
}

/// What a pool holds now, for metrics and tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Occupancy {
    pub in_use: usize,
    pub lanes: usize,
    pub waiting: usize,
}

impl<K: Eq + Hash + Clone> FairShare<K> {
    pub fn new(policy: Policy) -> Arc<Self> {
        let policy = Policy { capacity: policy.capacity.max(1), per_lane: policy.per_lane.max(1), ..policy };
        Arc::new(Self {
            policy,
            lanes: Mutex::new(Lanes { in_use: 0, by_key: HashMap::new(), turns: VecDeque::new() }),
        })
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// A permit for `lane`: at once when the rules admit it, else when its turn
    /// comes. Dropping the future gives up the place in the queue.
    pub async fn acquire(self: &Arc<Self>, lane: K) -> Permit<K> {
        let waiting = {
            let mut lanes = self.lock();
            lanes.by_key.entry(lane.clone()).or_insert_with(|| Lane { held: 0, waiting: VecDeque::new() });
            if lanes.admits(&self.policy, &lane, true) {
                lanes.take(&lane);
                return Permit { share: Arc::clone(self), lane: Some(lane) };
            }
            let (sender, receiver) = oneshot::channel();
            if let Some(entry) = lanes.by_key.get_mut(&lane) {
                if entry.waiting.is_empty() {
                    lanes.turns.push_back(lane.clone());
                }
            }
            if let Some(entry) = lanes.by_key.get_mut(&lane) {
                entry.waiting.push_back(sender);
            }
            receiver
        };
        match waiting.await {
            Ok(permit) => permit,
            // Senders are only dropped after a permit was sent through them.
            Err(_) => unreachable_permit(self, lane),
        }
    }

    pub fn occupancy(&self) -> Occupancy {
        let lanes = self.lock();
        Occupancy {
            in_use: lanes.in_use,
            lanes: lanes.by_key.len(),
            waiting: lanes.by_key.values().map(|lane| lane.waiting.len()).sum(),
        }
    }

    /// Permits `lane` holds now.
    pub fn held_by(&self, lane: &K) -> usize {
        self.lock().by_key.get(lane).map_or(0, |entry| entry.held)
    }

    fn lock(&self) -> MutexGuard<'_, Lanes<K>> {
        // Nothing panics while the lock is held; a poisoned lock still holds
        // consistent counts.
        self.lanes.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn release(self: &Arc<Self>, lane: K) {
        let handed = {
            let mut lanes = self.lock();
            lanes.give_back(&lane);
            lanes.next_turn(&self.policy)
        };
        // Sent outside the lock: a waiter that gave up hands its permit back,
        // whose drop releases it again and serves the next lane.
        if let Some((next, sender)) = handed {
            let permit = Permit { share: Arc::clone(self), lane: Some(next) };
            drop(sender.send(permit));
        }
    }
}

/// A waiter's sender was dropped without a permit: only possible if the
/// process is tearing the pool down. Wait in line again rather than panic.
fn unreachable_permit<K: Eq + Hash + Clone>(share: &Arc<FairShare<K>>, lane: K) -> Permit<K> {
    let mut lanes = share.lock();
    lanes.take(&lane);
    Permit { share: Arc::clone(share), lane: Some(lane) }
}

impl<K: Eq + Hash + Clone> Lanes<K> {
    fn fair_share(&self, policy: &Policy) -> usize {
        (policy.capacity / self.by_key.len().max(1)).max(1)
    }

    fn others_wait(&self, lane: &K) -> bool {
        self.by_key.iter().any(|(key, entry)| key != lane && entry.waiting.iter().any(|w| !w.is_closed()))
    }

    /// Whether `lane` may take a permit now. `arriving`: a new request (it
    /// queues behind its own lane's waiters), not a turn handed from the queue.
    fn admits(&self, policy: &Policy, lane: &K, arriving: bool) -> bool {
        let Some(entry) = self.by_key.get(lane) else { return false };
        if entry.held >= policy.per_lane || (arriving && entry.waiting.iter().any(|w| !w.is_closed())) {
            return false;
        }
        let under_share = entry.held < self.fair_share(policy);
        if self.in_use < policy.capacity {
            return under_share || !self.others_wait(lane);
        }
        policy.guaranteed_share && under_share && self.in_use < policy.capacity * 2
    }

    fn take(&mut self, lane: &K) {
        self.by_key.entry(lane.clone()).or_insert_with(|| Lane { held: 0, waiting: VecDeque::new() }).held += 1;
        self.in_use += 1;
    }

    fn give_back(&mut self, lane: &K) {
        if let Some(entry) = self.by_key.get_mut(lane) {
            entry.held = entry.held.saturating_sub(1);
            self.in_use = self.in_use.saturating_sub(1);
            if entry.held == 0 && entry.waiting.is_empty() {
                self.by_key.remove(lane);
            }
        }
    }

    /// The next lane in turn that may take a permit, with its first waiter;
    /// the permit is counted as taken. Waiters that gave up are dropped here.
    /// When every waiting lane is at its share but the pool has room, the
    /// first in turn takes it: a free permit never idles while someone waits.
    fn next_turn(&mut self, policy: &Policy) -> Option<(K, oneshot::Sender<Permit<K>>)> {
        self.drop_abandoned();
        let chosen = self.turns.iter().position(|lane| self.admits(policy, lane, false)).or_else(|| {
            (self.in_use < policy.capacity).then_some(()).and_then(|()| {
                self.turns.iter().position(|lane| self.by_key.get(lane).is_some_and(|e| e.held < policy.per_lane))
            })
        })?;
        // Lanes passed over keep their place; the chosen one goes last.
        let lane = self.turns.remove(chosen)?;
        let entry = self.by_key.get_mut(&lane)?;
        let sender = entry.waiting.pop_front()?;
        if !entry.waiting.is_empty() {
            self.turns.push_back(lane.clone());
        }
        self.take(&lane);
        Some((lane, sender))
    }

    /// Forgets waiters whose futures were dropped, and lanes left with nothing.
    fn drop_abandoned(&mut self) {
        let by_key = &mut self.by_key;
        self.turns.retain(|lane| {
            let Some(entry) = by_key.get_mut(lane) else { return false };
            entry.waiting.retain(|w| !w.is_closed());
            if entry.waiting.is_empty() && entry.held == 0 {
                by_key.remove(lane);
            }
            by_key.get(lane).is_some_and(|entry| !entry.waiting.is_empty())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn pool(capacity: usize, guaranteed_share: bool) -> Arc<FairShare<&'static str>> {
        FairShare::new(Policy { capacity, per_lane: capacity, guaranteed_share })
    }

    async fn pending<T>(future: impl std::future::Future<Output = T>) -> bool {
        tokio::time::timeout(Duration::from_millis(20), future).await.is_err()
    }

    #[tokio::test]
    async fn waiting_lanes_take_turns_one_permit_a_round() {
        let share = FairShare::new(Policy::exclusive());
        let first = share.acquire("a").await;
        let (order_tx, mut order_rx) = tokio::sync::mpsc::unbounded_channel();
        // Sixteen writers of site a queue, then one of site b.
        for lane in std::iter::repeat_n("a", 16).chain(["b"]) {
            let share = Arc::clone(&share);
            let order = order_tx.clone();
            tokio::spawn(async move {
                let _permit = share.acquire(lane).await;
                order.send(lane).ok();
                tokio::time::sleep(Duration::from_millis(1)).await;
            });
            tokio::task::yield_now().await;
        }
        drop(first);
        let mut served = Vec::new();
        for _ in 0..17 {
            served.push(order_rx.recv().await.unwrap());
        }
        let b_at = served.iter().position(|lane| *lane == "b").unwrap();
        assert!(b_at <= 1, "b waits one turn of a at most, served {served:?}");
    }

    #[tokio::test]
    async fn an_idle_pool_is_one_lanes_whole_and_a_busy_one_is_shared() {
        let share = pool(4, false);
        let mut a = Vec::new();
        for _ in 0..4 {
            a.push(share.acquire("a").await);
        }
        assert_eq!(share.held_by(&"a"), 4, "nobody else wants it: a takes all");
        // b waits (the pool is full and shares are not lent); when a frees
        // one, b's turn comes before a's next request.
        let b = tokio::spawn({
            let share = Arc::clone(&share);
            async move { share.acquire("b").await }
        });
        tokio::task::yield_now().await;
        assert!(pending(share.acquire("a")).await, "a is over its share while b waits");
        a.pop();
        let b = b.await.unwrap();
        assert_eq!(share.held_by(&"b"), 1);
        drop(b);
        drop(a);
        assert_eq!(share.occupancy(), Occupancy::default(), "every permit came back");
    }

    #[tokio::test]
    async fn a_guaranteed_share_is_lent_past_a_pool_a_hung_lane_fills() {
        let share = pool(8, true);
        let mut hung = Vec::new();
        for _ in 0..8 {
            hung.push(share.acquire("a").await);
        }
        assert!(pending(share.acquire("a")).await, "a holds the whole pool and waits for more");
        // b is under its share (8 / 2 lanes): admitted at once, on top.
        let mut b = Vec::new();
        for _ in 0..4 {
            b.push(tokio::time::timeout(Duration::from_millis(100), share.acquire("b")).await.expect("b admitted"));
        }
        assert!(pending(share.acquire("b")).await, "past its share b waits like anyone");
        assert_eq!(share.occupancy().in_use, 12, "never past twice the pool");
    }

    #[tokio::test]
    async fn a_waiter_that_gives_up_passes_its_turn_on() {
        let share = FairShare::new(Policy::exclusive());
        let held = share.acquire("a").await;
        assert!(pending(share.acquire("b")).await, "b gives up");
        let c = tokio::spawn({
            let share = Arc::clone(&share);
            async move { share.acquire("c").await }
        });
        tokio::task::yield_now().await;
        drop(held);
        let c = tokio::time::timeout(Duration::from_millis(200), c).await.expect("c served").unwrap();
        drop(c);
        assert_eq!(share.occupancy(), Occupancy::default());
    }
}
