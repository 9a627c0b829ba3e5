use serde_json::Value;

use crate::helpers::TestApp;

#[actix_web::test]
async fn version_is_plain_text_at_root_and_api_root() {
    let app = TestApp::spawn().await;
    for url in [format!("{}/", app.base), app.url("/")] {
        let res = app.client.get(&url).send().await.unwrap();
        assert_eq!(res.status(), 200);
        assert!(res.headers()["content-type"].to_str().unwrap().starts_with("text/plain"));
        let text = res.text().await.unwrap();
        assert!(text.starts_with("Plinth API v") && text.split(" v").nth(1).unwrap().split('.').count() == 3, "{text}");
    }
}

#[actix_web::test]
async fn health_reports_database_and_storage() {
    let app = TestApp::spawn().await;
    let res = app.client.get(app.url("/health")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["status"], "healthy");
    assert_eq!(body["services"][0]["name"], "database");
    assert_eq!(body["services"][0]["status"], "up");
    assert!(body["services"][0]["latency_ms"].as_f64().unwrap() >= 0.0);
    assert_eq!(body["storage"]["status"], "up");
    assert_eq!(body["storage"]["provider"], "local");
    assert!(body["storage"]["total_bytes"].as_u64().unwrap() > 0);
    assert!(body["storage"]["used_percent"].as_f64().unwrap() <= 100.0);
}

#[actix_web::test]
async fn public_config_and_imprint() {
    let app = TestApp::spawn_with(|c| {
        c.idp.publishable_key = Some("pk_test_123".into());
        c.imprint.operator_name = Some("ACME <i>GmbH</i>".into());
        c.imprint.address = Some("Main Street 1, Berlin".into());
    })
    .await;
    let config: Value = app.client.get(app.url("/config")).send().await.unwrap().json().await.unwrap();
    assert_eq!(config, serde_json::json!({"idp_publishable_key": "pk_test_123", "app_name": "Plinth"}));
    // Email missing: a partial configuration is not configured.
    let imprint: Value = app.client.get(app.url("/imprint")).send().await.unwrap().json().await.unwrap();
    assert_eq!(imprint, serde_json::json!({"configured": false}));

    let app = TestApp::spawn_with(|c| {
        c.imprint.operator_name = Some("ACME <i>GmbH</i>".into());
        c.imprint.address = Some("Main Street 1, Berlin".into());
        c.imprint.email = Some("legal@acme.example".into());
    })
    .await;
    let imprint: Value = app.client.get(app.url("/imprint")).send().await.unwrap().json().await.unwrap();
    assert_eq!(
        imprint,
        serde_json::json!({"configured": true, "operator_name": "ACME GmbH", "address": "Main Street 1, Berlin", "email": "legal@acme.example"})
    );
}

#[actix_web::test]
async fn error_catalog_lists_every_spec_code() {
    let app = TestApp::spawn().await;
    let body: Value = app.client.get(app.url("/error-codes")).send().await.unwrap().json().await.unwrap();
    let codes = body["codes"].as_array().unwrap();
    assert_eq!(body["total"].as_u64().unwrap() as usize, codes.len());
    let spec = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/api/fixtures/spec_error_codes.txt"))
        .unwrap();
    for line in spec.lines().filter(|l| !l.is_empty()) {
        let (code, status) = line.split_once(' ').unwrap();
        let entry =
            codes.iter().find(|c| c["code"] == code).unwrap_or_else(|| panic!("{code} missing from /error-codes"));
        assert_eq!(entry["http_status"].as_u64().unwrap().to_string(), status, "{code}");
        assert!(entry["domain"].is_string() && entry["description"].is_string());
    }
}

#[actix_web::test]
async fn openapi_document_lists_every_route_with_security_schemes() {
    let app = TestApp::spawn().await;
    let doc: Value =
        app.client.get(format!("{}/api-docs/openapi.json", app.base)).send().await.unwrap().json().await.unwrap();
    // A generated client's base URL: an absolute http URL (the server's
    // public URL; the process's first app, when tests run several).
    let server = doc["servers"][0]["url"].as_str().unwrap_or_default();
    assert!(server.starts_with("http://127.0.0.1:"), "{server}");
    let paths = doc["paths"].as_object().unwrap();
    let expected = [
        ("get", "/api/v1/"),
        ("get", "/api/v1/health"),
        ("get", "/api/v1/config"),
        ("get", "/api/v1/imprint"),
        ("get", "/api/v1/error-codes"),
        ("get", "/api/v1/api-keys"),
        ("post", "/api/v1/api-keys"),
        ("delete", "/api/v1/api-keys/{id}"),
        ("get", "/api/v1/locales"),
        ("post", "/api/v1/locales"),
        ("put", "/api/v1/locales/{id}"),
        ("delete", "/api/v1/locales/{id}"),
        ("get", "/api/v1/sites"),
        ("post", "/api/v1/sites"),
        ("get", "/api/v1/sites/deleted"),
        ("get", "/api/v1/sites/{id}"),
        ("put", "/api/v1/sites/{id}"),
        ("delete", "/api/v1/sites/{id}"),
        ("get", "/api/v1/sites/by-slug/{slug}"),
        ("get", "/api/v1/sites/{site_id}/settings"),
        ("put", "/api/v1/sites/{site_id}/settings"),
        ("get", "/api/v1/sites/{site_id}/locales"),
        ("post", "/api/v1/sites/{site_id}/locales"),
        ("put", "/api/v1/sites/{site_id}/locales/{locale_id}"),
        ("delete", "/api/v1/sites/{site_id}/locales/{locale_id}"),
        ("put", "/api/v1/sites/{site_id}/locales/{locale_id}/default"),
    ];
    for (method, path) in expected {
        assert!(paths.get(path).and_then(|p| p.get(method)).is_some(), "{method} {path} missing from OpenAPI");
    }
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["api_key"]["name"], "X-API-Key");
    assert_eq!(schemes["bearer"]["scheme"], "bearer");
    let page = app.client.get(format!("{}/api-docs/", app.base)).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("swagger"));
}
