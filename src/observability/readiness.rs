//! Whether this process should be sent traffic: not before migrations ran and
//! the actors started, not once it began draining on SIGTERM.

use std::sync::atomic::{AtomicU8, Ordering};

const STARTING: u8 = 0;
const READY: u8 = 1;
const DRAINING: u8 = 2;

#[derive(Debug)]
pub struct Readiness(AtomicU8);

impl Default for Readiness {
    fn default() -> Self {
        Self(AtomicU8::new(STARTING))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Migrations or actors not yet done.
    Starting,
    Ready,
    /// Stopping: in-flight requests finish, new traffic should go elsewhere.
    Draining,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Starting => "starting",
            Phase::Ready => "ready",
            Phase::Draining => "draining",
        }
    }
}

impl Readiness {
    /// Migrations ran and the actors started. Never undoes draining.
    pub fn mark_started(&self) {
        let _ = self.0.compare_exchange(STARTING, READY, Ordering::AcqRel, Ordering::Acquire);
    }

    /// A stop was asked for: from now on, never ready again.
    pub fn start_draining(&self) {
        self.0.store(DRAINING, Ordering::Release);
    }

    pub fn phase(&self) -> Phase {
        match self.0.load(Ordering::Acquire) {
            STARTING => Phase::Starting,
            READY => Phase::Ready,
            _ => Phase::Draining,
        }
    }

    pub fn is_ready(&self) -> bool {
        self.phase() == Phase::Ready
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ready_only_between_start_and_drain() {
        let readiness = Readiness::default();
        assert_eq!(readiness.phase(), Phase::Starting);
        readiness.mark_started();
        assert!(readiness.is_ready());
        readiness.start_draining();
        readiness.mark_started();
        assert_eq!(readiness.phase(), Phase::Draining, "a drain is never undone");
    }
}
