//! Forms benchmark: `cargo bench --bench forms`.
//!
//! Plinth on SQLite in this process. Public submissions of one seven-field
//! form (every rule checked, a pattern among them) with a solved ALTCHA token
//! each (the tokens are solved beforehand, as browsers would, and spent once),
//! from 8 concurrent clients; then the cached public definition
//! (`GET /public/forms/{slug}` with `X-Site-Domain`) under wrk beside the bare
//! `GET /` of the same server.
//!
//! Settings: BENCH_SUBMITS (default 1500), BENCH_SECONDS for the wrk rows (default 5).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use base64::Engine;
use plinth::Config;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

const MASTER_KEY: &str = "plk_bench_forms_master";
const DOMAIN: &str = "forms-bench.example.org";

fn solve(challenge: &Value) -> String {
    let salt = challenge["salt"].as_str().unwrap();
    let target = challenge["challenge"].as_str().unwrap();
    let number = (0..=challenge["maxnumber"].as_u64().unwrap())
        .find(|n| hex::encode(Sha256::digest(format!("{salt}{n}").as_bytes())) == target)
        .unwrap();
    let payload = json!({"algorithm": "SHA-256", "challenge": target, "number": number, "salt": salt,
        "signature": challenge["signature"], "took": 1});
    base64::engine::general_purpose::STANDARD.encode(payload.to_string())
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1e3
}

fn main() {
    let submits: usize = std::env::var("BENCH_SUBMITS").ok().and_then(|s| s.parse().ok()).unwrap_or(1500);
    let seconds: u64 = std::env::var("BENCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::defaults().unwrap();
    config.database_url = format!("sqlite://{}/bench.db?mode=rwc", dir.path().display());
    config.data_dir = dir.path().join("data");
    config.bootstrap_api_key = Some(MASTER_KEY.into());
    config.log.filter = "error".into();
    // The per-address quota would stop a benchmark from one address.
    config.rate_limits.form_submissions_per_minute = 10_000_000;
    let addr = common::start_plinth(config);
    let base = format!("http://{addr}/api/v1");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let (per_sec, p50, p99, solve_secs) = runtime.block_on(async {
        let client = reqwest::Client::new();
        let admin = |method: reqwest::Method, path: &str, body: Value| {
            client.request(method, format!("{base}{path}")).header("X-API-Key", MASTER_KEY).json(&body).send()
        };
        let site: Value = admin(reqwest::Method::POST, "/sites", json!({"name": "Forms bench", "slug": "forms-bench"}))
            .await.unwrap().json().await.unwrap();
        let site_id = site["id"].as_str().unwrap().to_string();
        admin(reqwest::Method::PUT, &format!("/sites/{site_id}/settings"), json!({"module_forms_enabled": true})).await.unwrap();
        admin(reqwest::Method::PUT, &format!("/sites/{site_id}"), json!({"base_url": format!("https://{DOMAIN}")})).await.unwrap();
        let form = json!({"slug": "contact", "name": "Contact", "is_active": true, "bot_protection": "mandatory",
            "storage_mode": "queryable", "fields": [
                {"label": "name", "field_type": "text", "required": true, "min_length": 2, "max_length": 50},
                {"label": "email", "field_type": "email", "required": true},
                {"label": "age", "field_type": "number", "min": 18, "max": 130},
                {"label": "topic", "field_type": "select", "required": true, "options": ["sales", "support"]},
                {"label": "born", "field_type": "date"},
                {"label": "code", "field_type": "text", "pattern": "[A-Z]{2}\\d{4}"},
                {"label": "message", "field_type": "textarea", "required": true, "max_length": 2000}]});
        let res = admin(reqwest::Method::POST, &format!("/sites/{site_id}/forms"), form).await.unwrap();
        assert_eq!(res.status(), 201);

        // Challenges fetched and solved up front, on every core.
        let started = Instant::now();
        let mut challenges = Vec::with_capacity(submits);
        for _ in 0..submits {
            let c: Value = client.get(format!("{base}/public/forms/contact/altcha-challenge")).header("X-Site-Domain", DOMAIN)
                .send().await.unwrap().json().await.unwrap();
            challenges.push(c);
        }
        let halves: Vec<Vec<Value>> = challenges.chunks(submits.div_ceil(2)).map(|c| c.to_vec()).collect();
        let solvers: Vec<_> = halves.into_iter().map(|h| std::thread::spawn(move || h.iter().map(solve).collect::<Vec<_>>())).collect();
        let tokens: Vec<String> = solvers.into_iter().flat_map(|s| s.join().unwrap()).collect();
        let solve_secs = started.elapsed().as_secs_f64();

        let queue = std::sync::Arc::new(tokio::sync::Mutex::new(tokens));
        let started = Instant::now();
        let workers: Vec<_> = (0..8).map(|_| {
            let (client, url, queue) = (client.clone(), format!("{base}/public/forms/contact/submit"), queue.clone());
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                while let Some(token) = queue.lock().await.pop() {
                    let body = json!({"data": {"name": "Ada Lovelace", "email": "ada@example.org", "age": 36, "topic": "support",
                        "born": "1815-12-10", "code": "AB1234", "message": "Hello from the benchmark"}, "bot_protection_token": token});
                    let sent = Instant::now();
                    let res = client.post(&url).header("X-Site-Domain", DOMAIN).json(&body).send().await.unwrap();
                    assert_eq!(res.status(), 201, "{}", res.text().await.unwrap());
                    latencies.push(sent.elapsed());
                }
                latencies
            })
        }).collect();
        let mut latencies = Vec::new();
        for w in workers {
            latencies.extend(w.await.unwrap());
        }
        let elapsed = started.elapsed().as_secs_f64();
        latencies.sort();
        (latencies.len() as f64 / elapsed, percentile(&latencies, 0.5), percentile(&latencies, 0.99), solve_secs)
    });

    let headers = [("X-Site-Domain", DOMAIN)];
    let bare = common::wrk(&format!("http://{addr}/"), &[], seconds, 32);
    let definition = common::wrk(&format!("{base}/public/forms/contact"), &headers, seconds, 32);
    println!("\n## Forms (SQLite, 2 cores shared by server and clients)\n");
    println!("| row | figure |\n|---|---|");
    println!("| {submits} ALTCHA tokens fetched and solved beforehand (maxnumber 100,000) | {solve_secs:.1} s |");
    println!("| public submits, 7 fields validated + ALTCHA verified and spent, 8 clients | {per_sec:.0}/s, p50 {p50:.1} ms, p99 {p99:.1} ms |");
    println!("| GET / (bare handler) | {:.0}/s, p99 {:.2} ms |", bare.requests_per_sec, bare.p99_ms);
    println!(
        "| GET /public/forms/contact (cached definition) | {:.0}/s, p50 {:.2} ms, p99 {:.2} ms ({:.0}% of bare) |",
        definition.requests_per_sec,
        definition.p50_ms,
        definition.p99_ms,
        definition.requests_per_sec / bare.requests_per_sec * 100.0
    );
}
