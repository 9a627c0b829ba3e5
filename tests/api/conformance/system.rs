//! Spec "Endpoints › System (no authentication)".

use serde_json::json;

use super::{expect_json, expect_status};
use crate::helpers::TestApp;

#[actix_web::test]
async fn system_rows_answer_without_credentials() {
    let app = TestApp::spawn_with(|c| c.idp.publishable_key = Some("pk_conformance".into())).await;

    // GET /: plain-text `<service name> API v<semver>`.
    let res = app.client.get(app.url("/")).send().await.unwrap();
    expect_status(&res, 200);
    assert!(res.headers()["content-type"].to_str().unwrap().starts_with("text/plain"));
    let text = res.text().await.unwrap();
    let (name, version) = text.trim().split_once(" API v").unwrap_or_else(|| panic!("version string: {text}"));
    assert!(!name.is_empty(), "{text}");
    let parts: Vec<&str> = version.split('.').collect();
    assert!(parts.len() == 3 && parts.iter().all(|p| p.parse::<u64>().is_ok()), "semver: {text}");

    // GET /health: healthy 200; services and storage.
    let health = expect_json(app.client.get(app.url("/health")).send().await.unwrap(), 200).await;
    assert_eq!(health["status"], "healthy");
    let database = &health["services"][0];
    for field in ["name", "status", "latency_ms", "error"] {
        assert!(database.get(field).is_some(), "service has {field}: {health}");
    }
    assert_eq!(database["status"], "up");
    for field in ["name", "status", "latency_ms", "provider", "total_bytes", "available_bytes", "used_percent"] {
        assert!(health["storage"].get(field).is_some(), "storage has {field}: {health}");
    }

    // GET /config: public frontend configuration.
    let config = expect_json(app.client.get(app.url("/config")).send().await.unwrap(), 200).await;
    assert_eq!(config, json!({"idp_publishable_key": "pk_conformance", "app_name": "Plinth"}));

    // GET /error-codes: {total, codes: [{code, domain, http_status, description}]}.
    let catalog = expect_json(app.client.get(app.url("/error-codes")).send().await.unwrap(), 200).await;
    let codes = catalog["codes"].as_array().unwrap();
    assert_eq!(catalog["total"].as_u64().unwrap() as usize, codes.len());
    let entry = codes.iter().find(|c| c["code"] == "TRASH_NOT_DELETED").expect("a spec code is listed");
    assert_eq!(entry["http_status"], 400);
    assert!(entry["domain"].is_string() && entry["description"].is_string());

    // Unconfigured imprint.
    let imprint = expect_json(app.client.get(app.url("/imprint")).send().await.unwrap(), 200).await;
    assert_eq!(imprint, json!({"configured": false}));
}

#[actix_web::test]
async fn the_imprint_is_configured_only_with_name_address_and_email() {
    let partial = TestApp::spawn_with(|c| {
        c.imprint.operator_name = Some("ACME".into());
        c.imprint.email = Some("legal@acme.example".into());
    })
    .await;
    let imprint = expect_json(partial.client.get(partial.url("/imprint")).send().await.unwrap(), 200).await;
    assert_eq!(imprint, json!({"configured": false}));

    let full = TestApp::spawn_with(|c| {
        c.imprint.operator_name = Some("ACME".into());
        c.imprint.address = Some("Main Street 1".into());
        c.imprint.email = Some("legal@acme.example".into());
        c.imprint.vat = Some("DE123".into());
    })
    .await;
    let imprint = expect_json(full.client.get(full.url("/imprint")).send().await.unwrap(), 200).await;
    assert_eq!(
        imprint,
        json!({"configured": true, "operator_name": "ACME", "address": "Main Street 1", "email": "legal@acme.example", "vat": "DE123"})
    );
}
