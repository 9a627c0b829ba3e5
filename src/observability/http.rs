//! Requests by route template, method and status class, with their latency.
//!
//! The hot path: the route template actix matched (never the raw path, so ids
//! do not multiply the series: for API routes the resource's name, its
//! documented path, read without allocating; for the few others
//! `match_pattern`), one read lock on a map of interned templates, and one
//! histogram observation (four atomic updates). A series is created, once, the
//! first time its route, method and class occur.

use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use actix_web::http::{Method, StatusCode};
use prometheus::{Histogram, HistogramOpts, HistogramVec, IntCounterVec, Opts, Registry};

/// The route label of a request no route matched (a 404 from the fallback).
pub const UNMATCHED: &str = "unmatched";
/// The route label of a request that failed with no answer left to read its
/// route from (a panic contained by `app::tenant_scope`, answered 500).
pub const FAILED: &str = "failed";

/// Upper bounds in seconds: from a cached read (well under a millisecond) to
/// an upload or an export (seconds).
const LATENCY_BUCKETS: [f64; 14] =
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

const METHODS: [&str; 8] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "OTHER"];
const CLASSES: [&str; 5] = ["1xx", "2xx", "3xx", "4xx", "5xx"];

fn method_index(method: &Method) -> usize {
    match *method {
        Method::GET => 0,
        Method::HEAD => 1,
        Method::POST => 2,
        Method::PUT => 3,
        Method::PATCH => 4,
        Method::DELETE => 5,
        Method::OPTIONS => 6,
        _ => 7,
    }
}

fn class_index(status: StatusCode) -> usize {
    usize::from(status.as_u16() / 100).clamp(1, CLASSES.len()) - 1
}

/// Where the API's routes are mounted; their resources are named by their
/// documented path below it.
pub const API_PREFIX: &str = "/api/v1";

/// The route a request matched, as the middleware finds it without allocating
/// for API routes.
#[derive(Clone, Copy, Debug)]
pub enum Route<'a> {
    /// An API resource, by its documented path below [`API_PREFIX`] (its name).
    Api(&'a str),
    /// Any other resource, by its full pattern.
    Other(&'a str),
    /// No route matched.
    Unmatched,
    /// Failed before an answer was made (see [`FAILED`]).
    Failed,
}

impl Route<'_> {
    /// The label: the full route template.
    pub fn label(self) -> String {
        match self {
            Route::Api(path) => [API_PREFIX, path].concat(),
            Route::Other(pattern) => pattern.to_string(),
            Route::Unmatched => UNMATCHED.to_string(),
            Route::Failed => FAILED.to_string(),
        }
    }
}

/// One route's series, by method and status class, created on first use.
struct RouteSeries {
    label: String,
    by_method: [[OnceLock<Histogram>; CLASSES.len()]; METHODS.len()],
}

type Routes = RwLock<HashMap<String, RouteSeries>>;

pub struct RequestMetrics {
    duration: HistogramVec,
    rate_limited: IntCounterVec,
    /// API routes by documented path, the others by pattern: two maps, since
    /// the API's `/` and the server's `/` are different routes.
    api_routes: Routes,
    other_routes: Routes,
}

impl RequestMetrics {
    pub(super) fn new(registry: &Registry) -> prometheus::Result<Self> {
        let duration = HistogramVec::new(
            HistogramOpts::new(
                "plinth_http_request_duration_seconds",
                "Time from the request's arrival to its response, by route template, method and status class; \
                 its _count is the number of requests.",
            )
            .buckets(LATENCY_BUCKETS.to_vec()),
            &["route", "method", "status"],
        )?;
        let rate_limited = IntCounterVec::new(
            Opts::new(
                "plinth_rate_limit_rejections_total",
                "Requests refused with 429 by a rate limit, by error code and route template.",
            ),
            &["code", "route"],
        )?;
        registry.register(Box::new(duration.clone()))?;
        registry.register(Box::new(rate_limited.clone()))?;
        Ok(Self { duration, rate_limited, api_routes: Routes::default(), other_routes: Routes::default() })
    }

    /// Records one answered request.
    pub fn observe(&self, route: Route<'_>, method: &Method, status: StatusCode, seconds: f64) {
        let (routes, key) = match route {
            Route::Api(path) => (&self.api_routes, path),
            Route::Other(pattern) => (&self.other_routes, pattern),
            Route::Unmatched => (&self.other_routes, UNMATCHED),
            Route::Failed => (&self.other_routes, FAILED),
        };
        let (method, class) = (method_index(method), class_index(status));
        {
            let routes = routes.read().unwrap_or_else(|e| e.into_inner());
            if let Some(series) = routes.get(key) {
                self.series(series, method, class).observe(seconds);
                return;
            }
        }
        let mut routes = routes.write().unwrap_or_else(|e| e.into_inner());
        let series = routes
            .entry(key.to_string())
            .or_insert_with(|| RouteSeries { label: route.label(), by_method: Default::default() });
        self.series(series, method, class).observe(seconds);
    }

    fn series<'a>(&self, series: &'a RouteSeries, method: usize, class: usize) -> &'a Histogram {
        // Three labels, as declared: `with_label_values` cannot refuse them.
        series.by_method[method][class]
            .get_or_init(|| self.duration.with_label_values(&[&series.label, METHODS[method], CLASSES[class]]))
    }

    /// Counts a request a rate limit refused (429), by the problem's code.
    pub fn rate_limited(&self, code: &str, route: Route<'_>) {
        self.rate_limited.with_label_values(&[code, &route.label()]).inc();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_classes_and_methods_map_to_fixed_labels() {
        assert_eq!(CLASSES[class_index(StatusCode::OK)], "2xx");
        assert_eq!(CLASSES[class_index(StatusCode::NOT_MODIFIED)], "3xx");
        assert_eq!(CLASSES[class_index(StatusCode::TOO_MANY_REQUESTS)], "4xx");
        assert_eq!(CLASSES[class_index(StatusCode::SERVICE_UNAVAILABLE)], "5xx");
        assert_eq!(CLASSES[class_index(StatusCode::CONTINUE)], "1xx");
        assert_eq!(METHODS[method_index(&Method::PATCH)], "PATCH");
        assert_eq!(METHODS[method_index(&Method::from_bytes(b"PURGE").unwrap_or(Method::GET))], "OTHER");
    }

    #[test]
    fn one_series_per_route_method_and_class() -> prometheus::Result<()> {
        let registry = Registry::new();
        let metrics = RequestMetrics::new(&registry)?;
        for _ in 0..3 {
            metrics.observe(Route::Api("/sites/{id}"), &Method::GET, StatusCode::OK, 0.002);
        }
        metrics.observe(Route::Api("/sites/{id}"), &Method::GET, StatusCode::NOT_FOUND, 0.001);
        metrics.observe(Route::Unmatched, &Method::GET, StatusCode::NOT_FOUND, 0.001);
        metrics.observe(Route::Api("/"), &Method::GET, StatusCode::OK, 0.001);
        metrics.observe(Route::Other("/"), &Method::GET, StatusCode::OK, 0.001);
        let families = registry.gather();
        let family = families.iter().find(|f| f.name() == "plinth_http_request_duration_seconds");
        let counts: Vec<(Vec<String>, u64)> = family
            .map(|f| {
                f.get_metric()
                    .iter()
                    .map(|m| {
                        (
                            m.get_label().iter().map(|l| l.value().to_string()).collect(),
                            m.get_histogram().get_sample_count(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(counts.len(), 5, "{counts:?}");
        assert!(counts.contains(&(vec!["GET".into(), "/api/v1/".into(), "2xx".into()], 1)), "{counts:?}");
        assert!(counts.contains(&(vec!["GET".into(), "/".into(), "2xx".into()], 1)), "{counts:?}");
        assert!(counts.contains(&(vec!["GET".into(), "/api/v1/sites/{id}".into(), "2xx".into()], 3)), "{counts:?}");
        assert!(counts.contains(&(vec!["GET".into(), UNMATCHED.into(), "4xx".into()], 1)), "{counts:?}");
        Ok(())
    }
}
