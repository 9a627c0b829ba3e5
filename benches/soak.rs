//! Soak: `cargo bench --bench soak`.
//!
//! Starts the `plinth` binary cargo built for the bench (release profile) as
//! its own process, on SQLite and on PostgreSQL, seeds a site with 200
//! published posts, and drives it with 64 connections (one client each, one
//! kept-alive connection each) of mixed traffic for SOAK_SECONDS (default 60):
//! about 80% reads (the admin list, one post, the published list, the RSS feed,
//! the public sitemap and robots.txt) and 20% writes (retitled posts, and new
//! posts deleted and purged again, so the data stays the same size: a growing
//! RSS is memory held, not more to answer with). Prints errors (any answer but 2xx/3xx, and transport errors; target
//! 0), requests/s, p50 and p99 per tenth of the run and overall, and the
//! server's RSS at start, after warm-up (the first sixth), in the middle and at
//! the end (target: flat within 10% after warm-up).
//!
//! Settings: SOAK_SECONDS (default 60), SOAK_BACKENDS (`sqlite,postgres`),
//! PLINTH_BENCH_DATABASE_URL (else PLINTH_TEST_DATABASE_URL, else
//! postgres://postgres@127.0.0.1:5432/postgres): the PostgreSQL server a fresh
//! database is created on, and dropped from afterwards.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::PlinthProcess;
use sea_orm::ConnectionTrait;
use serde_json::{json, Value};

const MASTER_KEY: &str = "plk_bench_soak_master_key";
const CONNECTIONS: usize = 64;
const POSTS: usize = 200;
/// The run is cut into this many windows for the figures over time.
const WINDOWS: u64 = 10;

/// What the load needs from the seeded site.
#[derive(Clone)]
struct Site {
    api: String,
    site_id: String,
    reader_key: String,
    post_ids: Vec<String>,
}

/// One request's outcome: when it finished (ms into the run) and how long it took.
struct Sample {
    kind: u8,
    at_ms: u32,
    latency_us: u32,
}

#[derive(Default)]
struct Errors {
    transport: AtomicU64,
    /// Answers other than 2xx and 3xx, by status.
    by_status: Mutex<std::collections::BTreeMap<u16, u64>>,
    /// The first few, to show what went wrong.
    examples: Mutex<Vec<String>>,
}

impl Errors {
    fn record(&self, what: String, status: Option<u16>) {
        match status {
            Some(status) => *self.by_status.lock().unwrap().entry(status).or_default() += 1,
            None => {
                self.transport.fetch_add(1, Ordering::Relaxed);
            }
        }
        // The first of each status (and of transport errors).
        let label = status.map_or("transport".to_string(), |s| s.to_string());
        let mut examples = self.examples.lock().unwrap();
        if examples.len() < 10 && !examples.iter().any(|e| e.starts_with(&format!("[{label}]"))) {
            examples.push(format!("[{label}] {what}"));
        }
    }

    fn total(&self) -> u64 {
        self.transport.load(Ordering::Relaxed) + self.by_status.lock().unwrap().values().sum::<u64>()
    }
}

fn main() {
    let seconds: u64 = std::env::var("SOAK_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(60);
    let backends = std::env::var("SOAK_BACKENDS").unwrap_or_else(|_| "sqlite,postgres".into());
    let admin_url = ["PLINTH_BENCH_DATABASE_URL", "PLINTH_TEST_DATABASE_URL"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
        .unwrap_or_else(|| "postgres://postgres@127.0.0.1:5432/postgres".into());
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    for backend in backends.split(',').map(str::trim) {
        let dir = tempfile::tempdir().unwrap();
        let (name, database_url) = match backend {
            "sqlite" => ("SQLite", format!("sqlite://{}?mode=rwc", dir.path().join("soak.db").display())),
            "postgres" => ("PostgreSQL", runtime.block_on(common::fresh_postgres(&admin_url))),
            other => panic!("unknown backend {other} in SOAK_BACKENDS"),
        };
        let server = PlinthProcess::start(&database_url, dir.path(), &[("PLINTH_BOOTSTRAP_API_KEY", MASTER_KEY)]);
        let site = runtime.block_on(seed(&format!("http://{}/api/v1", server.addr)));
        if backend == "postgres" {
            runtime.block_on(common::analyze(&database_url));
        }
        println!(
            "\n## Soak, {name}: the release binary, {CONNECTIONS} connections, {seconds} s, ~80% reads / 20% writes \
             (steady data: {CYCLE_SHARE}% create/delete/purge)\n"
        );
        let passed = runtime.block_on(soak(&server, &site, Duration::from_secs(seconds)));
        server.stop();
        if backend == "postgres" {
            runtime.block_on(drop_database(&admin_url, &database_url));
        }
        println!("\n{name}: {}", if passed { "targets met" } else { "TARGETS MISSED" });
    }
}

async fn seed(api: &str) -> Site {
    let client = reqwest::Client::new();
    let post = |path: &str, body: Value| {
        client.post(format!("{api}{path}")).header("X-API-Key", MASTER_KEY).json(&body).send()
    };
    let site: Value = post("/sites", json!({"name": "Soak", "slug": "soak"})).await.unwrap().json().await.unwrap();
    let site_id = site["id"].as_str().unwrap().to_string();
    // The sitemap needs the site's public URL.
    let settings = client
        .put(format!("{api}/sites/{site_id}"))
        .header("X-API-Key", MASTER_KEY)
        .json(&json!({"base_url": "https://soak.example"}))
        .send()
        .await
        .unwrap();
    assert_eq!(settings.status(), 200);
    let reader: Value = post("/api-keys", json!({"name": "reader", "permission": "Read", "site_id": site_id}))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut post_ids = Vec::new();
    for i in 0..POSTS {
        let body = json!({"site_ids": [site_id], "title": format!("Seeded post {i}"),
            "excerpt": "A few words of excerpt.", "body": "Some body text. ".repeat(20), "status": "Published"});
        let res = post("/blogs", body).await.unwrap();
        assert_eq!(res.status(), 201);
        post_ids.push(res.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string());
    }
    Site { api: api.to_string(), site_id, reader_key: reader["key"].as_str().unwrap().to_string(), post_ids }
}

/// A small, seeded xorshift: the mix is the same on every run.
struct Dice(u64);

impl Dice {
    fn roll(&mut self, below: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % below as u64) as usize
    }
}

/// The kinds of request in the mix, with their share (percent). The writes
/// keep the data at a steady size, so a growing RSS means memory held, not
/// more posts to answer with: each task cycles through creating a post,
/// deleting it (to the trash) and purging it from the trash.
const MIX: [(&str, usize); 10] = [
    ("GET /sites/{id}/blogs (admin list, pages 1-20)", 25),
    ("GET /blogs/{id}", 20),
    ("GET /sites/{id}/blogs/published (pages 1-10)", 15),
    ("GET /sites/{id}/feed.rss", 8),
    ("GET /sites/{slug}/sitemap.xml (anonymous)", 6),
    ("GET /sites/{slug}/robots.txt (anonymous)", 6),
    ("POST /blogs (published)", 4),
    ("DELETE /blogs/{id} (the task's new post, to the trash)", 4),
    ("DELETE /trash/{id} (purge it)", 4),
    ("PUT /blogs/{id} (retitle one of the task's seeded posts)", 8),
];
const CREATE: usize = 6;
const DELETE: usize = 7;
const PURGE: usize = 8;
/// The create/delete/purge cycle's share of the mix.
const CYCLE_SHARE: usize = 12;

/// A task's place in its create/delete/purge cycle.
#[derive(Default)]
struct Cycle {
    /// Created, not yet deleted.
    created: Option<String>,
    /// Deleted, not yet purged.
    trashed: Option<String>,
}

impl Cycle {
    /// The cycle's next step.
    fn next_kind(&self) -> usize {
        match (&self.created, &self.trashed) {
            (_, Some(_)) => PURGE,
            (Some(_), None) => DELETE,
            (None, None) => CREATE,
        }
    }
}

/// The next request of the mix: its kind (index into [`MIX`]) and the request.
fn next_request(
    client: &reqwest::Client,
    site: &Site,
    dice: &mut Dice,
    cycle: &mut Cycle,
    task: usize,
    n: u64,
) -> (usize, reqwest::RequestBuilder) {
    let (api, site_id) = (&site.api, &site.site_id);
    let mut roll = dice.roll(100);
    let mut kind = MIX
        .iter()
        .position(|(_, share)| {
            let hit = roll < *share;
            roll = roll.saturating_sub(*share);
            hit
        })
        .unwrap_or(0);
    if (CREATE..=PURGE).contains(&kind) {
        kind = cycle.next_kind();
    }
    let read = |url: String| client.get(url).header("X-API-Key", &site.reader_key);
    let write = |method: reqwest::Method, url: String| client.request(method, url).header("X-API-Key", MASTER_KEY);
    let any_post = &site.post_ids[dice.roll(site.post_ids.len())];
    // Each task retitles only its own posts: two editors saving one post at
    // once get a 409 by design, which is not what this measures.
    let own_posts: Vec<&String> = site.post_ids.iter().skip(task).step_by(CONNECTIONS).collect();
    let own_post = own_posts[dice.roll(own_posts.len())];
    let request = match kind {
        0 => read(format!("{api}/sites/{site_id}/blogs?per_page=10&page={}", 1 + dice.roll(20))),
        1 => read(format!("{api}/blogs/{any_post}")),
        2 => read(format!("{api}/sites/{site_id}/blogs/published?page={}", 1 + dice.roll(10))),
        3 => read(format!("{api}/sites/{site_id}/feed.rss")),
        4 => client.get(format!("{api}/sites/soak/sitemap.xml")),
        5 => client.get(format!("{api}/sites/soak/robots.txt")),
        CREATE => write(reqwest::Method::POST, format!("{api}/blogs")).json(&json!({
            "site_ids": [site_id], "title": format!("Soak post {task}-{n}"),
            "body": "Written during the soak. ".repeat(10), "status": "Published"})),
        DELETE => {
            let id = cycle.created.take().unwrap_or_default();
            let request = write(reqwest::Method::DELETE, format!("{api}/blogs/{id}"));
            cycle.trashed = Some(id);
            request
        }
        PURGE => {
            let id = cycle.trashed.take().unwrap_or_default();
            write(reqwest::Method::DELETE, format!("{api}/trash/{id}?entity_type=blog"))
        }
        _ => write(reqwest::Method::PUT, format!("{api}/blogs/{own_post}"))
            .json(&json!({"title": format!("Retitled {task}-{n}")})),
    };
    (kind, request)
}

/// Runs the load; prints the figures; whether the targets were met.
async fn soak(server: &PlinthProcess, site: &Site, duration: Duration) -> bool {
    let site = Arc::new(site.clone());
    let errors = Arc::new(Errors::default());
    let rss_start = server.rss_kib();
    let started = Instant::now();
    let deadline = started + duration;
    let mut tasks = Vec::new();
    for task in 0..CONNECTIONS {
        let (site, errors) = (Arc::clone(&site), Arc::clone(&errors));
        tasks.push(tokio::spawn(async move {
            // Its own client: one kept-alive connection per task, 64 in all.
            let client = reqwest::Client::builder().pool_max_idle_per_host(1).build().unwrap();
            let mut dice = Dice(0x9E37_79B9_7F4A_7C15 ^ (task as u64 + 1));
            let mut samples = Vec::new();
            let mut cycle = Cycle::default();
            let mut n = 0;
            while Instant::now() < deadline {
                n += 1;
                let (kind, request) = next_request(&client, &site, &mut dice, &mut cycle, task, n);
                let request = request.build().unwrap();
                let what = format!("{} {}", request.method(), request.url().path());
                let sent = Instant::now();
                match client.execute(request).await {
                    Ok(res) => {
                        let status = res.status();
                        let body = res.bytes().await;
                        if !(status.is_success() || status.is_redirection()) {
                            let text = body.map(|b| String::from_utf8_lossy(&b).chars().take(200).collect::<String>());
                            errors.record(
                                format!("{what}: {status} {}", text.unwrap_or_default()),
                                Some(status.as_u16()),
                            );
                        } else if let Err(e) = &body {
                            errors.record(format!("{what}: body: {e}"), None);
                        } else if kind == CREATE {
                            let created: Value =
                                body.ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
                            cycle.created = created["id"].as_str().map(str::to_string);
                        }
                    }
                    Err(e) => errors.record(format!("{what}: {e}"), None),
                }
                let latency_us = u32::try_from(sent.elapsed().as_micros()).unwrap_or(u32::MAX);
                let at_ms = u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX);
                samples.push(Sample { kind: kind as u8, at_ms, latency_us });
            }
            samples
        }));
    }
    // The server's RSS once a second while the load runs.
    let pid_rss = {
        let path = format!("/proc/{}/status", server.child.id());
        move || {
            std::fs::read_to_string(&path)
                .unwrap_or_default()
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0)
        }
    };
    let mut rss = Vec::new();
    while Instant::now() < deadline {
        tokio::time::sleep(Duration::from_secs(1)).await;
        rss.push((started.elapsed().as_secs_f64(), pid_rss()));
    }
    let mut samples = Vec::new();
    for task in tasks {
        samples.extend(task.await.unwrap());
    }
    let rss_end = server.rss_kib();
    report(&samples, &errors, rss_start, &rss, rss_end, duration)
}

fn percentile(sorted_us: &[u32], p: f64) -> f64 {
    if sorted_us.is_empty() {
        return 0.0;
    }
    let index = ((sorted_us.len() as f64 - 1.0) * p).round() as usize;
    f64::from(sorted_us[index]) / 1000.0
}

fn report(
    samples: &[Sample],
    errors: &Errors,
    rss_start: u64,
    rss: &[(f64, u64)],
    rss_end: u64,
    duration: Duration,
) -> bool {
    let total_ms = duration.as_millis() as u64;
    let window_ms = (total_ms / WINDOWS).max(1);
    let rss_at = |t: f64| rss.iter().find(|(at, _)| *at >= t).or(rss.last()).map_or(0, |(_, kib)| *kib);
    println!("| window | requests/s | p50 ms | p99 ms | server RSS MiB |\n|---|---|---|---|---|");
    for w in 0..WINDOWS {
        let (from, to) = (w * window_ms, (w + 1) * window_ms);
        let mut in_window: Vec<u32> = samples
            .iter()
            .filter(|s| u64::from(s.at_ms) >= from && u64::from(s.at_ms) < to)
            .map(|s| s.latency_us)
            .collect();
        in_window.sort_unstable();
        println!(
            "| {:.0}-{:.0} s | {:.0} | {:.2} | {:.2} | {:.1} |",
            from as f64 / 1000.0,
            to as f64 / 1000.0,
            in_window.len() as f64 * 1000.0 / window_ms as f64,
            percentile(&in_window, 0.50),
            percentile(&in_window, 0.99),
            rss_at(to as f64 / 1000.0) as f64 / 1024.0
        );
    }
    // Per kind of request: the first and the last window side by side.
    println!("\n| request | share | p50 ms first / last window | p99 ms first / last window |\n|---|---|---|---|");
    let last_from = (WINDOWS - 1) * window_ms;
    for (i, (name, _)) in MIX.iter().enumerate() {
        let of_kind = |from: u64, to: u64| {
            let mut v: Vec<u32> = samples
                .iter()
                .filter(|s| usize::from(s.kind) == i && u64::from(s.at_ms) >= from && u64::from(s.at_ms) < to)
                .map(|s| s.latency_us)
                .collect();
            v.sort_unstable();
            v
        };
        let (first, last) = (of_kind(0, window_ms), of_kind(last_from, u64::MAX));
        let share = samples.iter().filter(|s| usize::from(s.kind) == i).count() as f64 / samples.len().max(1) as f64;
        println!(
            "| {name} | {:.0}% | {:.2} / {:.2} | {:.2} / {:.2} |",
            100.0 * share,
            percentile(&first, 0.5),
            percentile(&last, 0.5),
            percentile(&first, 0.99),
            percentile(&last, 0.99)
        );
    }
    let mut all: Vec<u32> = samples.iter().map(|s| s.latency_us).collect();
    all.sort_unstable();
    let failed = errors.total();
    println!(
        "\nrequests {} ({:.0}/s), p50 {:.2} ms, p99 {:.2} ms, p99.9 {:.2} ms",
        all.len(),
        all.len() as f64 / duration.as_secs_f64(),
        percentile(&all, 0.50),
        percentile(&all, 0.99),
        percentile(&all, 0.999)
    );
    println!(
        "errors {failed} (target 0): transport {}, by status {:?}",
        errors.transport.load(Ordering::Relaxed),
        errors.by_status.lock().unwrap()
    );
    for example in errors.examples.lock().unwrap().iter() {
        println!("  e.g. {example}");
    }
    // Warm-up: the first sixth of the run (caches filled, pools opened).
    let secs = duration.as_secs_f64();
    let warm = rss_at(secs / 6.0);
    let middle = rss_at(secs / 2.0);
    let after_warm_up = rss.iter().filter(|(at, _)| *at >= secs / 6.0).map(|(_, kib)| *kib);
    let peak = after_warm_up.clone().max().unwrap_or(rss_end).max(rss_end);
    let low = after_warm_up.min().unwrap_or(rss_end).min(rss_end);
    let spread = if warm == 0 { 0.0 } else { 100.0 * (peak - low) as f64 / warm as f64 };
    let growth = if warm == 0 { 0.0 } else { 100.0 * (rss_end as f64 - warm as f64) / warm as f64 };
    let mib = |kib: u64| kib as f64 / 1024.0;
    println!(
        "server RSS MiB: start {:.1}, after warm-up {:.1}, middle {:.1}, end {:.1}; after warm-up: end {growth:+.1}%, \
         spread {spread:.1}% (target within 10%)",
        mib(rss_start),
        mib(warm),
        mib(middle),
        mib(rss_end)
    );
    failed == 0 && spread <= 10.0
}

async fn drop_database(admin_url: &str, database_url: &str) {
    let (_, name) = database_url.rsplit_once('/').unwrap();
    let admin = sea_orm::Database::connect(admin_url).await.unwrap();
    if let Err(e) = admin.execute_unprepared(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await {
        eprintln!("could not drop {name}: {e}");
    }
}
