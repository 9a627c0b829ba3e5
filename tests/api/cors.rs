//! Browser clients on other origins: a real CORS preflight and the headers a
//! client script may read.

use reqwest::Method;
use serde_json::Value;

use crate::helpers::{assert_problem, TestApp};

const ADMIN_UI: &str = "https://admin.example.org";

async fn preflight(app: &TestApp, origin: &str) -> reqwest::Response {
    app.client
        .request(Method::OPTIONS, app.url("/sites"))
        .header("Origin", origin)
        .header("Access-Control-Request-Method", "POST")
        .header("Access-Control-Request-Headers", "x-api-key, content-type")
        .send()
        .await
        .unwrap()
}

fn header<'a>(res: &'a reqwest::Response, name: &str) -> &'a str {
    res.headers().get(name).map(|v| v.to_str().unwrap()).unwrap_or_default()
}

#[actix_web::test]
async fn a_configured_origin_passes_the_preflight_and_reads_the_headers_it_needs() {
    let app = TestApp::spawn_with(|c| c.cors_origins = vec![ADMIN_UI.into()]).await;
    let res = preflight(&app, ADMIN_UI).await;
    assert_eq!(res.status(), 200);
    assert_eq!(header(&res, "access-control-allow-origin"), ADMIN_UI);
    assert!(header(&res, "access-control-allow-methods").contains("POST"));
    let allowed = header(&res, "access-control-allow-headers").to_ascii_lowercase();
    assert!(allowed.contains("x-api-key") && allowed.contains("content-type"), "{allowed}");
    assert!(res.headers().get("access-control-allow-credentials").is_none(), "no cookies");

    let res = app
        .client
        .get(app.url("/sites"))
        .header("Origin", ADMIN_UI)
        .header("X-API-Key", &app.admin_key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(header(&res, "access-control-allow-origin"), ADMIN_UI);
    let exposed = header(&res, "access-control-expose-headers").to_ascii_lowercase();
    for name in ["etag", "ratelimit", "ratelimit-policy", "retry-after", "location", "x-request-id"] {
        assert!(exposed.contains(name), "{name} not exposed: {exposed}");
    }

    // An error answer carries the CORS headers too, so the script can read the problem.
    let res = app.client.get(app.url("/sites")).header("Origin", ADMIN_UI).send().await.unwrap();
    assert_eq!(header(&res, "access-control-allow-origin"), ADMIN_UI);
    assert_problem(res, 401, "AUTH_MISSING_CREDENTIALS").await;
}

#[actix_web::test]
async fn another_origin_is_refused_with_a_problem_and_no_cors_headers() {
    let app = TestApp::spawn_with(|c| c.cors_origins = vec![ADMIN_UI.into()]).await;
    let res = preflight(&app, "https://evil.example").await;
    assert!(res.headers().get("access-control-allow-origin").is_none());
    let status = res.status().as_u16();
    let body: Value = res.json().await.unwrap();
    assert!((400..500).contains(&status), "{status}");
    assert!(body["code"].is_string(), "problem+json: {body}");
}

#[actix_web::test]
async fn a_wildcard_allows_any_origin_without_credentials() {
    let app = TestApp::spawn_with(|c| c.cors_origins = vec!["*".into()]).await;
    let res = preflight(&app, "http://localhost:5173").await;
    assert_eq!(res.status(), 200);
    assert_eq!(header(&res, "access-control-allow-origin"), "*");
    assert!(res.headers().get("access-control-allow-credentials").is_none());
}

#[actix_web::test]
async fn without_configured_origins_no_cors_header_is_sent() {
    let app = TestApp::spawn().await;
    let res = app
        .client
        .get(app.url("/sites"))
        .header("Origin", ADMIN_UI)
        .header("X-API-Key", &app.admin_key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.headers().get("access-control-allow-origin").is_none());
}
