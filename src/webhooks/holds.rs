//! How long the webhook workers hold the database's write lock: on SQLite every
//! other writer waits that long, so the figures are kept (and printed by the
//! webhooks benchmark).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

#[derive(Default)]
pub struct WriteHolds {
    count: AtomicU64,
    total_us: AtomicU64,
    max_us: AtomicU64,
}

/// Transactions, mean and longest hold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HoldFigures {
    pub transactions: u64,
    pub mean: Duration,
    pub max: Duration,
}

impl WriteHolds {
    pub fn record(&self, held: Duration) {
        let micros = u64::try_from(held.as_micros()).unwrap_or(u64::MAX);
        self.count.fetch_add(1, Ordering::Relaxed);
        self.total_us.fetch_add(micros, Ordering::Relaxed);
        self.max_us.fetch_max(micros, Ordering::Relaxed);
    }

    /// The figures so far, and a fresh start.
    pub fn take(&self) -> HoldFigures {
        let transactions = self.count.swap(0, Ordering::Relaxed);
        let total = self.total_us.swap(0, Ordering::Relaxed);
        let max = self.max_us.swap(0, Ordering::Relaxed);
        HoldFigures {
            transactions,
            mean: Duration::from_micros(total.checked_div(transactions).unwrap_or(0)),
            max: Duration::from_micros(max),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_mean_and_max_then_start_again() {
        let holds = WriteHolds::default();
        holds.record(Duration::from_micros(100));
        holds.record(Duration::from_micros(300));
        let figures = holds.take();
        assert_eq!(
            (figures.transactions, figures.mean, figures.max),
            (2, Duration::from_micros(200), Duration::from_micros(300))
        );
        assert_eq!(holds.take().transactions, 0);
    }
}
