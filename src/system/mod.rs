//! Unauthenticated system endpoints: version, health, public config, imprint,
//! error catalog; and, outside `/api/v1`, the operators' `/metrics`, `/livez`
//! and `/readyz` (`metrics`, `probes`).

pub mod metrics;
pub mod probes;

use std::time::Instant;

use actix_web::{web, HttpResponse};
use sea_orm::ConnectionTrait;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ErrorCode;
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, public: self => [version, health, public_config, imprint, error_codes]);
}

/// The operators' endpoints, mounted at the root (not under `/api/v1`) and not
/// in the API document.
pub fn ops_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/metrics").route(web::get().to(metrics::metrics)))
        .service(web::resource("/livez").route(web::get().to(probes::livez)))
        .service(web::resource("/readyz").route(web::get().to(probes::readyz)));
}

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Show the service's version
///
/// Public. Plain text `<service name> API v<semver>`.
#[utoipa::path(
    get,
    path = "/",
    tag = "System",
    responses(
        (status = 200, content_type = "text/plain", body = String, description = "`<service name> API v<semver>`")
    ),
    security(())
)]
pub async fn version(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .body(format!("{} API v{VERSION}", state.config.app_name))
}

#[derive(Serialize, ToSchema)]
pub struct ServiceHealth {
    /// The service: `database` or `redis`.
    pub name: String,
    /// `up`, `down` or `disabled`.
    pub status: String,
    /// How long the check took, in milliseconds.
    pub latency_ms: Option<f64>,
    /// Why it is down; null when up.
    pub error: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct StorageHealth {
    /// `files`.
    pub name: String,
    /// `up` or `down`.
    pub status: String,
    /// How long the check took, in milliseconds.
    pub latency_ms: Option<f64>,
    /// `local` or `s3`.
    pub provider: String,
    /// Size of the file system holding local files; null when unknown (S3).
    pub total_bytes: Option<u64>,
    /// Free bytes there; null when unknown.
    pub available_bytes: Option<u64>,
    /// Percent used; null when unknown.
    pub used_percent: Option<f64>,
}

#[derive(Serialize, ToSchema)]
pub struct HealthReport {
    /// `healthy`, `degraded` (database up, an optional service down) or `unhealthy` (database down).
    pub status: String,
    /// The database and, when configured, Redis.
    pub services: Vec<ServiceHealth>,
    /// The file storage.
    pub storage: StorageHealth,
}

/// The overall status: the database decides between unhealthy and the rest.
pub fn overall_status(database_up: bool, optional_up: &[bool]) -> &'static str {
    if !database_up {
        "unhealthy"
    } else if optional_up.iter().all(|up| *up) {
        "healthy"
    } else {
        "degraded"
    }
}

/// Check the service's health
///
/// Public. `healthy` and `degraded` answer 200, `unhealthy` (database down) 503.
#[utoipa::path(
    get,
    path = "/health",
    tag = "System",
    responses(
        (status = 200, body = HealthReport, description = "healthy or degraded"),
        (status = 503, body = HealthReport, description = "unhealthy: the database is down")
    ),
    security(())
)]
pub async fn health(state: web::Data<AppState>) -> HttpResponse {
    let started = Instant::now();
    let database = state.db.execute_unprepared("SELECT 1").await;
    let database_latency = started.elapsed().as_secs_f64() * 1000.0;
    let database_up = database.is_ok();
    let probe = state.storage.probe().await;
    let used_percent = match (probe.total_bytes, probe.available_bytes) {
        (Some(total), Some(available)) if total > 0 => {
            Some(((total - available.min(total)) as f64 / total as f64 * 1000.0).round() / 10.0)
        }
        _ => None,
    };
    // Redis (shared rate limits), when configured: down makes the report degraded.
    let redis_up = state.rate_limits.probe_shared().await;
    let status = overall_status(database_up, &[probe.ok, redis_up.unwrap_or(true)]);
    let report = HealthReport {
        status: status.to_string(),
        services: vec![ServiceHealth {
            name: "database".into(),
            status: if database_up { "up" } else { "down" }.into(),
            latency_ms: Some(database_latency),
            error: database.err().map(|e| {
                tracing::error!(error = %e, "database health probe failed");
                "the database did not answer".to_string()
            }),
        }]
        .into_iter()
        .chain(redis_up.map(|up| ServiceHealth {
            name: "redis".into(),
            status: if up { "up" } else { "down" }.into(),
            latency_ms: None,
            error: (!up).then(|| "Redis did not answer: rate limits are counted per instance or refused".into()),
        }))
        .collect(),
        storage: StorageHealth {
            name: "files".into(),
            status: if probe.ok { "up" } else { "down" }.into(),
            latency_ms: Some(probe.latency_ms),
            provider: state.storage.provider.into(),
            total_bytes: probe.total_bytes,
            available_bytes: probe.available_bytes,
            used_percent,
        },
    };
    if database_up {
        HttpResponse::Ok().json(report)
    } else {
        HttpResponse::ServiceUnavailable().json(report)
    }
}

#[derive(Serialize, ToSchema)]
pub struct PublicConfig {
    /// The identity provider's publishable key for the front end; null when not configured.
    pub idp_publishable_key: Option<String>,
    /// The application's name (`PLINTH_APP_NAME`).
    pub app_name: String,
}

/// Show the public frontend configuration
///
/// Public.
#[utoipa::path(get, path = "/config", tag = "System", responses((status = 200, body = PublicConfig)), security(()))]
pub async fn public_config(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(PublicConfig {
        idp_publishable_key: state.config.idp.publishable_key.clone(),
        app_name: state.config.app_name.clone(),
    })
}

/// `configured` plus only the operator-set fields, as plain text.
#[derive(Serialize, ToSchema)]
pub struct Imprint {
    /// Whether the operator configured an imprint; the other fields are absent when not.
    pub configured: bool,
    /// Who operates the service (plain text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operator_name: Option<String>,
    /// Postal address (plain text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// Contact address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// VAT id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vat: Option<String>,
}

/// Removes anything that looks like markup, so the imprint is always plain text.
fn plain_text(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut in_tag = false;
    for c in raw.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.trim().to_string()
}

pub fn build_imprint(config: &crate::config::ImprintConfig) -> Imprint {
    let clean = |v: &Option<String>| v.as_deref().map(plain_text).filter(|s| !s.is_empty());
    let (operator_name, address, email) = (clean(&config.operator_name), clean(&config.address), clean(&config.email));
    if operator_name.is_none() || address.is_none() || email.is_none() {
        return Imprint { configured: false, operator_name: None, address: None, email: None, vat: None };
    }
    Imprint { configured: true, operator_name, address, email, vat: clean(&config.vat) }
}

/// Show the operator's imprint
///
/// Public. `configured` is true only when operator name, address and email are all set.
#[utoipa::path(get, path = "/imprint", tag = "System", responses((status = 200, body = Imprint)), security(()))]
pub async fn imprint(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(build_imprint(&state.config.imprint))
}

#[derive(Serialize, ToSchema)]
pub struct ErrorCodeEntry {
    /// The stable code problem answers carry.
    pub code: String,
    /// The family it belongs to (`auth`, `webhooks`, …).
    pub domain: String,
    /// The status it is answered with.
    pub http_status: u16,
    /// What it means.
    pub description: String,
}

#[derive(Serialize, ToSchema)]
pub struct ErrorCatalog {
    /// How many codes there are.
    pub total: usize,
    /// Every code.
    pub codes: Vec<ErrorCodeEntry>,
}

/// List every error code
///
/// Public. The catalog of every `code` a problem answer can carry.
#[utoipa::path(
    get,
    path = "/error-codes",
    tag = "System",
    responses((status = 200, body = ErrorCatalog)),
    security(())
)]
pub async fn error_codes() -> HttpResponse {
    let codes: Vec<ErrorCodeEntry> = ErrorCode::ALL
        .iter()
        .map(|c| ErrorCodeEntry {
            code: c.as_str().into(),
            domain: c.domain().into(),
            http_status: c.status().as_u16(),
            description: c.description().into(),
        })
        .collect();
    HttpResponse::Ok().json(ErrorCatalog { total: codes.len(), codes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ImprintConfig;

    #[test]
    fn health_status_follows_the_database() {
        assert_eq!(overall_status(true, &[true]), "healthy");
        assert_eq!(overall_status(true, &[false]), "degraded");
        assert_eq!(overall_status(false, &[true]), "unhealthy");
    }

    #[test]
    fn imprint_needs_name_address_and_email_and_is_plain_text() {
        let partial =
            ImprintConfig { operator_name: Some("ACME".into()), email: Some("a@b.org".into()), ..Default::default() };
        assert!(!build_imprint(&partial).configured);
        let full = ImprintConfig {
            operator_name: Some("<b>ACME</b> GmbH".into()),
            address: Some("Main St 1".into()),
            email: Some("a@b.org".into()),
            vat: None,
        };
        let imprint = build_imprint(&full);
        assert!(imprint.configured);
        assert_eq!(imprint.operator_name.as_deref(), Some("ACME GmbH"));
        assert!(imprint.vat.is_none());
    }
}
