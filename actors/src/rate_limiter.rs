//! Per-key request limits (per second, minute, hour, day) and the per-client
//! failed-authentication tracker.
//!
//! Limits use governor's GCRA: a key with `per_minute = 60` may burst 60 requests
//! and regains one every second. The request path calls [`RateLimitTrackers`]
//! directly; the [`RateLimiter`] actor only drops idle state.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use dashmap::DashMap;
use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::{InMemoryState, NotKeyed};
use governor::{DefaultKeyedRateLimiter, Quota};
use uuid::Uuid;

use crate::shared_limits::{SharedLimits, SharedLimitsOptions};

type WindowLimiter = governor::RateLimiter<NotKeyed, InMemoryState, DefaultClock, StateInformationMiddleware>;

/// A key's configured limits; `None` means no limit for that window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyLimits {
    pub per_second: Option<NonZeroU32>,
    pub per_minute: Option<NonZeroU32>,
    pub per_hour: Option<NonZeroU32>,
    pub per_day: Option<NonZeroU32>,
}

impl KeyLimits {
    pub fn is_unlimited(&self) -> bool {
        self.windows().next().is_none()
    }

    pub(crate) fn windows(&self) -> impl Iterator<Item = (&'static str, NonZeroU32, u64)> {
        [
            ("per-second", self.per_second, 1),
            ("per-minute", self.per_minute, 60),
            ("per-hour", self.per_hour, 3_600),
            ("per-day", self.per_day, 86_400),
        ]
        .into_iter()
        .filter_map(|(name, quota, secs)| quota.map(|q| (name, q, secs)))
    }

    /// `"per-second";q=10;w=1, "per-minute";q=100;w=60`
    pub(crate) fn policy(&self) -> Arc<str> {
        self.windows().map(|(name, q, w)| format!("\"{name}\";q={q};w={w}")).collect::<Vec<_>>().join(", ").into()
    }
}

/// What a client is told about its limits (IETF RateLimit header fields draft).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateLimitStatus {
    /// The `RateLimit-Policy` value of the key's windows, built once per key.
    pub policy: Arc<str>,
    /// The window with the least remaining capacity.
    pub tightest: &'static str,
    pub remaining: u32,
    /// Seconds until that window's full quota is available again.
    pub reset_secs: u64,
    /// Seconds until a request may succeed again (only when denied).
    pub retry_after_secs: Option<u64>,
}

impl RateLimitStatus {
    /// `RateLimit-Policy: "per-second";q=10;w=1, "per-minute";q=100;w=60`
    pub fn policy_header(&self) -> &str {
        &self.policy
    }

    /// `RateLimit: "per-second";r=0;t=1`
    /// Written piece by piece (numbers through `itoa`): every answer to a
    /// limited key carries it, and `format!` cost more than the limit check.
    pub fn limit_header(&self) -> String {
        let (mut remaining, mut reset) = (itoa::Buffer::new(), itoa::Buffer::new());
        let parts =
            ["\"", self.tightest, "\";r=", remaining.format(self.remaining), ";t=", reset.format(self.reset_secs)];
        parts.concat()
    }
}

pub enum KeyDecision {
    Unlimited,
    Allowed(RateLimitStatus),
    Denied(RateLimitStatus),
    /// Limits are shared through Redis, Redis does not answer, and the
    /// configuration says to refuse rather than count per instance.
    Unavailable,
}

struct KeyWindows {
    limits: KeyLimits,
    windows: Vec<(&'static str, u32, u64, WindowLimiter)>,
    /// What every answer to this key says in `RateLimit-Policy`.
    policy: Arc<str>,
    last_seen_ms: AtomicU64,
}

impl KeyWindows {
    fn new(limits: KeyLimits) -> Self {
        let windows = limits
            .windows()
            .filter_map(|(name, quota, secs)| {
                let period = Duration::from_secs(secs) / quota.get();
                let q = Quota::with_period(period)?.allow_burst(quota);
                Some((name, quota.get(), secs, governor::RateLimiter::direct(q).with_middleware()))
            })
            .collect::<Vec<_>>();
        Self { limits, windows, policy: limits.policy(), last_seen_ms: AtomicU64::new(0) }
    }
}

/// Failed authentications per client address, and the addresses cooling down.
pub struct AuthFailureTracker {
    failures: DefaultKeyedRateLimiter<IpAddr>,
    blocked_until: DashMap<IpAddr, Instant>,
    cooldown: Duration,
    per_minute: u32,
}

impl AuthFailureTracker {
    pub fn new(failures_per_minute: u32, cooldown: Duration) -> Self {
        let per_minute = NonZeroU32::new(failures_per_minute.max(1)).unwrap_or(NonZeroU32::MIN);
        Self {
            failures: governor::RateLimiter::keyed(Quota::per_minute(per_minute)),
            blocked_until: DashMap::new(),
            cooldown,
            per_minute: per_minute.get(),
        }
    }

    /// Seconds left in this client's cool-down, if it is in one.
    pub fn blocked_for(&self, client: IpAddr) -> Option<u64> {
        let until = *self.blocked_until.get(&client)?;
        let now = Instant::now();
        if until > now {
            Some((until - now).as_secs().max(1))
        } else {
            self.blocked_until.remove(&client);
            None
        }
    }

    /// Records one failed authentication; past the allowance the client cools down.
    pub fn record_failure(&self, client: IpAddr) {
        if self.failures.check_key(&client).is_err() {
            tracing::warn!(%client, "too many failed authentications; cooling down");
            self.blocked_until.insert(client, Instant::now() + self.cooldown);
        }
    }

    /// One failed authentication: `Some(seconds)` while the client cools down
    /// (not counted, so retrying does not extend it), else counted.
    pub fn check_and_record(&self, client: IpAddr) -> Option<u64> {
        let blocked = self.blocked_for(client);
        if blocked.is_none() {
            self.record_failure(client);
        }
        blocked
    }

    fn cleanup(&self) {
        let now = Instant::now();
        self.blocked_until.retain(|_, until| *until > now);
        self.failures.retain_recent();
        self.failures.shrink_to_fit();
    }
}

/// Requests per client address for anonymous endpoints (form submissions,
/// visitor lookups): a GCRA quota per minute, burst included.
pub struct ClientQuota {
    limiter: DefaultKeyedRateLimiter<IpAddr>,
    clock: DefaultClock,
}

impl ClientQuota {
    pub fn per_minute(requests: u32) -> Self {
        let per_minute = NonZeroU32::new(requests.max(1)).unwrap_or(NonZeroU32::MIN);
        Self { limiter: governor::RateLimiter::keyed(Quota::per_minute(per_minute)), clock: DefaultClock::default() }
    }

    /// Counts one request of `client`; `Err(seconds)` until it may try again.
    pub fn check(&self, client: IpAddr) -> Result<(), u64> {
        self.limiter.check_key(&client).map_err(|not_until| {
            let wait = not_until.wait_time_from(self.clock.now());
            (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
        })
    }

    fn cleanup(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
    }
}

/// The state read on the request path.
pub struct RateLimitTrackers {
    keys: DashMap<Uuid, Arc<KeyWindows>>,
    pub auth_failures: AuthFailureTracker,
    /// Wrong passwords of private documents per client address.
    pub document_attempts: AuthFailureTracker,
    /// Public form submissions per client address.
    pub form_submissions: ClientQuota,
    /// Visitor reads of submissions by reference code per client address.
    pub visitor_lookups: ClientQuota,
    clock: DefaultClock,
    started: Instant,
    /// Key limits and the failed-authentication lockout counted in Redis.
    shared: Option<SharedLimits>,
}

impl RateLimitTrackers {
    pub fn new(auth_failures: AuthFailureTracker) -> Self {
        Self {
            keys: DashMap::new(),
            auth_failures,
            // 10 wrong document passwords a minute from one address, then 5 minutes off.
            document_attempts: AuthFailureTracker::new(10, Duration::from_secs(300)),
            form_submissions: ClientQuota::per_minute(10),
            visitor_lookups: ClientQuota::per_minute(30),
            clock: DefaultClock::default(),
            started: Instant::now(),
            shared: None,
        }
    }

    /// Counts key limits and failed authentications in Redis (`None`: per instance).
    pub fn with_shared(mut self, options: Option<SharedLimitsOptions>) -> redis::RedisResult<Self> {
        self.shared = options.map(SharedLimits::connect).transpose()?;
        Ok(self)
    }

    /// `None` without Redis, else whether it answered the last call.
    pub fn shared_status(&self) -> Option<bool> {
        self.shared.as_ref().map(SharedLimits::is_up)
    }

    /// `None` without Redis, else whether it answers a PING now.
    pub async fn probe_shared(&self) -> Option<bool> {
        match &self.shared {
            Some(shared) => Some(shared.probe().await),
            None => None,
        }
    }

    /// Counts one request of `key` against its limits: in Redis when limits
    /// are shared, else (or when Redis does not answer and the configuration
    /// fails open) in this instance.
    pub async fn check_key(&self, key: Uuid, limits: KeyLimits) -> KeyDecision {
        if limits.is_unlimited() {
            return KeyDecision::Unlimited;
        }
        if let Some(shared) = &self.shared {
            match shared.check_key(key, limits).await {
                Ok(decision) => return decision,
                Err(_) if !shared.fail_open() => return KeyDecision::Unavailable,
                Err(_) => {}
            }
        }
        self.check_key_locally(key, limits)
    }

    /// One failed authentication from `client`: `Some(seconds)` while the
    /// address cools down (the failure is then not counted), else counted.
    /// With Redis, counted across instances; a cool-down learnt from Redis is
    /// kept locally, so later failures of that address do not ask again. When
    /// Redis does not answer, this instance counts (either way the request is
    /// refused, so there is nothing more to close).
    pub async fn record_auth_failure(&self, client: IpAddr) -> Option<u64> {
        let tracker = &self.auth_failures;
        if let Some(shared) = &self.shared {
            if let Some(secs) = tracker.blocked_for(client) {
                return Some(secs);
            }
            if let Ok(answer) = shared.auth_failure(client, tracker.per_minute, tracker.cooldown).await {
                if let Some(secs) = answer {
                    tracker.blocked_until.insert(client, Instant::now() + Duration::from_secs(secs));
                }
                return answer;
            }
        }
        tracker.check_and_record(client)
    }

    /// The per-address quotas of form submissions and visitor lookups.
    pub fn with_form_quotas(mut self, submissions_per_minute: u32, lookups_per_minute: u32) -> Self {
        self.form_submissions = ClientQuota::per_minute(submissions_per_minute);
        self.visitor_lookups = ClientQuota::per_minute(lookups_per_minute);
        self
    }

    /// Counts one request of `key` against this instance's windows.
    pub fn check_key_locally(&self, key: Uuid, limits: KeyLimits) -> KeyDecision {
        if limits.is_unlimited() {
            return KeyDecision::Unlimited;
        }
        let windows = match self.keys.get(&key) {
            Some(w) if w.limits == limits => Arc::clone(&w),
            _ => {
                // First request, or the key's limits changed: start fresh windows.
                let w = Arc::new(KeyWindows::new(limits));
                self.keys.insert(key, Arc::clone(&w));
                w
            }
        };
        windows.last_seen_ms.store(self.started.elapsed().as_millis() as u64, Ordering::Relaxed);

        let mut status = RateLimitStatus {
            policy: Arc::clone(&windows.policy),
            tightest: "",
            remaining: u32::MAX,
            reset_secs: 0,
            retry_after_secs: None,
        };
        for (name, quota, secs, limiter) in &windows.windows {
            match limiter.check() {
                Ok(snapshot) => {
                    let remaining = snapshot.remaining_burst_capacity();
                    if remaining < status.remaining && status.retry_after_secs.is_none() {
                        status.tightest = name;
                        status.remaining = remaining;
                        // Time to regain the used part of the burst.
                        let used = u64::from(quota - remaining.min(*quota));
                        status.reset_secs = (used * secs).div_ceil(u64::from(*quota));
                    }
                }
                Err(not_until) => {
                    let wait = not_until.wait_time_from(self.clock.now());
                    let wait_secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
                    let wait_secs = wait_secs.max(1);
                    if status.retry_after_secs.is_none_or(|w| wait_secs > w) {
                        status.tightest = name;
                        status.remaining = 0;
                        status.reset_secs = wait_secs;
                        status.retry_after_secs = Some(wait_secs);
                    }
                }
            }
        }
        if status.retry_after_secs.is_some() {
            KeyDecision::Denied(status)
        } else {
            KeyDecision::Allowed(status)
        }
    }

    /// Drops a key's windows (revoked keys).
    pub fn forget_key(&self, key: Uuid) {
        self.keys.remove(&key);
        if let Some(shared) = &self.shared {
            shared.forget_key(key);
        }
    }

    /// Drops windows idle for longer than their longest window: by then they are
    /// full again, so forgetting them changes nothing.
    fn evict_idle(&self) -> usize {
        let now_ms = self.started.elapsed().as_millis() as u64;
        let before = self.keys.len();
        self.keys.retain(|_, w| {
            let longest_ms = w.windows.iter().map(|(_, _, secs, _)| secs * 1000).max().unwrap_or(0);
            now_ms.saturating_sub(w.last_seen_ms.load(Ordering::Relaxed)) <= longest_ms
        });
        before - self.keys.len()
    }
}

/// Owns the trackers' housekeeping.
pub struct RateLimiter {
    trackers: Arc<RateLimitTrackers>,
    cleanup_every: Duration,
}

impl RateLimiter {
    pub fn new(trackers: Arc<RateLimitTrackers>) -> Self {
        Self { trackers, cleanup_every: Duration::from_secs(60) }
    }
}

impl Actor for RateLimiter {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.run_interval(self.cleanup_every, |actor, _| {
            let evicted = actor.trackers.evict_idle();
            if let Some(shared) = &actor.trackers.shared {
                shared.evict_idle();
            }
            actor.trackers.auth_failures.cleanup();
            actor.trackers.document_attempts.cleanup();
            actor.trackers.form_submissions.cleanup();
            actor.trackers.visitor_lookups.cleanup();
            if evicted > 0 {
                tracing::debug!(evicted, "dropped idle rate-limit windows");
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nz(n: u32) -> Option<NonZeroU32> {
        NonZeroU32::new(n)
    }

    #[test]
    fn burst_over_per_second_limit_is_denied_with_retry_after() {
        let t = RateLimitTrackers::new(AuthFailureTracker::new(5, Duration::from_secs(60)));
        let key = Uuid::new_v4();
        let limits = KeyLimits { per_second: nz(3), per_minute: nz(100), ..Default::default() };
        for expected_remaining in [2, 1, 0] {
            match t.check_key_locally(key, limits) {
                KeyDecision::Allowed(s) => {
                    assert_eq!(s.remaining, expected_remaining);
                    assert_eq!(s.tightest, "per-second");
                }
                _ => panic!("should be allowed"),
            }
        }
        match t.check_key_locally(key, limits) {
            KeyDecision::Denied(s) => {
                assert_eq!(s.retry_after_secs, Some(1));
                assert_eq!(s.policy_header(), "\"per-second\";q=3;w=1, \"per-minute\";q=100;w=60");
                assert!(s.limit_header().starts_with("\"per-second\";r=0;t="));
            }
            _ => panic!("fourth request should be denied"),
        }
    }

    #[test]
    fn unlimited_keys_are_not_tracked() {
        let t = RateLimitTrackers::new(AuthFailureTracker::new(5, Duration::from_secs(60)));
        assert!(matches!(t.check_key_locally(Uuid::new_v4(), KeyLimits::default()), KeyDecision::Unlimited));
        assert_eq!(t.keys.len(), 0);
    }

    #[test]
    fn failed_authentications_start_a_cooldown() {
        let tracker = AuthFailureTracker::new(3, Duration::from_secs(60));
        let client: IpAddr = [127, 0, 0, 9].into();
        for _ in 0..3 {
            tracker.record_failure(client);
            assert!(tracker.blocked_for(client).is_none());
        }
        tracker.record_failure(client);
        assert!(tracker.blocked_for(client).is_some_and(|s| s <= 60));
        assert!(tracker.blocked_for([127, 0, 0, 10].into()).is_none());
    }
}
