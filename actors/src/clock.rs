//! Time as the application sees it. Production reads the system clock; tests
//! move a [`ShiftedClock`] forward instead of sleeping.

use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, Duration, SubsecRound, Utc};

/// Times are whole microseconds, what both databases store: an answer built
/// from a row as written equals the next read of it, so both hash to the same
/// `ETag` (a conditional write's answer carries the tag its next `GET` gives).
pub trait Clock: Send + Sync {
    fn now(&self) -> DateTime<Utc>;
}

pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now().trunc_subsecs(6)
    }
}

/// The system clock plus an offset that only grows.
#[derive(Default)]
pub struct ShiftedClock {
    offset_ms: AtomicI64,
}

impl ShiftedClock {
    pub fn advance(&self, by: Duration) {
        self.offset_ms.fetch_add(by.num_milliseconds(), Ordering::SeqCst);
    }
}

impl Clock for ShiftedClock {
    fn now(&self) -> DateTime<Utc> {
        (Utc::now() + Duration::milliseconds(self.offset_ms.load(Ordering::SeqCst))).trunc_subsecs(6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shifted_clock_runs_ahead() {
        let clock = ShiftedClock::default();
        clock.advance(Duration::hours(2));
        let ahead = clock.now() - Utc::now();
        assert!(ahead > Duration::minutes(119) && ahead <= Duration::hours(2));
    }
}
