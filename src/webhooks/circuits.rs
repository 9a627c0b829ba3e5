//! A circuit breaker per webhook: an endpoint that keeps failing stops
//! taking send slots.
//!
//! After `[tenants] circuit_failures` consecutive failed attempts (an error,
//! a timeout or a non-2xx answer) the webhook's circuit opens: its deliveries
//! wait in the database, holding no send slot and no task, until the
//! cool-down ends. Then one delivery is sent as a probe (half-open); its
//! success closes the circuit, its failure opens it for another cool-down.
//!
//! Only real attempts count: a delivery that waits for a circuit keeps its
//! attempt count and status, so the spec's schedule (5 min, 30 min, 2 h,
//! 12 h, 48 h) and its dead rule (the 6th failed attempt) are unchanged. A
//! retry that falls due while the circuit is open is sent when the circuit
//! lets it, never earlier than the schedule says.
//!
//! Circuits live in each instance's memory: behind several instances each
//! learns an endpoint's health from its own attempts.

use std::collections::VecDeque;

use chrono::{DateTime, Utc};
use dashmap::DashMap;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::config::TenantsConfig;

/// Outcomes a circuit remembers for its success rate.
const RECENT_OUTCOMES: usize = 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CircuitState {
    /// Deliveries are sent.
    Closed,
    /// Deliveries wait until `open_until`.
    Open,
    /// One probe delivery is out; the others wait for its outcome.
    HalfOpen,
}

impl CircuitState {
    pub const ALL: [CircuitState; 3] = [CircuitState::Closed, CircuitState::Open, CircuitState::HalfOpen];

    pub fn as_str(self) -> &'static str {
        match self {
            CircuitState::Closed => "closed",
            CircuitState::Open => "open",
            CircuitState::HalfOpen => "half_open",
        }
    }
}

/// A webhook's health as its answer shows it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CircuitView {
    pub state: CircuitState,
    /// Failed attempts in a row (0 after a success).
    pub consecutive_failures: u32,
    /// When an open circuit lets a probe through.
    pub open_until: Option<DateTime<Utc>>,
    /// The last failed attempt's error.
    pub last_error: Option<String>,
    /// Successful attempts among the last 20 on this instance, 0 to 1; null
    /// before any attempt.
    pub recent_success_rate: Option<f64>,
}

#[derive(Debug)]
struct Circuit {
    state: CircuitState,
    consecutive_failures: u32,
    /// Open: until when. Half-open: when the probe went out.
    since_or_until: DateTime<Utc>,
    last_error: Option<String>,
    recent: VecDeque<bool>,
}

/// Whether a delivery may be sent now.
#[derive(Debug, PartialEq, Eq)]
pub enum Admission {
    Send,
    /// The circuit holds it: due again at this time.
    WaitUntil(DateTime<Utc>),
}

pub struct Circuits {
    failures_to_open: u32,
    cooldown: chrono::Duration,
    by_webhook: DashMap<Uuid, Circuit>,
}

impl Circuits {
    pub fn new(config: &TenantsConfig) -> Self {
        Self {
            failures_to_open: u32::try_from(config.circuit_failures.max(1)).unwrap_or(u32::MAX),
            cooldown: chrono::Duration::seconds(i64::try_from(config.circuit_cooldown_secs.max(1)).unwrap_or(60)),
            by_webhook: DashMap::new(),
        }
    }

    /// When the circuit lets its next probe through; `None` while closed.
    fn probe_due(&self, circuit: &Circuit) -> Option<DateTime<Utc>> {
        match circuit.state {
            CircuitState::Closed => None,
            CircuitState::Open => Some(circuit.since_or_until),
            CircuitState::HalfOpen => Some(circuit.since_or_until + self.cooldown),
        }
    }

    /// Asked right before a send. The first delivery after an open circuit's
    /// cool-down is its probe; a probe whose outcome never came (its process
    /// died) is replaced after another cool-down.
    pub fn admit(&self, webhook: Uuid, now: DateTime<Utc>) -> Admission {
        let Some(mut circuit) = self.by_webhook.get_mut(&webhook) else { return Admission::Send };
        match self.probe_due(&circuit) {
            None => Admission::Send,
            Some(due) if now < due => Admission::WaitUntil(due),
            Some(_) => {
                circuit.state = CircuitState::HalfOpen;
                circuit.since_or_until = now;
                Admission::Send
            }
        }
    }

    /// Whether the webhook's circuit is closed (deliveries go as they come).
    pub fn closed(&self, webhook: Uuid) -> bool {
        self.by_webhook.get(&webhook).is_none_or(|circuit| circuit.state == CircuitState::Closed)
    }

    /// Until when the circuit would hold a delivery [`admit`](Self::admit)ted
    /// now, without taking its probe: a new delivery is stored due then
    /// instead of being sent only to be held.
    pub fn holds_until(&self, webhook: Uuid, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let circuit = self.by_webhook.get(&webhook)?;
        self.probe_due(&circuit).filter(|due| now < *due)
    }

    /// Lets the next delivery through as the probe, cool-down or not (a
    /// delivery retried by hand).
    pub fn probe_now(&self, webhook: Uuid, now: DateTime<Utc>) {
        if let Some(mut circuit) = self.by_webhook.get_mut(&webhook) {
            if circuit.state != CircuitState::Closed {
                circuit.state = CircuitState::Open;
                circuit.since_or_until = now;
            }
        }
    }

    /// An attempt's outcome.
    pub fn record(&self, webhook: Uuid, success: bool, error: Option<&str>, now: DateTime<Utc>) {
        let mut circuit = self.by_webhook.entry(webhook).or_insert_with(|| Circuit {
            state: CircuitState::Closed,
            consecutive_failures: 0,
            since_or_until: now,
            last_error: None,
            recent: VecDeque::with_capacity(RECENT_OUTCOMES),
        });
        if circuit.recent.len() == RECENT_OUTCOMES {
            circuit.recent.pop_front();
        }
        circuit.recent.push_back(success);
        if success {
            circuit.state = CircuitState::Closed;
            circuit.consecutive_failures = 0;
            return;
        }
        circuit.consecutive_failures = circuit.consecutive_failures.saturating_add(1);
        circuit.last_error = error.map(str::to_owned);
        if circuit.state == CircuitState::HalfOpen || circuit.consecutive_failures >= self.failures_to_open {
            if circuit.state != CircuitState::Open {
                tracing::warn!(%webhook, failures = circuit.consecutive_failures, "webhook circuit opened: its deliveries wait for the cool-down");
                crate::observability::circuit_opened();
            }
            circuit.state = CircuitState::Open;
            circuit.since_or_until = now + self.cooldown;
        }
    }

    pub fn view(&self, webhook: Uuid) -> CircuitView {
        let Some(circuit) = self.by_webhook.get(&webhook) else {
            return CircuitView {
                state: CircuitState::Closed,
                consecutive_failures: 0,
                open_until: None,
                last_error: None,
                recent_success_rate: None,
            };
        };
        let successes = circuit.recent.iter().filter(|ok| **ok).count();
        CircuitView {
            state: circuit.state,
            consecutive_failures: circuit.consecutive_failures,
            open_until: (circuit.state == CircuitState::Open).then_some(circuit.since_or_until),
            last_error: circuit.last_error.clone(),
            recent_success_rate: (!circuit.recent.is_empty()).then(|| successes as f64 / circuit.recent.len() as f64),
        }
    }

    /// Webhooks per circuit state (closed counts only those with a history).
    pub fn counts(&self) -> [(CircuitState, i64); 3] {
        CircuitState::ALL
            .map(|state| (state, self.by_webhook.iter().filter(|entry| entry.value().state == state).count() as i64))
    }

    /// Its webhook was deleted.
    pub fn forget(&self, webhook: Uuid) {
        self.by_webhook.remove(&webhook);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn circuits() -> Circuits {
        Circuits::new(&TenantsConfig { circuit_failures: 3, circuit_cooldown_secs: 60, ..TenantsConfig::default() })
    }

    #[test]
    fn failures_in_a_row_open_it_and_one_probe_after_the_cool_down_closes_it() {
        let circuits = circuits();
        let (hook, t0) = (Uuid::new_v4(), Utc::now());
        for _ in 0..2 {
            circuits.record(hook, false, Some("timed out"), t0);
        }
        assert_eq!(circuits.admit(hook, t0), Admission::Send, "two failures: still closed");
        circuits.record(hook, false, Some("timed out"), t0);
        let until = t0 + chrono::Duration::seconds(60);
        assert_eq!(circuits.admit(hook, t0), Admission::WaitUntil(until));
        let view = circuits.view(hook);
        assert_eq!(
            (view.state, view.open_until, view.last_error.as_deref()),
            (CircuitState::Open, Some(until), Some("timed out"))
        );
        assert_eq!(view.recent_success_rate, Some(0.0));

        assert_eq!(circuits.admit(hook, until), Admission::Send, "the probe");
        assert_eq!(circuits.view(hook).state, CircuitState::HalfOpen);
        assert!(matches!(circuits.admit(hook, until), Admission::WaitUntil(_)), "one probe at a time");
        circuits.record(hook, true, None, until);
        assert_eq!(circuits.view(hook).state, CircuitState::Closed);
        assert_eq!(circuits.admit(hook, until), Admission::Send);
        assert_eq!(circuits.view(hook).recent_success_rate, Some(0.25));
    }

    #[test]
    fn asking_how_long_it_holds_takes_no_probe() {
        let circuits = circuits();
        let (hook, t0) = (Uuid::new_v4(), Utc::now());
        assert_eq!((circuits.holds_until(hook, t0), circuits.closed(hook)), (None, true), "never failed");
        for _ in 0..3 {
            circuits.record(hook, false, None, t0);
        }
        let until = t0 + chrono::Duration::seconds(60);
        assert_eq!((circuits.holds_until(hook, t0), circuits.closed(hook)), (Some(until), false));
        assert_eq!(circuits.holds_until(hook, until), None, "its probe is due");
        assert_eq!(circuits.holds_until(hook, until), None, "and still is: asking took nothing");
        assert_eq!(circuits.admit(hook, until), Admission::Send, "the probe is still there to take");
        assert_eq!(circuits.holds_until(hook, until), Some(until + chrono::Duration::seconds(60)));
    }

    #[test]
    fn a_failed_probe_opens_it_again_and_a_success_resets_the_count() {
        let circuits = circuits();
        let (hook, t0) = (Uuid::new_v4(), Utc::now());
        circuits.record(hook, false, None, t0);
        circuits.record(hook, false, None, t0);
        circuits.record(hook, true, None, t0);
        circuits.record(hook, false, None, t0);
        assert_eq!(circuits.view(hook).consecutive_failures, 1, "a success starts the count again");
        for _ in 0..2 {
            circuits.record(hook, false, None, t0);
        }
        let probe_at = t0 + chrono::Duration::seconds(60);
        assert_eq!(circuits.admit(hook, probe_at), Admission::Send);
        circuits.record(hook, false, Some("connection failed"), probe_at);
        assert_eq!(
            circuits.admit(hook, probe_at),
            Admission::WaitUntil(probe_at + chrono::Duration::seconds(60)),
            "open for another cool-down"
        );
    }
}
