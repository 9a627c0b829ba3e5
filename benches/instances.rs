//! Two instances on one PostgreSQL database vs one: `cargo bench --bench instances`.
//!
//! Starts Plinth (one worker each) on a fresh PostgreSQL database
//! (`PLINTH_TEST_DATABASE_URL`, default `postgres://postgres@127.0.0.1:5432/postgres`),
//! seeds a site with 200 published posts and a Read key, and loads the same
//! authenticated read (the admin list, then one blog) through one instance, then
//! through two at once (two wrk processes, half the connections each). Prints
//! requests/s, p99 and the two-to-one ratio; then how long a key revoked on one
//! instance keeps working on the other (the cluster channel; the caches alone
//! would allow 30 s).
//!
//! On a machine with fewer cores than instances + load generators the ratio says
//! how much the instances share a CPU, not how they scale.
//! Settings: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 32).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use plinth::Config;
use serde_json::{json, Value};

use common::{fresh_postgres, start_plinth, wrk, Figures};

const MASTER_KEY: &str = "plk_bench_instances_master_key";
const POSTS: usize = 200;

fn config_for(dir: &Path, database_url: &str) -> Config {
    let mut config = Config::defaults().unwrap();
    config.database_url = database_url.to_string();
    config.data_dir = dir.join("data");
    config.workers = 1;
    config.bootstrap_api_key = Some(MASTER_KEY.into());
    config.log.filter = "error".into();
    config
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

async fn post(addr: SocketAddr, path: &str, body: Value) -> Value {
    let res = reqwest::Client::new()
        .post(format!("http://{addr}/api/v1{path}"))
        .header("X-API-Key", MASTER_KEY)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "{path}: {}", res.status());
    res.json().await.unwrap()
}

/// The site, a Read key and the last post's id.
async fn seed(addr: SocketAddr) -> (String, String, String) {
    let site = post(addr, "/sites", json!({"name": "Instances", "slug": "instances"})).await;
    let site_id = site["id"].as_str().unwrap().to_string();
    let key = post(addr, "/api-keys", json!({"name": "reader", "permission": "Read", "site_id": site_id})).await;
    let mut blog_id = String::new();
    for i in 0..POSTS {
        let body = json!({"site_ids": [site_id], "title": format!("Post {i}"), "status": "Published"});
        blog_id = post(addr, "/blogs", body).await["id"].as_str().unwrap().to_string();
    }
    (site_id, key["key"].as_str().unwrap().to_string(), blog_id)
}

/// wrk against every address at once, `connections` split between them.
fn load(urls: &[String], key: &str, seconds: u64, connections: u64) -> Vec<Figures> {
    let per = (connections / urls.len() as u64).max(1);
    let runs: Vec<_> = urls
        .iter()
        .map(|url| {
            let (url, key) = (url.clone(), key.to_string());
            std::thread::spawn(move || wrk(&url, &[("X-API-Key", key.as_str())], seconds, per))
        })
        .collect();
    runs.into_iter().map(|r| r.join().unwrap()).collect()
}

/// How long a key revoked through `a` keeps being accepted by `b`.
async fn revocation_reaches(a: SocketAddr, b: SocketAddr, site_id: &str) -> Duration {
    let key = post(a, "/api-keys", json!({"name": "doomed", "permission": "Read", "site_id": site_id})).await;
    let (id, secret) = (key["id"].as_str().unwrap().to_string(), key["key"].as_str().unwrap().to_string());
    let client = reqwest::Client::new();
    let read = || client.get(format!("http://{b}/api/v1/sites/{site_id}")).header("X-API-Key", &secret).send();
    assert_eq!(read().await.unwrap().status(), 200, "warms B's key cache");
    let revoked = client.delete(format!("http://{a}/api/v1/api-keys/{id}")).header("X-API-Key", MASTER_KEY).send();
    assert_eq!(revoked.await.unwrap().status(), 204);
    let started = Instant::now();
    while read().await.unwrap().status() != 401 {
        assert!(started.elapsed() < Duration::from_secs(60), "B never refused the revoked key");
    }
    started.elapsed()
}

fn main() {
    let seconds = env_u64("BENCH_SECONDS", 10);
    let connections = env_u64("BENCH_CONNECTIONS", 32);
    let admin_url = std::env::var("PLINTH_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let database_url = runtime.block_on(fresh_postgres(&admin_url));
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = start_plinth(config_for(dir_a.path(), &database_url));
    let (site_id, key, blog_id) = runtime.block_on(seed(a));
    runtime.block_on(common::analyze(&database_url));
    let b = start_plinth(config_for(dir_b.path(), &database_url));

    println!("\nSame authenticated read, one instance vs two (PostgreSQL, 1 worker each, {connections} connections, {seconds} s)\n");
    println!("| read | instances | requests/s | p99 ms | two ÷ one |");
    println!("|---|---|---|---|---|");
    for (name, path) in [
        ("GET /sites/{id}/blogs?per_page=10", format!("/sites/{site_id}/blogs?per_page=10")),
        ("GET /blogs/{id}", format!("/blogs/{blog_id}")),
    ] {
        let url = |addr: SocketAddr| format!("http://{addr}/api/v1{path}");
        let one = load(&[url(a)], &key, seconds, connections);
        let two = load(&[url(a), url(b)], &key, seconds, connections);
        let one_rps = one[0].requests_per_sec;
        let two_rps: f64 = two.iter().map(|f| f.requests_per_sec).sum();
        let two_p99 = two.iter().map(|f| f.p99_ms).fold(0.0, f64::max);
        println!("| {name} | 1 | {one_rps:.0} | {:.2} | |", one[0].p99_ms);
        println!("| {name} | 2 | {two_rps:.0} | {two_p99:.2} | {:.2}× |", two_rps / one_rps);
    }
    let mut waits: Vec<Duration> = (0..5).map(|_| runtime.block_on(revocation_reaches(a, b, &site_id))).collect();
    waits.sort();
    println!(
        "\nA key revoked on one instance is refused by the other after {:.1} ms (median of 5, max {:.1} ms)",
        waits[2].as_secs_f64() * 1000.0,
        waits[4].as_secs_f64() * 1000.0
    );
    println!("cores here: {}", std::thread::available_parallelism().map_or(0, |n| n.get()));
}
