//! Plinth's long-lived actors. Each actor owns configuration and
//! periodic work; whatever the request path must read is shared lock-free
//! (`DashMap`, `governor` state) so a hot read never waits on a mailbox.

pub mod clock;
pub mod fair_share;
pub mod key_usage;
pub mod media_pool;
pub mod periodic;
pub mod rate_limiter;
pub mod shared_limits;
pub mod site_registry;
pub mod site_supervisor;

pub use clock::{Clock, ShiftedClock, SystemClock};
pub use fair_share::{FairShare, Occupancy, Permit, Policy};
pub use key_usage::{FlushUsage, KeyUsageCounters, KeyUsageRecorder};
pub use periodic::{Periodic, RunNow, Task};
pub use rate_limiter::{
    AuthFailureTracker, ClientQuota, KeyDecision, KeyLimits, RateLimitStatus, RateLimitTrackers, RateLimiter,
};
pub use shared_limits::{SharedLimits, SharedLimitsOptions};
pub use site_registry::{InvalidateSite, SiteCache, SiteRegistry};
pub use site_supervisor::{SiteHotState, SiteSupervisors, Work};
