//! Privacy-first analytics. No cookies, no personal data, no address stored:
//! a visitor is `SHA-256(salt ‖ site ‖ address ‖ user agent)`, where the salt
//! is random, made per UTC day, shared by the instances through the database
//! and deleted when the day is over, so hashes of two days cannot be linked
//! and nobody (operator included) can recompute them later. Of the referrer
//! only the domain is kept.

use std::collections::{BTreeMap, HashMap, HashSet};

use sea_orm::sea_query::Expr;
use std::net::IpAddr;

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use chrono::{DateTime, Duration, Utc};
use plinth_entities::{analytics_daily, analytics_event, server_secret};
use sea_orm::{
    ActiveValue::{NotSet, Set},
    ColumnTrait, EntityTrait, ExprTrait, QueryFilter, QuerySelect,
};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::model::{
    AggregateResult, AnalyticsReport, ContentViews, DayViews, PageReport, PageReportQuery, PageviewInput,
    ReferrerViews, ReportQuery,
};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::state::AppState;

/// Pageviews written per statement.
const BATCH: usize = 500;
/// Waiting pageviews past which a request starts a write at once.
pub const FLUSH_AT: usize = 2_000;
const SITE_TOTAL: &str = "*";
const SALT_PREFIX: &str = "analytics_salt:";
/// Ten years: more is a typo, and would overflow date arithmetic.
pub const MAX_RETENTION_DAYS: u32 = 3650;

pub async fn require_enabled(state: &AppState, site_id: Uuid) -> ApiResult<()> {
    if state.site_state(site_id).await?.settings.analytics_enabled {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::AnalyticsNotEnabled,
            "analytics are not enabled for this site (analytics_enabled)",
        ))
    }
}

fn day_of(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d").to_string()
}

/// Today's salt: cached in memory, otherwise read or made in the database
/// (the first instance to ask makes it), older days' salts deleted.
async fn salt(state: &AppState, day: &str) -> ApiResult<[u8; 32]> {
    if let Some(salt) = state.pageviews.salt_for(day) {
        return Ok(salt);
    }
    let name = format!("{SALT_PREFIX}{day}");
    let fresh: [u8; 32] = rand::random();
    server_secret::Entity::insert(server_secret::ActiveModel {
        name: Set(name.clone()),
        value: Set(B64.encode(fresh)),
    })
    .on_conflict_do_nothing_on([server_secret::Column::Name])
    .exec(&state.db)
    .await?;
    let stored = server_secret::Entity::find_by_id(name.clone()).one(&state.db).await?;
    let salt = stored
        .and_then(|s| B64.decode(s.value).ok())
        .and_then(|b| <[u8; 32]>::try_from(b.as_slice()).ok())
        .ok_or_else(|| ApiError::internal("the analytics salt is unreadable"))?;
    server_secret::Entity::delete_many()
        .filter(server_secret::Column::Name.starts_with(SALT_PREFIX))
        .filter(server_secret::Column::Name.ne(name))
        .exec(&state.db)
        .await?;
    state.pageviews.set_salt(day.to_string(), salt);
    Ok(salt)
}

fn referrer_domain(raw: Option<&str>) -> Option<String> {
    let url = url::Url::parse(raw?.trim()).ok()?;
    url.host_str().map(|h| h.trim_start_matches("www.").to_ascii_lowercase())
}

/// Queues one pageview; answers at once (the write happens in a batch).
pub async fn record(
    state: &AppState,
    site_id: Uuid,
    client: IpAddr,
    user_agent: &str,
    input: PageviewInput,
) -> ApiResult<()> {
    let path = input.path.trim();
    if path.is_empty() || path.chars().count() > 2048 {
        return Err(ApiError::validation(vec![FieldError::new(
            "path",
            ErrorCode::ValidationOutOfRange,
            "must be 1 to 2048 characters",
        )]));
    }
    let now = state.clock.now();
    let day = day_of(now);
    let salt = salt(state, &day).await?;
    let mut hasher = Sha256::new();
    hasher.update(salt);
    hasher.update(site_id.as_bytes());
    hasher.update(client.to_string().as_bytes());
    hasher.update([0]);
    hasher.update(user_agent.as_bytes());
    let visitor_hash = hex::encode(&hasher.finalize()[..16]);
    let waiting = state.pageviews.push(analytics_event::ActiveModel {
        id: NotSet,
        site_id: Set(site_id),
        path: Set(path.to_string()),
        referrer_domain: Set(referrer_domain(input.referrer.as_deref())),
        visitor_hash: Set(visitor_hash),
        day: Set(day),
        occurred_at: Set(now),
    });
    if waiting >= FLUSH_AT {
        let db = state.db.clone();
        let rows = state.pageviews.take();
        actix_web::rt::spawn(async move {
            if let Err(e) = write(&db, rows).await {
                tracing::warn!(error = %e, "pageviews lost in a batch write");
            }
        });
    }
    Ok(())
}

async fn write(db: &crate::db::Db, rows: Vec<analytics_event::ActiveModel>) -> Result<usize, sea_orm::DbErr> {
    let count = rows.len();
    // Through the write queue like every other writer: on SQLite a raw
    // transaction would ask for the lock beside the queue, not in it.
    let txn = crate::db::begin_unaudited(db, "pageview counters").await?;
    let mut rows = rows.into_iter().peekable();
    while rows.peek().is_some() {
        let batch: Vec<_> = rows.by_ref().take(BATCH).collect();
        analytics_event::Entity::insert_many(batch).exec(&txn).await?;
    }
    txn.commit().await?;
    Ok(count)
}

/// Writes every waiting pageview (every second, and on shutdown); a failed
/// write keeps them for the next pass.
pub async fn flush_pageviews(state: &AppState) -> ApiResult<usize> {
    let rows = state.pageviews.take();
    if rows.is_empty() {
        return Ok(0);
    }
    let kept = rows.clone();
    match write(&state.db, rows).await {
        Ok(n) => Ok(n),
        Err(e) => {
            state.pageviews.restore(kept);
            Err(e.into())
        }
    }
}

/// `(day, path) → (views, unique visitors)` of raw pageviews, and per day
/// under `*`: two grouped queries, whatever the number of pageviews.
async fn raw_counts(
    state: &AppState,
    site_id: Uuid,
    days: Option<&[String]>,
    from: &str,
    path: Option<&str>,
) -> ApiResult<BTreeMap<(String, String), (u64, u64)>> {
    let base = || {
        let mut select = analytics_event::Entity::find()
            .select_only()
            .column(analytics_event::Column::Day)
            .filter(analytics_event::Column::SiteId.eq(site_id))
            .filter(analytics_event::Column::Day.gte(from));
        if let Some(days) = days {
            select = select.filter(analytics_event::Column::Day.is_in(days.to_vec()));
        }
        if let Some(path) = path {
            select = select.filter(analytics_event::Column::Path.eq(path));
        }
        select
    };
    let views = || Expr::col(analytics_event::Column::Id).count();
    let uniques = || Expr::cust("COUNT(DISTINCT visitor_hash)");
    let per_path: Vec<(String, String, i64, i64)> = base()
        .column(analytics_event::Column::Path)
        .column_as(views(), "views")
        .column_as(uniques(), "uniques")
        .group_by(analytics_event::Column::Day)
        .group_by(analytics_event::Column::Path)
        .into_tuple()
        .all(&state.db)
        .await?;
    let per_day: Vec<(String, i64, i64)> = base()
        .column_as(views(), "views")
        .column_as(uniques(), "uniques")
        .group_by(analytics_event::Column::Day)
        .into_tuple()
        .all(&state.db)
        .await?;
    let count = |n: i64| u64::try_from(n).unwrap_or(0);
    let mut counts = BTreeMap::new();
    for (day, path, v, u) in per_path {
        counts.insert((day, path), (count(v), count(u)));
    }
    for (day, v, u) in per_day {
        counts.insert((day, SITE_TOTAL.to_string()), (count(v), count(u)));
    }
    Ok(counts)
}

fn check_days(days: u32, errors: &mut Vec<FieldError>) {
    if !(1..=365).contains(&days) {
        errors.push(FieldError::new("days", ErrorCode::ValidationOutOfRange, "must be 1 to 365"));
    }
}

/// `(day, path) → (views, unique visitors)` of the period starting at `from`
/// (of one path, or every path and `*`): rolled-up days from the rollups,
/// the others from raw pageviews.
async fn period_counts(
    state: &AppState,
    site_id: Uuid,
    from: &str,
    path: Option<&str>,
) -> ApiResult<BTreeMap<(String, String), (u64, u64)>> {
    let mut rolled = analytics_daily::Entity::find()
        .filter(analytics_daily::Column::SiteId.eq(site_id))
        .filter(analytics_daily::Column::Day.gte(from));
    if let Some(path) = path {
        rolled = rolled.filter(analytics_daily::Column::Path.eq(path));
    }
    let rolled: Vec<analytics_daily::Model> = rolled.all(&state.db).await?;
    let rolled_days: HashSet<&str> = rolled.iter().map(|r| r.day.as_str()).collect();
    let mut counts: BTreeMap<(String, String), (u64, u64)> = raw_counts(state, site_id, None, from, path)
        .await?
        .into_iter()
        .filter(|((day, _), _)| !rolled_days.contains(day.as_str()))
        .collect();
    for r in &rolled {
        counts.insert((r.day.clone(), r.path.clone()), (r.views as u64, r.unique_visitors as u64));
    }
    Ok(counts)
}

/// Every day of the `days` ending today, oldest first, from `by_day`.
fn trend_of(today: DateTime<Utc>, days: u32, by_day: &HashMap<String, (u64, u64)>) -> Vec<DayViews> {
    (0..i64::from(days))
        .rev()
        .map(|back| {
            let date = day_of(today - Duration::days(back));
            let (total_views, unique_visitors) = by_day.get(&date).copied().unwrap_or_default();
            DayViews { date, total_views, unique_visitors }
        })
        .collect()
}

/// One path's views per day and its referring domains.
pub async fn page_report(state: &AppState, site_id: Uuid, query: PageReportQuery) -> ApiResult<PageReport> {
    let days = query.days.unwrap_or(30);
    let path = query.path.trim().to_string();
    let mut errors = Vec::new();
    check_days(days, &mut errors);
    if path.is_empty() || path.chars().count() > 2048 {
        errors.push(FieldError::new("path", ErrorCode::ValidationOutOfRange, "must be 1 to 2048 characters"));
    }
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    flush_pageviews(state).await?;
    let today = state.clock.now();
    let from = day_of(today - Duration::days(i64::from(days) - 1));
    let by_day: HashMap<String, (u64, u64)> = period_counts(state, site_id, &from, Some(&path))
        .await?
        .into_iter()
        .filter(|((_, counted), _)| *counted == path)
        .map(|((day, _), counts)| (day, counts))
        .collect();
    let trend = trend_of(today, days, &by_day);
    let referrers: Vec<(String, i64)> = analytics_event::Entity::find()
        .select_only()
        .column(analytics_event::Column::ReferrerDomain)
        .column_as(Expr::col(analytics_event::Column::Id).count(), "views")
        .filter(analytics_event::Column::SiteId.eq(site_id))
        .filter(analytics_event::Column::Day.gte(from))
        .filter(analytics_event::Column::Path.eq(path.as_str()))
        .filter(analytics_event::Column::ReferrerDomain.is_not_null())
        .group_by(analytics_event::Column::ReferrerDomain)
        .into_tuple()
        .all(&state.db)
        .await?;
    let mut referrers: Vec<ReferrerViews> = referrers
        .into_iter()
        .map(|(domain, views)| ReferrerViews { domain, views: u64::try_from(views).unwrap_or(0) })
        .collect();
    referrers.sort_by(|a, b| b.views.cmp(&a.views).then_with(|| a.domain.cmp(&b.domain)));
    referrers.truncate(MAX_REFERRERS);
    Ok(PageReport {
        path,
        total_views: trend.iter().map(|d| d.total_views).sum(),
        total_unique_visitors: trend.iter().map(|d| d.unique_visitors).sum(),
        trend,
        referrers,
    })
}

/// Referring domains a page report lists.
const MAX_REFERRERS: usize = 20;

pub async fn report(state: &AppState, site_id: Uuid, query: ReportQuery) -> ApiResult<AnalyticsReport> {
    let days = query.days.unwrap_or(30);
    let top_n = query.top_n.unwrap_or(10);
    let mut errors = Vec::new();
    check_days(days, &mut errors);
    if !(1..=50).contains(&top_n) {
        errors.push(FieldError::new("top_n", ErrorCode::ValidationOutOfRange, "must be 1 to 50"));
    }
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    flush_pageviews(state).await?;
    let today = state.clock.now();
    let from = day_of(today - Duration::days(i64::from(days) - 1));
    let counts = period_counts(state, site_id, &from, None).await?;
    let mut by_path: HashMap<String, (u64, u64)> = HashMap::new();
    let mut by_day: HashMap<String, (u64, u64)> = HashMap::new();
    for ((day, path), (views, uniques)) in counts {
        let target = if path == SITE_TOTAL { by_day.entry(day) } else { by_path.entry(path) }.or_default();
        target.0 += views;
        target.1 += uniques;
    }
    let mut top_content: Vec<ContentViews> = by_path
        .into_iter()
        .map(|(path, (total_views, unique_visitors))| ContentViews { path, total_views, unique_visitors })
        .collect();
    top_content.sort_by(|a, b| b.total_views.cmp(&a.total_views).then_with(|| a.path.cmp(&b.path)));
    top_content.truncate(top_n as usize);
    let trend = trend_of(today, days, &by_day);
    Ok(AnalyticsReport {
        total_views: trend.iter().map(|d| d.total_views).sum(),
        total_unique_visitors: trend.iter().map(|d| d.unique_visitors).sum(),
        top_content,
        trend,
    })
}

/// Rolls up every finished day that still has raw pageviews (replacing its
/// rollup, so running twice changes nothing), then deletes raw pageviews
/// older than `retention_days`. One transaction.
pub async fn aggregate(state: &AppState, site_id: Uuid, retention_days: u32) -> ApiResult<AggregateResult> {
    if retention_days > MAX_RETENTION_DAYS {
        return Err(ApiError::validation(vec![FieldError::new(
            "retention_days",
            ErrorCode::ValidationOutOfRange,
            format!("must be 0 to {MAX_RETENTION_DAYS}"),
        )]));
    }
    flush_pageviews(state).await?;
    let now = state.clock.now();
    let today = day_of(now);
    let days: Vec<String> = analytics_event::Entity::find()
        .select_only()
        .column(analytics_event::Column::Day)
        .distinct()
        .filter(analytics_event::Column::SiteId.eq(site_id))
        .filter(analytics_event::Column::Day.lt(today))
        .into_tuple()
        .all(&state.db)
        .await?;
    let counts =
        if days.is_empty() { BTreeMap::new() } else { raw_counts(state, site_id, Some(&days), "", None).await? };
    let txn = crate::db::begin_unaudited(&state.db, "pageview counters").await?;
    let mut affected = 0u64;
    if !days.is_empty() {
        analytics_daily::Entity::delete_many()
            .filter(analytics_daily::Column::SiteId.eq(site_id))
            .filter(analytics_daily::Column::Day.is_in(days.clone()))
            .exec(&*txn)
            .await?;
        let rows: Vec<analytics_daily::ActiveModel> = counts
            .into_iter()
            .map(|((day, path), (views, uniques))| analytics_daily::ActiveModel {
                site_id: Set(site_id),
                day: Set(day),
                path: Set(path),
                views: Set(views as i64),
                unique_visitors: Set(uniques as i64),
            })
            .collect();
        affected += rows.len() as u64;
        for batch in rows.chunks(BATCH) {
            analytics_daily::Entity::insert_many(batch.to_vec()).exec(&*txn).await?;
        }
    }
    let cutoff = now - Duration::days(i64::from(retention_days));
    let deleted = analytics_event::Entity::delete_many()
        .filter(analytics_event::Column::SiteId.eq(site_id))
        .filter(analytics_event::Column::OccurredAt.lt(cutoff))
        .exec(&*txn)
        .await?;
    affected += deleted.rows_affected;
    txn.commit().await?;
    Ok(AggregateResult {
        rows_affected: affected,
        action: format!(
            "rolled up {} day(s); deleted {} raw pageview(s) older than {retention_days} days",
            days.len(),
            deleted.rows_affected
        ),
    })
}

/// The Janitor's daily pass: every site with analytics on, default retention.
pub async fn aggregate_all(state: &AppState) -> ApiResult<usize> {
    let sites: Vec<Uuid> = analytics_event::Entity::find()
        .select_only()
        .column(analytics_event::Column::SiteId)
        .distinct()
        .into_tuple()
        .all(&state.db)
        .await?;
    for site_id in &sites {
        aggregate(state, *site_id, 90).await?;
    }
    Ok(sites.len())
}
