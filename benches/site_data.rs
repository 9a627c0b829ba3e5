//! Public files, analytics and export: `cargo bench --bench site_data`
//! (needs `wrk`: apt-get install wrk).
//!
//! Plinth (SQLite, one worker) beside a bare actix-web handler (one worker)
//! returning a fixed text body:
//! - robots.txt and site.webmanifest from the site's built files, as a ratio
//!   to the bare handler (target ≥ 60%);
//! - pageview ingestion per second (buffered, written in batches; target
//!   ≥ 20,000/s);
//! - export of a site with 1,000 posts and 200 MB of media: time, archive
//!   size and this process's peak RSS growth (target < 32 MB).
//!
//! Settings: BENCH_SECONDS (default 5), BENCH_CONNECTIONS (default 32).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::{web, App, HttpResponse, HttpServer};
use bytes::Bytes;
use plinth::Config;
use reqwest::multipart::{Form, Part};
use serde_json::{json, Value};

const MASTER_KEY: &str = "plk_bench_site_data_master";

fn start_bare() -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let server = HttpServer::new(|| {
                App::new().route(
                    "/robots.txt",
                    web::get().to(|| async {
                        HttpResponse::Ok()
                            .content_type("text/plain; charset=utf-8")
                            .insert_header(("Cache-Control", "public, max-age=3600"))
                            .body("User-agent: *\nAllow: /\n\nSitemap: https://bench.example/sitemap.xml\n")
                    }),
                )
            })
            .workers(1)
            .listen(TcpListener::bind("127.0.0.1:0").unwrap())
            .unwrap();
            tx.send(server.addrs()[0]).unwrap();
            server.run().await.unwrap();
        });
    });
    rx.recv().unwrap()
}

fn main() {
    let seconds: u64 = std::env::var("BENCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    let connections: u64 = std::env::var("BENCH_CONNECTIONS").ok().and_then(|s| s.parse().ok()).unwrap_or(32);
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::defaults().unwrap();
    config.database_url = format!("sqlite://{}/bench.db?mode=rwc", dir.path().display());
    config.data_dir = dir.path().join("data");
    config.bootstrap_api_key = Some(MASTER_KEY.into());
    config.log.filter = "error".into();
    config.workers = 1;
    let plinth = common::start_plinth(config);
    let bare = start_bare();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let base = format!("http://{plinth}/api/v1");
    let (site_id, reader) = runtime.block_on(async {
        let client = reqwest::Client::new();
        let send = |method: reqwest::Method, path: &str, body: Value| {
            client.request(method, format!("{base}{path}")).header("X-API-Key", MASTER_KEY).json(&body).send()
        };
        let site: Value = send(reqwest::Method::POST, "/sites", json!({"name": "Bench site", "slug": "bench"}))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let site_id = site["id"].as_str().unwrap().to_string();
        send(reqwest::Method::PUT, &format!("/sites/{site_id}"), json!({"base_url": "https://bench.example"}))
            .await
            .unwrap();
        send(reqwest::Method::PUT, &format!("/sites/{site_id}/settings"), json!({"analytics_enabled": true}))
            .await
            .unwrap();
        let reader: Value = send(
            reqwest::Method::POST,
            "/api-keys",
            json!({"name": "reader", "permission": "Read", "site_id": site_id}),
        )
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
        (site_id, reader["key"].as_str().unwrap().to_string())
    });

    println!("\n## Public files and analytics (SQLite, one server worker each, wrk {connections} connections, {seconds} s)\n");
    println!("| row | requests/s | p50 ms | p99 ms | vs bare |\n|---|---|---|---|---|");
    let bare_figures = common::wrk(&format!("http://{bare}/robots.txt"), &[], seconds, connections);
    println!(
        "| bare handler (fixed text) | {:.0} | {:.2} | {:.2} | 100% |",
        bare_figures.requests_per_sec, bare_figures.p50_ms, bare_figures.p99_ms
    );
    for file in ["robots.txt", "site.webmanifest", "sitemap.xml"] {
        let f = common::wrk(&format!("{base}/sites/bench/{file}"), &[], seconds, connections);
        println!(
            "| {file} | {:.0} | {:.2} | {:.2} | {:.0}% |",
            f.requests_per_sec,
            f.p50_ms,
            f.p99_ms,
            100.0 * f.requests_per_sec / bare_figures.requests_per_sec
        );
    }
    let script = dir.path().join("pageview.lua");
    std::fs::write(
        &script,
        r#"wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"path": "/blog/hello", "referrer": "https://news.example/item"}'
"#,
    )
    .unwrap();
    let f = common::wrk_script(
        &format!("{base}/sites/{site_id}/analytics/pageview"),
        &[("X-API-Key", &reader)],
        &script,
        seconds,
        connections,
    );
    println!(
        "| POST analytics/pageview (batched writes) | {:.0} | {:.2} | {:.2} | {:.0}% |",
        f.requests_per_sec,
        f.p50_ms,
        f.p99_ms,
        100.0 * f.requests_per_sec / bare_figures.requests_per_sec
    );

    runtime.block_on(async {
        let client = reqwest::Client::new();
        for i in 0..1000 {
            let body = json!({"site_ids": [site_id], "title": format!("Post {i}"), "body": "Some words. ".repeat(40), "status": "Published"});
            let res = client.post(format!("{base}/blogs")).header("X-API-Key", MASTER_KEY).json(&body).send().await.unwrap();
            assert_eq!(res.status(), 201);
        }
        // 200 MB of media: four 50 MB archives, streamed up.
        for n in 0..4u8 {
            let chunks = futures_util::stream::iter((0..763).map(move |i| {
                let mut chunk = vec![n.wrapping_add(i as u8); 64 * 1024];
                if i == 0 {
                    chunk[..4].copy_from_slice(b"PK\x03\x04");
                }
                Ok::<_, std::io::Error>(Bytes::from(chunk))
            }));
            let part = Part::stream_with_length(reqwest::Body::wrap_stream(chunks), 763 * 64 * 1024).file_name(format!("bundle-{n}.zip"));
            let form = Form::new().text("site_ids", json!([site_id]).to_string()).part("file", part);
            let res = client.post(format!("{base}/media/upload")).header("X-API-Key", MASTER_KEY).multipart(form).send().await.unwrap();
            assert_eq!(res.status(), 201, "{}", res.text().await.unwrap());
        }
        let baseline = common::rss_kib();
        let peak = Arc::new(AtomicU64::new(baseline));
        let sampling = Arc::new(AtomicBool::new(true));
        let sampler = {
            let (peak, sampling) = (peak.clone(), sampling.clone());
            std::thread::spawn(move || {
                while sampling.load(Ordering::Relaxed) {
                    peak.fetch_max(common::rss_kib(), Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(2));
                }
            })
        };
        let started = Instant::now();
        let job: Value = client.post(format!("{base}/sites/{site_id}/export")).header("X-API-Key", MASTER_KEY).send().await.unwrap().json().await.unwrap();
        let id = job["id"].as_str().unwrap();
        let done = loop {
            let job: Value = client.get(format!("{base}/sites/{site_id}/export/{id}")).header("X-API-Key", MASTER_KEY).send().await.unwrap().json().await.unwrap();
            if job["status"] == "ready" || job["status"] == "failed" {
                break job;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let took = started.elapsed();
        sampling.store(false, Ordering::Relaxed);
        sampler.join().unwrap();
        assert_eq!(done["status"], "ready", "{done}");
        let growth = peak.load(Ordering::Relaxed).saturating_sub(baseline) as f64 / 1024.0;
        println!("\n## Export (1,000 posts, 200 MB of media)\n");
        println!("| figure | value | target |\n|---|---|---|");
        println!("| time to ready | {:.2} s | |", took.as_secs_f64());
        println!("| archive size | {:.1} MB | |", done["size"].as_i64().unwrap_or(0) as f64 / 1e6);
        println!("| peak RSS growth while building | {growth:.1} MiB | < 32 MiB |");
    });
}
