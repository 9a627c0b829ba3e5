//! `/metrics` (Prometheus text format), `/livez` and `/readyz`, off `/api/v1`.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use serde_json::json;

use crate::cli::{free_port, plinth, wait_until_ready, Running};
use crate::helpers::{assert_problem, fresh_database, TestApp};
use crate::receiver::Receiver;

const TOKEN: &str = "scrape-token-for-tests";

/// One sample: metric name, labels, value.
#[derive(Debug)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// Parses the text exposition format strictly: every line is a `# HELP`, a
/// `# TYPE` declared before its family's samples, or a well-formed sample;
/// anything else fails the test.
fn parse_exposition(text: &str) -> Vec<Sample> {
    let name_re = regex::Regex::new(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$").unwrap();
    let sample_re = regex::Regex::new(
        r#"^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(?P<labels>[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*")*)\})? (?P<value>[-+]?(?:[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?|Inf|NaN))$"#,
    )
    .unwrap();
    let label_re = regex::Regex::new(r#"([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\.)*)""#).unwrap();
    let mut types: BTreeMap<String, String> = BTreeMap::new();
    let mut samples = Vec::new();
    for line in text.lines() {
        if let Some(help) = line.strip_prefix("# HELP ") {
            let name = help.split(' ').next().unwrap_or_default();
            assert!(name_re.is_match(name), "bad HELP line: {line}");
        } else if let Some(declared) = line.strip_prefix("# TYPE ") {
            let (name, kind) = declared.split_once(' ').unwrap_or_else(|| panic!("bad TYPE line: {line}"));
            assert!(name_re.is_match(name), "bad TYPE line: {line}");
            assert!(["counter", "gauge", "histogram", "summary", "untyped"].contains(&kind), "bad TYPE: {line}");
            assert!(types.insert(name.to_string(), kind.to_string()).is_none(), "family declared twice: {name}");
        } else {
            let caps = sample_re.captures(line).unwrap_or_else(|| panic!("not a valid sample line: {line:?}"));
            let name = caps["name"].to_string();
            let family = ["_bucket", "_sum", "_count"]
                .iter()
                .find_map(|suffix| {
                    name.strip_suffix(suffix).filter(|base| types.get(*base).is_some_and(|t| t == "histogram"))
                })
                .unwrap_or(&name);
            assert!(types.contains_key(family), "sample before its TYPE line: {line}");
            let labels = caps
                .name("labels")
                .map(|l| label_re.captures_iter(l.as_str()).map(|c| (c[1].to_string(), c[2].to_string())).collect())
                .unwrap_or_default();
            let value = match &caps["value"] {
                "+Inf" | "Inf" => f64::INFINITY,
                "-Inf" => f64::NEG_INFINITY,
                v => v.parse().unwrap(),
            };
            samples.push(Sample { name, labels, value });
        }
    }
    samples
}

/// The value of the one sample named `name` whose labels include `labels`.
fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let matching: Vec<&Sample> = samples
        .iter()
        .filter(|s| s.name == name && labels.iter().all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v)))
        .collect();
    assert!(matching.len() <= 1, "{name} {labels:?} names several series: {matching:?}");
    matching.first().map(|s| s.value)
}

async fn scrape(app: &TestApp) -> Vec<Sample> {
    let res = app.client.get(format!("{}/metrics", app.base)).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let content_type = res.headers()["content-type"].to_str().unwrap().to_string();
    assert!(content_type.starts_with("text/plain; version=0.0.4"), "{content_type}");
    parse_exposition(&res.text().await.unwrap())
}

#[actix_web::test]
async fn metrics_need_the_token_and_count_requests_by_route_template() {
    let app = TestApp::spawn_with(|c| c.observability.metrics_token = Some(TOKEN.into())).await;
    let site = app.create_site_id("metrics").await;
    let reader = app.create_key("Read", Some(&site)).await;

    let metrics = format!("{}/metrics", app.base);
    assert_problem(app.client.get(&metrics).send().await.unwrap(), 401, "AUTH_MISSING_CREDENTIALS").await;
    let wrong = app.client.get(&metrics).bearer_auth("not-the-token").send().await.unwrap();
    assert_eq!(wrong.headers()["www-authenticate"], "Bearer realm=\"metrics\"");
    assert_problem(wrong, 401, "AUTH_TOKEN_INVALID").await;
    let api_key = app.client.get(&metrics).header("X-API-Key", &app.admin_key).send().await.unwrap();
    assert_eq!(api_key.status(), 401, "an API key, even a Master key, is not the metrics token");

    for _ in 0..2 {
        assert_eq!(app.get(&format!("/sites/{site}"), &reader).await.status(), 200);
    }
    assert_eq!(app.get(&format!("/sites/{}", uuid::Uuid::new_v4()), &app.admin_key).await.status(), 404);
    assert_eq!(app.get("/no/such/route", &app.admin_key).await.status(), 404);

    let samples = scrape(&app).await;
    let count = "plinth_http_request_duration_seconds_count";
    let site_route = [("route", "/api/v1/sites/{id}"), ("method", "GET")];
    assert_eq!(value(&samples, count, &[site_route[0], site_route[1], ("status", "2xx")]), Some(2.0));
    assert_eq!(value(&samples, count, &[site_route[0], site_route[1], ("status", "4xx")]), Some(1.0));
    assert_eq!(value(&samples, count, &[("route", "unmatched"), ("status", "4xx")]), Some(1.0));
    assert_eq!(value(&samples, count, &[("route", "/api/v1/sites"), ("method", "POST"), ("status", "2xx")]), Some(1.0));
    let le_inf = [site_route[0], site_route[1], ("status", "2xx"), ("le", "+Inf")];
    assert_eq!(value(&samples, "plinth_http_request_duration_seconds_bucket", &le_inf), Some(2.0));
    // Never a raw path: no id, no unrouted path in any label.
    for sample in &samples {
        for label in sample.labels.values() {
            assert!(!label.contains(&site) && !label.contains("/no/such"), "raw path in {sample:?}");
        }
    }

    // The counters move; the failed scrapes above were counted as 4xx of /metrics.
    assert_eq!(app.get(&format!("/sites/{site}"), &reader).await.status(), 200);
    let samples = scrape(&app).await;
    assert_eq!(value(&samples, count, &[site_route[0], site_route[1], ("status", "2xx")]), Some(3.0));
    assert_eq!(value(&samples, count, &[("route", "/metrics"), ("status", "4xx")]), Some(3.0));
    assert_eq!(value(&samples, count, &[("route", "/metrics"), ("status", "2xx")]), Some(1.0));
}

#[actix_web::test]
async fn rate_limit_rejections_caches_pool_and_webhook_queue_are_reported() {
    // A webhook receiver that refuses everything: the delivery waits to retry.
    let receiver = Receiver::start();
    receiver.answer_with(500);
    let allowed = receiver.host_port.clone();
    let app = TestApp::spawn_with(move |c| {
        c.observability.metrics_token = Some(TOKEN.into());
        c.ssrf_allowlist = vec![allowed];
    })
    .await;
    let site = app.create_site_id("limits").await;
    let limited = app
        .create_key_with(json!({"name": "slow", "permission": "Read", "site_id": site, "rate_limit_per_second": 1}))
        .await;
    let mut refused = 0;
    for _ in 0..5 {
        if app.get(&format!("/sites/{site}"), &limited).await.status() == 429 {
            refused += 1;
        }
    }
    assert!(refused >= 1, "a key limited to 1/s was refused within 5 quick requests");

    let hook = app.post(&format!("/sites/{site}/webhooks"), &app.admin_key, json!({"url": receiver.url})).await;
    assert_eq!(hook.status(), 201);
    let blog = json!({"site_ids": [site], "title": "Queued", "status": "Draft"});
    assert_eq!(app.post("/blogs", &app.admin_key, blog).await.status(), 201);
    receiver.wait_for(1).await;
    app.settle().await;

    let samples = scrape(&app).await;
    let rejected = [("code", "RATE_LIMIT_EXCEEDED"), ("route", "/api/v1/sites/{id}")];
    assert_eq!(value(&samples, "plinth_rate_limit_rejections_total", &rejected), Some(f64::from(refused)));
    // Process-wide counters: other tests in this process add to them too, but
    // the second use of each key above was answered from the key cache.
    assert!(value(&samples, "plinth_cache_hits_total", &[("cache", "keys")]).unwrap() >= 1.0);
    assert!(value(&samples, "plinth_cache_misses_total", &[("cache", "keys")]).unwrap() >= 1.0);
    for cache in ["site", "keys", "responses", "jwt", "public"] {
        assert!(value(&samples, "plinth_cache_hits_total", &[("cache", cache)]).is_some(), "{cache} hits");
        assert!(value(&samples, "plinth_cache_misses_total", &[("cache", cache)]).is_some(), "{cache} misses");
    }
    assert!(value(&samples, "plinth_webhook_delivery_attempts_total", &[("outcome", "failed")]).unwrap() >= 1.0);
    assert_eq!(value(&samples, "plinth_webhook_retry_queue_length", &[]), Some(1.0));
    assert_eq!(value(&samples, "plinth_webhook_pending_deliveries", &[]), Some(0.0));
    assert_eq!(value(&samples, "plinth_webhook_outbox_events", &[]), Some(0.0));
    assert_eq!(value(&samples, "plinth_webhook_debounce_buffered_events", &[]), Some(0.0));
    let age = value(&samples, "plinth_webhook_oldest_pending_age_seconds", &[]).unwrap();
    app.clock.advance(chrono::Duration::seconds(120));
    let later = scrape(&app).await;
    let aged = value(&later, "plinth_webhook_oldest_pending_age_seconds", &[]).unwrap();
    assert!(aged >= age + 120.0, "the failed delivery aged with the clock: {age} → {aged}");

    let in_use = value(&samples, "plinth_db_pool_connections", &[("state", "in_use")]).unwrap();
    let idle = value(&samples, "plinth_db_pool_connections", &[("state", "idle")]).unwrap();
    let max = value(&samples, "plinth_db_pool_max_connections", &[]).unwrap();
    assert!(in_use >= 0.0 && idle >= 0.0 && in_use + idle >= 1.0 && in_use + idle <= max, "{in_use} {idle} {max}");
    assert_eq!(value(&samples, "plinth_actor_queue_depth", &[("actor", "media_pool")]), Some(0.0));
    assert!(value(&samples, "plinth_actor_queue_depth", &[("actor", "pageview_writer")]).is_some());
    assert_eq!(value(&samples, "plinth_ready", &[]), Some(1.0));
    assert_eq!(value(&samples, "plinth_build_info", &[("version", env!("CARGO_PKG_VERSION"))]), Some(1.0));
}

#[actix_web::test]
async fn without_a_token_metrics_are_served_only_on_the_metrics_listener() {
    let app = TestApp::spawn_with(|c| c.observability.metrics_addr = Some("127.0.0.1:0".into())).await;
    let listener = app.state.observability.metrics_listener().expect("the metrics listener is bound");
    assert_problem(app.client.get(format!("{}/metrics", app.base)).send().await.unwrap(), 404, "RESOURCE_NOT_FOUND")
        .await;

    let res = app.client.get(format!("http://{listener}/metrics")).send().await.unwrap();
    assert_eq!(res.status(), 200, "no token on the metrics listener");
    let samples = parse_exposition(&res.text().await.unwrap());
    assert!(value(&samples, "plinth_ready", &[]).is_some());
    for probe in ["/livez", "/readyz"] {
        assert_eq!(app.client.get(format!("http://{listener}{probe}")).send().await.unwrap().status(), 200);
    }
    // The API is not served there.
    let api = app.client.get(format!("http://{listener}/api/v1/sites")).header("X-API-Key", &app.admin_key);
    assert_problem(api.send().await.unwrap(), 404, "RESOURCE_NOT_FOUND").await;
}

#[actix_web::test]
async fn livez_and_readyz_follow_the_lifecycle_and_health_keeps_its_shape() {
    let app = TestApp::spawn().await;
    let get = |path: &str| app.client.get(format!("{}{path}", app.base)).send();
    assert_eq!(get("/livez").await.unwrap().json::<serde_json::Value>().await.unwrap(), json!({"status": "alive"}));
    let ready = get("/readyz").await.unwrap();
    assert_eq!(ready.status(), 200, "ready once built: migrations ran and actors started");
    assert_eq!(ready.json::<serde_json::Value>().await.unwrap(), json!({"status": "ready"}));
    assert_eq!(get("/api/v1/livez").await.unwrap().status(), 404, "off the /api/v1 prefix");

    app.state.observability.readiness.start_draining();
    assert_problem(get("/readyz").await.unwrap(), 503, "SERVICE_UNAVAILABLE").await;
    assert_eq!(get("/livez").await.unwrap().status(), 200, "draining is alive");
    let health = get("/api/v1/health").await.unwrap();
    assert_eq!(health.status(), 200);
    let health: serde_json::Value = health.json().await.unwrap();
    assert_eq!(health["status"], "healthy");
    assert_eq!(health["services"][0]["name"], "database");
}

/// The binary on SIGTERM: `/readyz` answers 503 while the drain delay runs
/// (the server still accepts), then the process exits 0.
#[actix_web::test]
async fn sigterm_turns_readiness_off_before_the_server_stops() {
    let (dir, database_url) = fresh_database().await;
    let port = free_port();
    let mut child = Running(
        plinth(&dir, &database_url, port).env("PLINTH_DRAIN_DELAY_SECS", "60").stdout(Stdio::piped()).spawn().unwrap(),
    );
    wait_until_ready(&mut child.0);
    let readyz = format!("http://127.0.0.1:{port}/readyz");
    assert_eq!(reqwest::get(&readyz).await.unwrap().status(), 200);

    let pid = child.0.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    // Until the signal is handled the answer may still be 200; then 503 on a
    // new connection, for as long as the delay runs (a minute).
    let mut status = 200;
    for _ in 0..500 {
        status = reqwest::Client::new().get(&readyz).send().await.unwrap().status().as_u16();
        if status != 200 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(status, 503, "draining is not ready");
    let livez = reqwest::get(format!("http://127.0.0.1:{port}/livez")).await.unwrap();
    assert_eq!(livez.status(), 200, "still serving while draining");

    // A second SIGTERM cuts the delay short; the process exits cleanly.
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let exit = child.0.wait().unwrap();
    assert!(exit.success(), "exit status after SIGTERM: {exit:?}");
}
