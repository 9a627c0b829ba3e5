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

async fn wrong_key(app: &TestApp, forwarded_for: Option<&str>) -> reqwest::Response {
    let mut req = app.client.get(app.url("/sites")).header("X-API-Key", "plk_wrong");
    if let Some(address) = forwarded_for {
        req = req.header("X-Forwarded-For", address);
    }
    req.send().await.unwrap()
}

async fn assert_cooling_down(res: reqwest::Response) {
    let retry_after: u64 = res.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!(retry_after > 0 && retry_after <= 300, "Retry-After {retry_after}");
    assert_problem(res, 429, "AUTH_RATE_LIMITED").await;
}

/// Issue 19: the cool-down used to refuse valid keys too, so 21 wrong keys from
/// anyone sharing an address (a NAT, a proxy) locked every integration out.
/// Failures are counted per address (20 a minute, then 300 s); a valid key is
/// always accepted, and only further failures are answered 429.
#[actix_web::test]
async fn a_cool_down_refuses_failures_but_never_a_valid_key() {
    let app = TestApp::spawn().await;
    for attempt in 1..=25 {
        let res = wrong_key(&app, None).await;
        if attempt <= 20 {
            assert_problem(res, 401, "AUTH_API_KEY_INVALID").await;
        } else if attempt > 21 {
            assert_cooling_down(res).await;
        }
    }
    assert_eq!(app.get("/sites", &app.admin_key).await.status(), 200, "a valid key from a cooling-down address");
    assert_cooling_down(wrong_key(&app, None).await).await;
    assert_eq!(app.get("/sites", &app.admin_key).await.status(), 200);
    // Unauthenticated endpoints still answer.
    assert_eq!(app.client.get(app.url("/health")).send().await.unwrap().status(), 200);
}

/// Behind a trusted proxy, the address is the one it forwarded for: one
/// client's failures cool down that client only.
#[actix_web::test]
async fn behind_a_trusted_proxy_the_lockout_follows_the_forwarded_address() {
    let app = TestApp::spawn_with(|c| {
        c.trusted_proxies = vec![plinth::client_ip::Cidr::parse("127.0.0.1/32").unwrap()];
    })
    .await;
    for _ in 0..25 {
        wrong_key(&app, Some("203.0.113.7")).await;
    }
    assert_cooling_down(wrong_key(&app, Some("203.0.113.7")).await).await;
    // A proxy appending its own hop: still 203.0.113.7 (127.0.0.1 is trusted).
    assert_cooling_down(wrong_key(&app, Some("198.51.100.9, 203.0.113.7, 127.0.0.1")).await).await;
    let other = wrong_key(&app, Some("198.51.100.9")).await;
    assert_problem(other, 401, "AUTH_API_KEY_INVALID").await;
    // The proxy itself (no header) is not cooling down either.
    assert_problem(wrong_key(&app, None).await, 401, "AUTH_API_KEY_INVALID").await;
    let valid = app.client.get(app.url("/sites")).header("X-API-Key", &app.admin_key);
    assert_eq!(valid.header("X-Forwarded-For", "203.0.113.7").send().await.unwrap().status(), 200);
}

/// Without trusted proxies, X-Forwarded-For is anyone's to write and is
/// ignored: the lockout follows the TCP peer.
#[actix_web::test]
async fn without_trusted_proxies_forwarded_headers_are_ignored() {
    let app = TestApp::spawn().await;
    for _ in 0..25 {
        wrong_key(&app, Some("203.0.113.7")).await;
    }
    assert_cooling_down(wrong_key(&app, Some("198.51.100.9")).await).await;
    let forwarded = app.client.get(app.url("/sites")).header("X-API-Key", "plk_wrong");
    assert_cooling_down(forwarded.header("Forwarded", "for=198.51.100.10").send().await.unwrap()).await;
    assert_cooling_down(wrong_key(&app, None).await).await;
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
    assert_eq!(counted["total_requests"], 5, "the origin service's admin reads the count under this name");
    assert!(counted["last_used_at"].is_string());
}
