use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

/// The listed key with this id (the admin sees every key).
async fn listed_key(app: &TestApp, id: &str) -> Value {
    let keys: Value = app.get("/api-keys", &app.admin_key).await.json().await.unwrap();
    keys["data"].as_array().unwrap().iter().find(|k| k["id"] == id).unwrap().clone()
}

#[actix_web::test]
async fn a_burst_over_a_keys_limit_gets_429_with_headers() {
    let app = TestApp::spawn().await;
    let limited = app
        .create_key_with(
            json!({"name": "limited", "permission": "Read", "rate_limit_per_second": 3, "rate_limit_per_hour": 1000}),
        )
        .await;
    for remaining in [2, 1, 0] {
        let res = app.get("/sites", &limited).await;
        assert_eq!(res.status(), 200);
        assert_eq!(res.headers()["ratelimit-policy"], "\"per-second\";q=3;w=1, \"per-hour\";q=1000;w=3600");
        let header = res.headers()["ratelimit"].to_str().unwrap().to_string();
        assert!(header.starts_with(&format!("\"per-second\";r={remaining};t=")), "{header}");
    }
    let res = app.get("/sites", &limited).await;
    let retry_after: u64 = res.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=1).contains(&retry_after));
    assert!(res.headers()["ratelimit"].to_str().unwrap().starts_with("\"per-second\";r=0;t="));
    assert!(res.headers().contains_key("ratelimit-policy"));
    assert_problem(res, 429, "RATE_LIMIT_EXCEEDED").await;

    // Other keys are not affected, and keys without limits carry no headers.
    let res = app.get("/sites", &app.admin_key).await;
    assert_eq!(res.status(), 200);
    assert!(!res.headers().contains_key("ratelimit"));
}

#[actix_web::test]
async fn repeated_failed_authentications_cool_a_client_down() {
    let app = TestApp::spawn_with(|c| c.rate_limits.auth_failures_per_minute = 3).await;
    for _ in 0..4 {
        assert_problem(app.get("/sites", "plk_wrong").await, 401, "AUTH_API_KEY_INVALID").await;
    }
    // Even a valid key is refused from this address during the cool-down.
    let res = app.get("/sites", &app.admin_key).await;
    let retry_after: u64 = res.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!(retry_after > 0 && retry_after <= 300);
    assert_problem(res, 429, "AUTH_RATE_LIMITED").await;
    // Unauthenticated endpoints still answer.
    assert_eq!(app.client.get(app.url("/health")).send().await.unwrap().status(), 200);
}

#[actix_web::test]
async fn key_usage_is_batched_and_survives_a_restart() {
    let app = TestApp::spawn_with(|c| c.rate_limits.usage_flush_secs = 3600).await;
    let res = app.post("/api-keys", &app.admin_key, json!({"name": "counted", "permission": "Read"})).await;
    let created: Value = res.json().await.unwrap();
    let secret = created["key"].as_str().unwrap().to_string();
    let id = created["id"].as_str().unwrap().to_string();
    for _ in 0..5 {
        assert_eq!(app.get("/sites", &secret).await.status(), 200);
    }
    // Nothing written yet: the flush period is an hour.
    let counted = listed_key(&app, &id).await;
    assert_eq!(counted["usage_count"], 0);
    assert!(counted["last_used_at"].is_null());

    // A graceful stop writes the figures; a new process reads them back.
    let config_key = app.admin_key.clone();
    let (dir, database_url) = app.stop().await;
    let mut config = crate::helpers::test_config(&dir, &database_url);
    config.bootstrap_api_key = Some(config_key);
    let app = crate::helpers::TestApp::start(config, dir).await;
    let counted = listed_key(&app, &id).await;
    assert_eq!(counted["usage_count"], 5);
    assert!(counted["last_used_at"].is_string());
}
