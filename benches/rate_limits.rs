//! Cost of shared rate limits: `cargo bench --bench rate_limits`.
//!
//! Starts Plinth (SQLite, one worker) without Redis and with Redis
//! (`PLINTH_REDIS_URL`, default redis://127.0.0.1:6379/0; rows with Redis are
//! skipped when it does not answer) and loads each with `wrk`:
//! - a key limited to 100/s hammered past its limit: almost every answer is a
//!   429, so this is the rejection cost (requests/s and p99 of the 429s);
//! - a key limited to 1,000,000/s: every answer is a 200 that counts against
//!   the limit (with Redis: leased batches of tokens).
//!
//! Settings: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 32).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::Duration;

use plinth::Config;
use serde_json::{json, Value};

use common::{start_plinth, wrk_expecting};

const MASTER_KEY: &str = "plk_bench_master_key";

fn config_for(dir: &Path, redis: Option<&str>) -> Config {
    let mut config = Config::defaults().unwrap();
    config.database_url = format!("sqlite://{}?mode=rwc", dir.join("bench.db").display());
    config.data_dir = dir.join("data");
    config.workers = 1;
    config.bootstrap_api_key = Some(MASTER_KEY.into());
    config.log.filter = "error".into();
    config.redis.url = redis.map(String::from);
    config.redis.key_prefix = format!("plinth-bench-{}", uuid::Uuid::new_v4().simple());
    config
}

/// Creates a Read key with a per-second limit; returns its secret.
fn limited_key(addr: SocketAddr, per_second: u32) -> String {
    actix_web::rt::System::new().block_on(async move {
        let body = json!({"name": format!("limited {per_second}/s"), "permission": "Read", "rate_limit_per_second": per_second});
        let res = reqwest::Client::new()
            .post(format!("http://{addr}/api/v1/api-keys"))
            .header("X-API-Key", MASTER_KEY)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201);
        res.json::<Value>().await.unwrap()["key"].as_str().unwrap().to_string()
    })
}

fn redis_answers(url: &str) -> bool {
    let address = url.trim_start_matches("redis://").split('/').next().unwrap_or_default();
    address.parse::<SocketAddr>().is_ok_and(|a| TcpStream::connect_timeout(&a, Duration::from_millis(300)).is_ok())
}

fn main() {
    let seconds: u64 = std::env::var("BENCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    let connections: u64 = std::env::var("BENCH_CONNECTIONS").ok().and_then(|s| s.parse().ok()).unwrap_or(32);
    let redis = std::env::var("PLINTH_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379/0".into());
    let dir = tempfile::tempdir().unwrap();
    // Outages (a Redis call past its 50 ms timeout on a loaded machine) are
    // logged: requests then count per instance, so more are accepted.
    let mut log = Config::defaults().unwrap().log;
    log.filter = "error".into();
    plinth::telemetry::init(&log);

    let mut setups = vec![("per instance", None)];
    if redis_answers(&redis) {
        setups.push(("Redis", Some(redis.as_str())));
    } else {
        println!("no Redis at {redis}: rows with Redis skipped");
    }
    println!("wrk: 1 thread, {connections} connections, {seconds} s per row; Plinth on SQLite with 1 worker");
    println!("\n{:<44} {:>10} {:>8} {:>8} {:>9}  answers", "row", "req/s", "p50 ms", "p99 ms", "CPU µs/req");
    for (label, redis) in setups {
        let instance_dir = dir.path().join(label.replace(' ', "-"));
        std::fs::create_dir_all(&instance_dir).unwrap();
        let addr = start_plinth(config_for(&instance_dir, redis));
        let url = format!("http://{addr}/api/v1/sites");
        for (row, per_second) in [("hammered past 100/s (429s)", 100), ("limit 1,000,000/s (200s)", 1_000_000)] {
            let key = limited_key(addr, per_second);
            let f = wrk_expecting(&url, &[("X-API-Key", key.as_str())], seconds, connections, true);
            let accepted = f.requests - f.not_2xx;
            println!(
                "{:<44} {:>10.0} {:>8.3} {:>8.3} {:>9.1}  {} refused, {accepted} accepted ({:.1}/s)",
                format!("{label}: {row}"),
                f.requests_per_sec,
                f.p50_ms,
                f.p99_ms,
                f.cpu_us_per_request,
                f.not_2xx,
                accepted as f64 / seconds as f64,
            );
        }
    }
}
