//! Wire shapes of analytics.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// A pageview as a site's front end reports it.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct PageviewInput {
    /// The viewed path: 1 to 2048 characters (trimmed).
    #[schema(min_length = 1, max_length = 2048)]
    pub path: String,
    /// Only its domain is kept.
    pub referrer: Option<String>,
    /// Accepted and ignored: the server computes its own visitor hash.
    pub user_agent_hash: Option<String>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PageviewAccepted {
    /// Always true: the view was accepted.
    pub ok: bool,
}

#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ReportQuery {
    /// 1 to 365 (default 30), ending today.
    #[param(minimum = 1, maximum = 365)]
    pub days: Option<u32>,
    /// 1 to 50 (default 10).
    #[param(minimum = 1, maximum = 50)]
    pub top_n: Option<u32>,
}

#[derive(Clone, Debug, Serialize, ToSchema, PartialEq, Eq)]
pub struct ContentViews {
    /// The page path.
    pub path: String,
    /// Views in the period.
    pub total_views: u64,
    /// Sum of each day's unique visitors.
    pub unique_visitors: u64,
}

#[derive(Clone, Debug, Serialize, ToSchema, PartialEq, Eq)]
pub struct DayViews {
    /// `YYYY-MM-DD` (UTC).
    pub date: String,
    /// Views that day.
    pub total_views: u64,
    /// Distinct visitors that day.
    pub unique_visitors: u64,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AnalyticsReport {
    /// Views in the period.
    pub total_views: u64,
    /// The sum of each day's unique visitors: visitor hashes change daily by
    /// design, so one person on two days counts twice.
    pub total_unique_visitors: u64,
    /// The most viewed paths, most first.
    pub top_content: Vec<ContentViews>,
    /// Every day of the period, oldest first (days without views show 0).
    pub trend: Vec<DayViews>,
}

/// One path's traffic (the origin admin's page detail).
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageReportQuery {
    /// The path, as pageviews report it: 1 to 2048 characters (trimmed).
    #[param(min_length = 1, max_length = 2048)]
    pub path: String,
    /// 1 to 365 (default 30), ending today.
    #[param(minimum = 1, maximum = 365)]
    pub days: Option<u32>,
}

#[derive(Clone, Debug, Serialize, ToSchema, PartialEq, Eq)]
pub struct ReferrerViews {
    /// The referring site's domain.
    pub domain: String,
    /// Views it sent to the path in the period.
    pub views: u64,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PageReport {
    pub path: String,
    /// Views of the path in the period.
    pub total_views: u64,
    /// The sum of each day's unique visitors of the path.
    pub total_unique_visitors: u64,
    /// Every day of the period, oldest first.
    pub trend: Vec<DayViews>,
    /// The domains that sent the most views (20 at most, most first), from the
    /// pageviews still kept raw (90 days unless a rollup says otherwise).
    pub referrers: Vec<ReferrerViews>,
}

#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AggregateQuery {
    /// Raw pageviews older than this many days are deleted after the rollup (default 90, at most 3650).
    #[param(maximum = 3650)]
    pub retention_days: Option<u32>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AggregateResult {
    /// Rollup rows written plus raw pageviews deleted.
    pub rows_affected: u64,
    /// What was done, in words.
    pub action: String,
}
