//! Privacy-first analytics of a site (see `service` for what is kept and
//! why): pageviews, reports, and the daily rollup. Everything answers
//! ANALYTICS_NOT_ENABLED (403) while `analytics_enabled` is off.

mod model;
pub mod service;

pub use model::*;
pub use service::{aggregate_all, flush_pageviews};

use actix_web::web::{self};
use actix_web::{HttpRequest, HttpResponse};
use uuid::Uuid;

use crate::auth::{client_address, Capability, Principal};
use crate::error::{ApiResult, Problem};
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [record_pageview, analytics_report, analytics_page_report, aggregate_analytics]);
}

/// Record a page view
///
/// Read role or higher on the site. No cookies, no personal data, no raw IP stored. Errors: ANALYTICS_NOT_ENABLED,
/// VALIDATION_ERROR.
#[utoipa::path(post, path = "/sites/{site_id}/analytics/pageview", tag = "Analytics", params(("site_id" = Uuid, Path)),
    request_body = PageviewInput,
    responses(
        (status = 201, body = PageviewAccepted, description = "Queued; written in a batch within a second"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "ANALYTICS_NOT_ENABLED")
    ))]
pub async fn record_pageview(
    state: web::Data<AppState>,
    principal: Principal,
    request: HttpRequest,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<PageviewInput>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    service::require_enabled(&state, site_id).await?;
    let user_agent = request.headers().get("user-agent").and_then(|v| v.to_str().ok()).unwrap_or_default();
    service::record(&state, site_id, client_address(&request), user_agent, body.into_inner()).await?;
    Ok(HttpResponse::Created().json(PageviewAccepted { ok: true }))
}

/// Report a site's traffic
///
/// Read role or higher on the site. Errors: ANALYTICS_NOT_ENABLED, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(get, path = "/sites/{site_id}/analytics/report", tag = "Analytics", params(("site_id" = Uuid, Path), ReportQuery),
    responses((status = 200, body = AnalyticsReport)))]
pub async fn analytics_report(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<ReportQuery>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    service::require_enabled(&state, site_id).await?;
    crate::state::responses::depends_on_time();
    Ok(HttpResponse::Ok().json(service::report(&state, site_id, query.into_inner()).await?))
}

/// Report one path's traffic
///
/// Read role or higher on the site. The origin service's page detail: the path's views and unique visitors per day
/// and the domains that sent them. Errors: ANALYTICS_NOT_ENABLED, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(get, path = "/sites/{site_id}/analytics/report/page", tag = "Analytics",
    params(("site_id" = Uuid, Path), PageReportQuery), responses((status = 200, body = PageReport)))]
pub async fn analytics_page_report(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<PageReportQuery>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    service::require_enabled(&state, site_id).await?;
    crate::state::responses::depends_on_time();
    Ok(HttpResponse::Ok().json(service::page_report(&state, site_id, query.into_inner()).await?))
}

/// Roll up a site's page views
///
/// Admin role or higher on the site. Idempotent: rolls raw events into daily aggregates, then deletes raw events older
/// than `retention_days`. Errors: ANALYTICS_NOT_ENABLED, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(post, path = "/sites/{site_id}/analytics/aggregate", tag = "Analytics", params(("site_id" = Uuid, Path), AggregateQuery),
    responses((status = 200, body = AggregateResult, description = "Finished days rolled up (idempotent), raw pageviews past retention deleted (Admin)")))]
pub async fn aggregate_analytics(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<AggregateQuery>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    service::require_enabled(&state, site_id).await?;
    let retention = query.retention_days.unwrap_or(90);
    Ok(HttpResponse::Ok().json(service::aggregate(&state, site_id, retention).await?))
}
