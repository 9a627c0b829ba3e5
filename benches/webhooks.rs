//! Webhook pipeline benchmark: `cargo bench --bench webhooks`.
//!
//! Plinth (SQLite in a temp dir, then PostgreSQL when `PLINTH_TEST_DATABASE_URL`
//! names a server: a fresh database there) and a local receiver on 127.0.0.1 that answers
//! 200 and counts. A site gets 1 (then 50) subscribed webhooks; blog posts are
//! created over HTTP (16 at a time) and the clock runs until the receiver has
//! every signed delivery. Prints writes/s, deliveries/s and the time to drain.
//!
//! Content writes alone (no webhook) come first, with their p50 and p99 as the
//! 16 writers see them; the last row repeats 50 webhooks with one endpoint that
//! answers in 2 s and counts the deliveries to the 49 others.
//!
//! Settings: BENCH_EVENTS_1 (default 2000, also the writes-alone count),
//! BENCH_EVENTS_50 (default 200).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::TcpListener;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::{web, App, HttpResponse, HttpServer};
use futures_util::stream::{self, StreamExt};
use plinth::{Config, Plinth};
use serde_json::{json, Value};

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// `slow`: one of the webhooks points at an endpoint that answers in 2 s; the
/// row then counts only the deliveries to the others.
async fn run(database_url: &str, webhooks: usize, events: usize, slow: bool) {
    let received = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&received);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let receiver_addr = listener.local_addr().unwrap().to_string();
    let receiver = HttpServer::new(move || {
        let counter = Arc::clone(&counter);
        App::new()
            .route(
                "/slow",
                web::post().to(|_body: web::Bytes| async {
                    tokio::time::sleep(Duration::from_secs(2)).await;
                    HttpResponse::Ok().finish()
                }),
            )
            .default_service(web::to(move |_body: web::Bytes| {
                counter.fetch_add(1, Ordering::Relaxed);
                async { HttpResponse::Ok().finish() }
            }))
    })
    .workers(2)
    .disable_signals()
    .listen(listener)
    .unwrap()
    .run();
    actix_web::rt::spawn(receiver);

    let dir = tempfile::tempdir().unwrap();
    let key = "plk_bench_webhooks".to_string();
    let mut config = Config::defaults().unwrap();
    config.database_url = match database_url {
        "sqlite" => format!("sqlite://{}?mode=rwc", dir.path().join("bench.db").display()),
        admin_url => common::fresh_postgres(admin_url).await,
    };
    config.data_dir = dir.path().join("data");
    config.workers = 1;
    config.bootstrap_api_key = Some(key.clone());
    config.log.filter = "error".into();
    config.ssrf_allowlist = vec![receiver_addr.clone()];
    let app = Plinth::build(config).await.unwrap();
    let running = app.serve(TcpListener::bind("127.0.0.1:0").unwrap(), false).unwrap();
    let base = format!("http://{}/api/v1", running.addr);
    actix_web::rt::spawn(running.server);

    let client = reqwest::Client::new();
    let site: Value = client
        .post(format!("{base}/sites"))
        .header("X-API-Key", &key)
        .json(&json!({"name": "Bench", "slug": format!("bench-{webhooks}")}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let site_id = site["id"].as_str().unwrap().to_string();
    for i in 0..webhooks {
        let path = if slow && i == 0 { "slow" } else { "hook" };
        let res = client
            .post(format!("{base}/sites/{site_id}/webhooks"))
            .header("X-API-Key", &key)
            .json(&json!({"url": format!("http://{receiver_addr}/{path}"), "events": ["blog.created"]}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201);
    }

    let fast_webhooks = if slow { webhooks - 1 } else { webhooks };
    let expected = (fast_webhooks * events) as u64;
    let latencies = Arc::new(std::sync::Mutex::new(Vec::with_capacity(events)));
    let started = Instant::now();
    stream::iter(0..events)
        .for_each_concurrent(16, |i| {
            let (client, base, key, site_id) = (client.clone(), base.clone(), key.clone(), site_id.clone());
            let latencies = Arc::clone(&latencies);
            async move {
                let sent = Instant::now();
                let res = client
                    .post(format!("{base}/blogs"))
                    .header("X-API-Key", &key)
                    .json(&json!({"site_ids": [site_id], "title": format!("Event {i}")}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(res.status(), 201);
                latencies.lock().unwrap().push(sent.elapsed());
            }
        })
        .await;
    let writes_done = started.elapsed();
    let mut latencies = latencies.lock().unwrap().clone();
    latencies.sort();
    let percentile =
        |p: f64| latencies[((latencies.len() as f64 * p) as usize).min(latencies.len() - 1)].as_secs_f64() * 1000.0;
    while received.load(Ordering::Relaxed) < expected && started.elapsed() < Duration::from_secs(300) {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let drained = started.elapsed();
    let got = received.load(Ordering::Relaxed);
    let label = if slow { format!("{fast_webhooks}+1 slow") } else { format!("{webhooks:>3} webhook(s)") };
    println!(
        "{label:>14} {events:>5} events: writes {:>6.0}/s p50 {:>6.1} ms p99 {:>6.1} ms | deliveries {got:>6}/{expected} in {:>6.2} s = {:>7.0}/s | events end to end {:>6.0}/s",
        events as f64 / writes_done.as_secs_f64(),
        percentile(0.50),
        percentile(0.99),
        drained.as_secs_f64(),
        got as f64 / drained.as_secs_f64(),
        events as f64 / drained.as_secs_f64(),
    );
    if webhooks > 0 {
        let (fan_out, results) = (app.webhooks.fan_out_holds.take(), app.webhooks.result_holds.take());
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "{:>14} write lock held: fan-out {} txns, mean {:.2} ms, max {:.2} ms | results {} txns, mean {:.2} ms, max {:.2} ms",
            "",
            fan_out.transactions,
            ms(fan_out.mean),
            ms(fan_out.max),
            results.transactions,
            ms(results.mean),
            ms(results.max),
        );
    }
}

fn main() {
    let (one, fifty) = (env_or("BENCH_EVENTS_1", 2000), env_or("BENCH_EVENTS_50", 200));
    actix_web::rt::System::new().block_on(async move {
        let mut backends = vec![("SQLite", "sqlite".to_string())];
        if let Some(url) = std::env::var("PLINTH_TEST_DATABASE_URL").ok().filter(|u| !u.is_empty()) {
            backends.push(("PostgreSQL", url));
        }
        for (name, url) in &backends {
            println!("{name}, 16 concurrent writers");
            run(url, 0, one, false).await;
            run(url, 1, one, false).await;
            run(url, 50, fifty, false).await;
            // The same, with one endpoint that answers in 2 s: the other 49 keep
            // their rate (deliveries counted to them only).
            run(url, 50, fifty, true).await;
        }
        // Leave before the runtime is torn down under live connection pools.
        std::process::exit(0);
    });
}
