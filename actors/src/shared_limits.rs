//! Per-key limits and the failed-authentication lockout counted in Redis, so
//! several instances behind one balancer share them (`PLINTH_REDIS_URL`).
//!
//! Both run as atomic Lua scripts (GCRA on Redis' own clock, so instances with
//! skewed clocks agree). Two local fast paths keep most requests off Redis:
//!
//! - a refusal is remembered until the retry time Redis announced: a key
//!   hammering past its limit is refused locally, without a round trip. This is
//!   exact: other instances' requests can only push that time later, never
//!   earlier. The same holds for an address cooling down after failed logins;
//! - allowances are taken in leases: an instance reserves a batch of tokens in
//!   one call and spends them locally for up to [`LEASE_TTL`]. A batch starts
//!   at 1 and doubles while leases are spent in time (halves when not), up to
//!   [`LEASE_SHARE`] of the smallest quota; so a quiet key always asks Redis and
//!   a busy one asks once per batch. Tokens leased but not spent are lost to
//!   the key (under-admission); spent late within the lease they may overshoot a
//!   window. Either way the error is at most one batch per instance.
//!
//! Every call carries `timeout`; a failed call falls back for its own request.
//! After three failures in a row Redis counts as down: one request a second
//! probes it and the others go straight to the fallback (the local
//! per-instance limiter when failing open, refusal when failing closed).

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dashmap::DashMap;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::Script;
use uuid::Uuid;

use crate::rate_limiter::{KeyDecision, KeyLimits, RateLimitStatus};

/// The longest an instance keeps leased tokens of a key.
pub const LEASE_TTL: Duration = Duration::from_secs(1);
/// A lease is at most this fraction (1/n) of the key's smallest quota.
pub const LEASE_SHARE: u32 = 50;
/// While Redis is down, how often one request tries it again.
const PROBE_EVERY_MS: u64 = 1_000;
/// Failed calls in a row that make an outage: one slow answer on a loaded
/// machine falls back for its own request only.
const FAILURES_FOR_OUTAGE: u32 = 3;

/// GCRA over up to four windows of one key, all or nothing.
/// KEYS[1]: the key's hash (one TAT field per window and quota).
/// ARGV: wanted tokens, then (field, quota, window seconds) per window.
/// Returns {granted, retry_us, remaining_1, reset_us_1, …}.
const KEY_SCRIPT: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local want = tonumber(ARGV[1])
local n = (#ARGV - 1) / 3
local grant = want
local w = {}
for i = 1, n do
  local quota = tonumber(ARGV[i * 3])
  local window = tonumber(ARGV[i * 3 + 1]) * 1000000
  local interval = window / quota
  local tat = tonumber(redis.call('HGET', KEYS[1], ARGV[i * 3 - 1]) or now)
  if tat < now then tat = now end
  w[i] = {ARGV[i * 3 - 1], interval, window, tat}
  local available = math.floor((now + window - tat) / interval + 1e-6)
  if available < grant then grant = available end
end
local out = {0, 0}
if grant <= 0 then
  local retry = 0
  for i = 1, n do
    local wait = w[i][4] + w[i][2] - w[i][3] - now
    if wait > retry then retry = wait end
    out[i * 2 + 1] = math.max(0, math.floor((now + w[i][3] - w[i][4]) / w[i][2] + 1e-6))
    out[i * 2 + 2] = w[i][4] - now
  end
  out[2] = retry
  return out
end
local longest = 0
for i = 1, n do
  local tat = w[i][4] + grant * w[i][2]
  redis.call('HSET', KEYS[1], w[i][1], string.format('%.0f', tat))
  if tat - now > longest then longest = tat - now end
  out[i * 2 + 1] = math.floor((now + w[i][3] - tat) / w[i][2] + 1e-6)
  out[i * 2 + 2] = tat - now
end
redis.call('PEXPIRE', KEYS[1], math.ceil(longest / 1000) + 1000)
out[1] = grant
return out
";

/// One failed authentication of an address. KEYS[1]: its cool-down marker,
/// KEYS[2]: its GCRA time. ARGV: failures per minute, cool-down ms.
/// Returns the cool-down left in ms (the failure is not counted), 0 when
/// counted, -1 when this failure started the cool-down.
const AUTH_SCRIPT: &str = r"
local left = redis.call('PTTL', KEYS[1])
if left > 0 then return left end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = 60000000
local interval = window / tonumber(ARGV[1])
local tat = tonumber(redis.call('GET', KEYS[2]) or now)
if tat < now then tat = now end
if tat + interval > now + window + 1e-6 then
  redis.call('SET', KEYS[1], '1', 'PX', tonumber(ARGV[2]))
  return -1
end
tat = tat + interval
redis.call('SET', KEYS[2], string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000) + 1000)
return 0
";

/// How Plinth reaches Redis (`[redis]` in the configuration).
#[derive(Clone, Debug)]
pub struct SharedLimitsOptions {
    pub url: String,
    /// Prefix of every Redis key (several deployments or tests on one Redis).
    pub key_prefix: String,
    /// The most any one call may take.
    pub timeout: Duration,
    /// When Redis does not answer: count per instance (true) or refuse (false).
    pub fail_open: bool,
}

/// Redis could not be asked (down, slow, or a broken reply).
#[derive(Debug)]
pub struct Unreachable;

/// What this instance knows of one key between calls to Redis.
struct KeyLease {
    limits: KeyLimits,
    policy: Arc<str>,
    /// Refused locally until then (the retry time Redis announced).
    denied_until: Option<Instant>,
    denied_window: &'static str,
    /// Tokens reserved in Redis and not yet spent, until `expires`.
    tokens: u32,
    expires: Instant,
    /// The batch asked for next.
    batch: u32,
    /// When the call asking Redis for a batch now under way started.
    asking_since: Option<Instant>,
    /// Redis' view when the lease was taken: tightest window, remaining, reset.
    snapshot: (&'static str, u32, Duration),
    taken: Instant,
}

pub struct SharedLimits {
    redis: ConnectionManager,
    options: SharedLimitsOptions,
    key_script: Script,
    auth_script: Script,
    leases: DashMap<Uuid, KeyLease>,
    down: AtomicBool,
    failures_in_a_row: AtomicU32,
    next_probe_ms: AtomicU64,
    started: Instant,
}

impl SharedLimits {
    /// Prepares the connection; it is opened on first use and reopened after
    /// losses, so a Redis down at start-up delays nothing.
    pub fn connect(options: SharedLimitsOptions) -> redis::RedisResult<Self> {
        let client = redis::Client::open(options.url.as_str())?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_millis(500)))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_millis(200));
        Ok(Self {
            redis: ConnectionManager::new_lazy_with_config(client, config)?,
            options,
            key_script: Script::new(KEY_SCRIPT),
            auth_script: Script::new(AUTH_SCRIPT),
            leases: DashMap::new(),
            down: AtomicBool::new(false),
            failures_in_a_row: AtomicU32::new(0),
            next_probe_ms: AtomicU64::new(0),
            started: Instant::now(),
        })
    }

    pub fn fail_open(&self) -> bool {
        self.options.fail_open
    }

    /// Whether the last call to Redis was answered.
    pub fn is_up(&self) -> bool {
        !self.down.load(Ordering::Relaxed)
    }

    /// Asks Redis for a PING (the health report); records the outcome.
    pub async fn probe(&self) -> bool {
        let mut redis = self.redis.clone();
        let ping = redis::cmd("PING");
        let answer = tokio::time::timeout(self.options.timeout, ping.query_async::<String>(&mut redis)).await;
        self.record(answer.map_err(|_| "timed out".to_string()).and_then(|r| r.map_err(|e| e.to_string()))).is_ok()
    }

    /// Counts one request of `key`; `Err` when Redis could not be asked.
    pub async fn check_key(&self, key: Uuid, limits: KeyLimits) -> Result<KeyDecision, Unreachable> {
        let now = Instant::now();
        // One call at a time per key asks for a batch (the leader); requests
        // meanwhile ask for one token each, so an instance never holds more than
        // one batch plus its requests in flight.
        let (want, leader) = {
            let mut lease = self.leases.entry(key).or_insert_with(|| KeyLease::new(limits, now));
            if lease.limits != limits {
                *lease = KeyLease::new(limits, now);
            }
            // A leader's call ends within `timeout` (or was dropped with its request).
            let asking = lease.asking_since.is_some_and(|since| now - since < self.options.timeout * 2);
            if let Some(decision) = lease.answer_locally(now, asking) {
                return Ok(decision);
            }
            if asking {
                (1, false)
            } else {
                lease.asking_since = Some(now);
                lease.adapt_batch(now);
                (lease.batch, true)
            }
        };
        let reply = self.ask_for_tokens(key, limits, want).await;
        let mut lease = self.leases.entry(key).or_insert_with(|| KeyLease::new(limits, now));
        if leader {
            lease.asking_since = None;
        }
        let reply = reply?;
        let windows: Vec<_> = limits.windows().collect();
        // Per window: what Redis left, and how long until it is full again.
        let per_window = windows.iter().enumerate().map(|(i, (name, quota, _))| {
            let remaining = reply[2 + 2 * i].clamp(0, i64::from(quota.get())) as u32;
            (*name, remaining, Duration::from_micros(reply[3 + 2 * i].max(0) as u64))
        });
        let now = Instant::now();
        if lease.limits != limits {
            *lease = KeyLease::new(limits, now);
        }
        let (granted, retry_us) = (reply[0].max(0) as u32, reply[1].max(0) as u64);
        if granted == 0 {
            let retry = Duration::from_micros(retry_us).max(Duration::from_millis(1));
            // The window that refuses longest, as the local limiter reports it.
            let wait_us = |i: usize, quota: u32, secs: u64| {
                let window = secs as f64 * 1e6;
                reply[3 + 2 * i] as f64 + window / f64::from(quota) - window
            };
            let tightest = windows
                .iter()
                .enumerate()
                .map(|(i, (name, quota, secs))| (*name, wait_us(i, quota.get(), *secs)))
                .fold(("", f64::MIN), |best, w| if w.1 > best.1 { w } else { best })
                .0;
            lease.denied_until = Some(now + retry);
            lease.denied_window = tightest;
            lease.tokens = 0;
            return Ok(KeyDecision::Denied(lease.denied(retry)));
        }
        // The tightest window as the local limiter picks it: least remaining, first on ties.
        let tightest = per_window.fold(("", u32::MAX, Duration::ZERO), |best, w| if w.1 < best.1 { w } else { best });
        if lease.expires <= now {
            // What an earlier lease left unspent has lapsed.
            lease.tokens = 0;
        }
        lease.tokens = lease.tokens.saturating_add(granted - 1);
        lease.expires = now + LEASE_TTL;
        lease.denied_until = None;
        lease.snapshot = tightest;
        lease.taken = now;
        Ok(KeyDecision::Allowed(lease.allowed(now)))
    }

    /// Runs the key script: `want` tokens of every window of `limits`, or none.
    async fn ask_for_tokens(&self, key: Uuid, limits: KeyLimits, want: u32) -> Result<Vec<i64>, Unreachable> {
        if !self.may_call() {
            return Err(Unreachable);
        }
        let windows: Vec<_> = limits.windows().collect();
        let mut call = self.key_script.key(format!("{}:rl:key:{key}", self.options.key_prefix));
        call.arg(want);
        for (_, quota, secs) in &windows {
            call.arg(format!("{secs}:{quota}")).arg(quota.get()).arg(secs);
        }
        let mut redis = self.redis.clone();
        let reply = tokio::time::timeout(self.options.timeout, call.invoke_async::<Vec<i64>>(&mut redis)).await;
        let reply = self
            .record(reply.map_err(|_| "timed out".to_string()).and_then(|r| r.map_err(|e| e.to_string())))
            .map_err(|_| Unreachable)?;
        if reply.len() != 2 + 2 * windows.len() {
            tracing::error!(?reply, "unexpected rate-limit script reply");
            return Err(Unreachable);
        }
        Ok(reply)
    }

    /// One failed authentication of `client`: `Ok(Some(seconds))` while it
    /// cools down (not counted), `Ok(None)` once counted.
    pub async fn auth_failure(
        &self,
        client: IpAddr,
        per_minute: u32,
        cooldown: Duration,
    ) -> Result<Option<u64>, Unreachable> {
        if !self.may_call() {
            return Err(Unreachable);
        }
        let prefix = &self.options.key_prefix;
        let mut call = self.auth_script.key(format!("{prefix}:rl:authblock:{client}"));
        call.key(format!("{prefix}:rl:auth:{client}")).arg(per_minute.max(1)).arg(cooldown.as_millis().max(1) as u64);
        let mut redis = self.redis.clone();
        let reply = tokio::time::timeout(self.options.timeout, call.invoke_async::<i64>(&mut redis)).await;
        let reply = self
            .record(reply.map_err(|_| "timed out".to_string()).and_then(|r| r.map_err(|e| e.to_string())))
            .map_err(|_| Unreachable)?;
        Ok(match reply {
            left if left > 0 => Some((left as u64).div_ceil(1000)),
            -1 => {
                tracing::warn!(%client, "too many failed authentications (counted in Redis); cooling down");
                None
            }
            _ => None,
        })
    }

    /// Drops what this instance keeps of a key (revoked keys).
    pub fn forget_key(&self, key: Uuid) {
        self.leases.remove(&key);
    }

    /// Drops leases and refusals that have lapsed.
    pub fn evict_idle(&self) {
        let now = Instant::now();
        self.leases.retain(|_, l| l.expires > now || l.denied_until.is_some_and(|until| until > now));
    }

    /// False while Redis is down, except for one probing call a second.
    fn may_call(&self) -> bool {
        if !self.down.load(Ordering::Relaxed) {
            return true;
        }
        let now_ms = self.started.elapsed().as_millis() as u64;
        let next = self.next_probe_ms.load(Ordering::Relaxed);
        now_ms >= next
            && self
                .next_probe_ms
                .compare_exchange(next, now_ms + PROBE_EVERY_MS, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
    }

    /// Logs an outage once as it starts and once as it ends.
    fn record<T>(&self, outcome: Result<T, String>) -> Result<T, ()> {
        match outcome {
            Ok(value) => {
                self.failures_in_a_row.store(0, Ordering::Relaxed);
                if self.down.swap(false, Ordering::Relaxed) {
                    tracing::info!("Redis answers again: rate limits are shared across instances again");
                }
                Ok(value)
            }
            Err(error) => {
                if self.failures_in_a_row.fetch_add(1, Ordering::Relaxed) + 1 < FAILURES_FOR_OUTAGE {
                    tracing::debug!(%error, "a Redis call failed; this request counts per instance");
                    return Err(());
                }
                let now_ms = self.started.elapsed().as_millis() as u64;
                self.next_probe_ms.store(now_ms + PROBE_EVERY_MS, Ordering::Relaxed);
                if !self.down.swap(true, Ordering::Relaxed) {
                    let fallback = if self.options.fail_open {
                        "limits are counted per instance"
                    } else {
                        "limited keys are refused with 503"
                    };
                    tracing::error!(%error, "Redis unreachable: {fallback} until it answers again");
                }
                Err(())
            }
        }
    }
}

impl KeyLease {
    fn new(limits: KeyLimits, now: Instant) -> Self {
        Self {
            limits,
            policy: limits.policy(),
            denied_until: None,
            denied_window: "",
            tokens: 0,
            expires: now,
            batch: 1,
            asking_since: None,
            snapshot: ("", 0, Duration::ZERO),
            taken: now,
        }
    }

    /// A refusal still in force, or a leased token.
    fn answer_locally(&mut self, now: Instant, asking: bool) -> Option<KeyDecision> {
        if let Some(until) = self.denied_until {
            if until > now {
                return Some(KeyDecision::Denied(self.denied(until - now)));
            }
            if asking {
                // The refusal just lapsed and one request is asking Redis for
                // the token that came back: the others would be refused there.
                return Some(KeyDecision::Denied(self.denied(Duration::from_millis(1))));
            }
        }
        if self.tokens > 0 && self.expires > now {
            self.tokens -= 1;
            return Some(KeyDecision::Allowed(self.allowed(now)));
        }
        None
    }

    /// Doubles the next batch when the last lease was spent before it lapsed
    /// (a busy key), halves it otherwise; at most 1/LEASE_SHARE of the smallest quota.
    fn adapt_batch(&mut self, now: Instant) {
        let most = self.limits.windows().map(|(_, q, _)| q.get() / LEASE_SHARE).min().unwrap_or(1).max(1);
        let batch = if self.tokens == 0 && self.expires > now {
            self.batch.saturating_mul(2)
        } else if self.tokens > 0 {
            self.batch / 2
        } else {
            self.batch
        };
        self.batch = batch.clamp(1, most);
    }

    fn allowed(&self, now: Instant) -> RateLimitStatus {
        let (tightest, remaining, reset) = self.snapshot;
        let reset = reset.saturating_sub(now - self.taken);
        RateLimitStatus {
            policy: Arc::clone(&self.policy),
            tightest,
            // Leased tokens are still the client's to spend.
            remaining: remaining.saturating_add(self.tokens),
            reset_secs: whole_seconds(reset),
            retry_after_secs: None,
        }
    }

    fn denied(&self, retry: Duration) -> RateLimitStatus {
        let secs = whole_seconds(retry).max(1);
        RateLimitStatus {
            policy: Arc::clone(&self.policy),
            tightest: self.denied_window,
            remaining: 0,
            reset_secs: secs,
            retry_after_secs: Some(secs),
        }
    }
}

fn whole_seconds(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}
