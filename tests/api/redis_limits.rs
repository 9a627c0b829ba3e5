//! Limits shared through Redis (127.0.0.1:6379): two apps on one database and
//! one Redis count a key's requests and an address's failed authentications
//! together; a Redis that does not answer fails open (per instance, /health
//! degraded) or closed (503), as configured. Skipped when Redis is not running.

use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use plinth::Config;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, test_config, TestApp};

const REDIS: &str = "redis://127.0.0.1:6379/0";

fn redis_running() -> bool {
    let address = SocketAddr::from(([127, 0, 0, 1], 6379));
    let up = TcpStream::connect_timeout(&address, Duration::from_millis(300)).is_ok();
    if !up {
        eprintln!("skipped: no Redis at 127.0.0.1:6379");
    }
    up
}

/// Shares limits through `url` under a prefix of this test's own.
fn share_limits(config: &mut Config, url: &str, prefix: &str) {
    config.redis.url = Some(url.into());
    config.redis.key_prefix = prefix.into();
    // Generous: a Redis call that is slow because the test machine is busy must
    // not fall back to per-instance counting and skew the totals.
    config.redis.timeout_ms = 2_000;
}

/// Two apps on one database and one Redis key prefix.
async fn two_instances(adjust: impl Fn(&mut Config)) -> (TestApp, TestApp) {
    let prefix = format!("plinth-test-{}", uuid::Uuid::new_v4().simple());
    let first = TestApp::spawn_with(|c| {
        share_limits(c, REDIS, &prefix);
        adjust(c);
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(&dir, &first.database_url);
    share_limits(&mut config, REDIS, &prefix);
    adjust(&mut config);
    let second = TestApp::start(config, dir).await;
    (first, second)
}

#[actix_web::test]
async fn a_key_limited_to_50_per_second_gets_50_across_two_instances_not_100() {
    if !redis_running() {
        return;
    }
    let (a, b) = two_instances(|_| {}).await;
    let key = a.create_key_with(json!({"name": "shared", "permission": "Read", "rate_limit_per_second": 50})).await;
    // The key is known to both before the burst (the first read of a key goes
    // to the database).
    assert_eq!(a.get("/sites", &key).await.status(), 200);
    assert_eq!(b.get("/sites", &key).await.status(), 200);
    let apps = [&a, &b];
    let started = Instant::now();
    let answers: Vec<(usize, u16)> = futures_util::stream::iter(0..160)
        .map(|i| {
            let (app, key) = (apps[i % 2], &key);
            async move { (i % 2, app.get("/sites", key).await.status().as_u16()) }
        })
        .buffer_unordered(16)
        .collect()
        .await;
    let elapsed = started.elapsed().as_secs_f64();
    let accepted = |app: usize| answers.iter().filter(|(on, status)| *on == app && *status == 200).count();
    let total = accepted(0) + accepted(1);
    let refused = answers.iter().filter(|(_, status)| *status == 429).count();
    eprintln!("accepted {} on A + {} on B = {total} of 160 in {elapsed:.3} s", accepted(0), accepted(1));
    let others: Vec<_> = answers.iter().filter(|(_, s)| !matches!(s, 200 | 429)).collect();
    assert!(others.is_empty(), "only 200 and 429 answers: {others:?}");
    assert_eq!(total + refused, 160);
    // 48 left after the warm-up reads, plus what GCRA regains while the burst
    // runs (one every 20 ms). Counted per instance it would be 100 or more.
    let regained = (50.0 * elapsed).ceil() as usize;
    assert!((45..=55 + regained).contains(&total), "{total} accepted in {elapsed:.3} s");
    if elapsed < 0.5 {
        assert!(total < 80, "per-instance counting would accept about 100, got {total}");
    }
    assert!(accepted(0) > 0 && accepted(1) > 0, "both instances admit requests");

    // A refused answer carries the same headers as a local one.
    let res = a.get("/sites", &key).await;
    if res.status() == 429 {
        assert_eq!(res.headers()["ratelimit-policy"], "\"per-second\";q=50;w=1");
        assert!(res.headers()["ratelimit"].to_str().unwrap().starts_with("\"per-second\";r=0;t="));
        assert_eq!(res.headers()["retry-after"], "1");
        assert_problem(res, 429, "RATE_LIMIT_EXCEEDED").await;
    }
}

/// A busy key takes tokens from Redis in leases (here up to 4, 1/50 of 200):
/// what the instances hold unspent at the end is the only error.
#[actix_web::test]
async fn leased_tokens_keep_the_total_within_one_lease_per_instance() {
    if !redis_running() {
        return;
    }
    let (a, b) = two_instances(|_| {}).await;
    let key = a.create_key_with(json!({"name": "leased", "permission": "Read", "rate_limit_per_minute": 200})).await;
    // Both know the key before the burst (the first read of a key goes to the database).
    assert_eq!(a.get("/sites", &key).await.status(), 200);
    assert_eq!(b.get("/sites", &key).await.status(), 200);
    let apps = [&a, &b];
    let started = Instant::now();
    let statuses: Vec<u16> = futures_util::stream::iter(0..400)
        .map(|i| {
            let (app, key) = (apps[i % 2], &key);
            async move { app.get("/sites", key).await.status().as_u16() }
        })
        .buffer_unordered(16)
        .collect()
        .await;
    let elapsed = started.elapsed().as_secs_f64();
    let accepted = statuses.iter().filter(|s| **s == 200).count() + 2;
    eprintln!("leased: {accepted} of 402 accepted in {elapsed:.3} s");
    let others: Vec<_> = statuses.iter().filter(|s| !matches!(s, 200 | 429)).collect();
    assert!(others.is_empty(), "only 200 and 429 answers: {others:?}");
    // One token comes back every 300 ms; each instance may strand up to 3 leased tokens.
    let regained = (elapsed / 0.3).ceil() as usize;
    assert!((200 - 2 * 3..=200 + regained).contains(&accepted), "{accepted} accepted in {elapsed:.3} s");
}

#[actix_web::test]
async fn remaining_and_reset_headers_count_both_instances() {
    if !redis_running() {
        return;
    }
    let (a, b) = two_instances(|_| {}).await;
    let key = a
        .create_key_with(
            json!({"name": "hourly", "permission": "Read", "rate_limit_per_hour": 4, "rate_limit_per_day": 100}),
        )
        .await;
    for (app, remaining) in [(&a, 3), (&b, 2), (&a, 1), (&b, 0)] {
        let res = app.get("/sites", &key).await;
        assert_eq!(res.status(), 200);
        assert_eq!(res.headers()["ratelimit-policy"], "\"per-hour\";q=4;w=3600, \"per-day\";q=100;w=86400");
        let header = res.headers()["ratelimit"].to_str().unwrap().to_string();
        assert!(header.starts_with(&format!("\"per-hour\";r={remaining};t=")), "{header}");
    }
    let res = b.get("/sites", &key).await;
    let retry_after: u64 = res.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((850..=900).contains(&retry_after), "one of 4 an hour comes back in 900 s: {retry_after}");
    assert_problem(res, 429, "RATE_LIMIT_EXCEEDED").await;
    // The refusal is now known locally on B; A learns it from Redis.
    assert_problem(a.get("/sites", &key).await, 429, "RATE_LIMIT_EXCEEDED").await;
}

async fn wrong_key(app: &TestApp) -> reqwest::Response {
    app.client.get(app.url("/sites")).header("X-API-Key", "plk_wrong").send().await.unwrap()
}

#[actix_web::test]
async fn failed_authentications_count_across_instances() {
    if !redis_running() {
        return;
    }
    let (a, b) = two_instances(|c| c.rate_limits.auth_failures_per_minute = 6).await;
    // 3 on each: 6 failures, the allowance of one address.
    for app in [&a, &b, &a, &b, &a, &b] {
        assert_problem(wrong_key(app).await, 401, "AUTH_API_KEY_INVALID").await;
    }
    // The 7th starts the cool-down (on A); B refuses the next, though it saw only 3.
    assert_problem(wrong_key(&a).await, 401, "AUTH_API_KEY_INVALID").await;
    let res = wrong_key(&b).await;
    let retry_after: u64 = res.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!(retry_after > 0 && retry_after <= 300, "Retry-After {retry_after}");
    assert_problem(res, 429, "AUTH_RATE_LIMITED").await;
    assert_problem(wrong_key(&a).await, 429, "AUTH_RATE_LIMITED").await;
    // A valid key is still accepted from the cooling-down address.
    assert_eq!(b.get("/sites", &a.admin_key).await.status(), 200);
}

async fn health(app: &TestApp) -> Value {
    let res = app.client.get(app.url("/health")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}

fn redis_service(report: &Value) -> Value {
    report["services"].as_array().unwrap().iter().find(|s| s["name"] == "redis").cloned().unwrap_or(Value::Null)
}

/// A port nobody listens on (bound, then released): connections are refused at once.
fn unreachable_redis() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    format!("redis://127.0.0.1:{port}/0")
}

#[actix_web::test]
async fn unreachable_redis_fails_open_to_per_instance_limits_and_health_says_degraded() {
    let prefix = format!("plinth-test-{}", uuid::Uuid::new_v4().simple());
    let app = TestApp::spawn_with(|c| {
        share_limits(c, &unreachable_redis(), &prefix);
        c.redis.timeout_ms = 50;
    })
    .await;
    let key = app.create_key_with(json!({"name": "limited", "permission": "Read", "rate_limit_per_second": 2})).await;
    assert_eq!(app.get("/sites", &key).await.status(), 200);
    assert_eq!(app.get("/sites", &key).await.status(), 200);
    // Counted by this instance meanwhile: the limit still holds.
    assert_problem(app.get("/sites", &key).await, 429, "RATE_LIMIT_EXCEEDED").await;
    let report = health(&app).await;
    assert_eq!(report["status"], "degraded", "{report}");
    assert_eq!(redis_service(&report)["status"], "down", "{report}");
}

#[actix_web::test]
async fn unreachable_redis_fails_closed_with_503_for_limited_keys() {
    let prefix = format!("plinth-test-{}", uuid::Uuid::new_v4().simple());
    let app = TestApp::spawn_with(|c| {
        share_limits(c, &unreachable_redis(), &prefix);
        c.redis.timeout_ms = 50;
        c.redis.fail_open = false;
    })
    .await;
    let key = app.create_key_with(json!({"name": "limited", "permission": "Read", "rate_limit_per_second": 100})).await;
    let res = app.get("/sites", &key).await;
    assert_eq!(res.headers()["retry-after"], "1");
    assert_problem(res, 503, "SERVICE_UNAVAILABLE").await;
    // Keys without limits never ask Redis.
    assert_eq!(app.get("/sites", &app.admin_key).await.status(), 200);
    assert_eq!(health(&app).await["status"], "degraded");
}

#[actix_web::test]
async fn health_lists_redis_up_when_it_answers_and_not_at_all_without_it() {
    let plain = TestApp::spawn().await;
    assert_eq!(redis_service(&health(&plain).await), Value::Null);
    if !redis_running() {
        return;
    }
    let prefix = format!("plinth-test-{}", uuid::Uuid::new_v4().simple());
    let app = TestApp::spawn_with(|c| share_limits(c, REDIS, &prefix)).await;
    let report = health(&app).await;
    assert_eq!(redis_service(&report)["status"], "up", "{report}");
    assert_eq!(report["status"], "healthy", "{report}");
}
