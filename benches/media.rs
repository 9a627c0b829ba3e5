//! Media benchmark: `cargo bench --bench media`.
//!
//! Starts Plinth (SQLite, default workers and MediaPool threads, response cache
//! off so every read does its work) and a bare actix-web handler in this
//! process, then measures:
//! - memory: the process's peak RSS growth while a 50 MB file streams in
//!   (target < 16 MB: the upload is never held whole);
//! - a 12 MP JPEG uploaded until its four variants are stored (target < 1.5 s),
//!   beside the bare handler receiving the same bytes;
//! - the admin blog list read by 4 clients, alone and while 4 other clients
//!   upload 2 MP photos in a loop (target: p99 within 1.5× of the quiet one).
//!
//! Settings: BENCH_SECONDS per read phase (default 5).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::{web, App, HttpResponse, HttpServer};
use bytes::Bytes;
use image::codecs::jpeg::JpegEncoder;
use image::{ExtendedColorType, ImageEncoder};
use plinth::Config;
use reqwest::multipart::{Form, Part};
use serde_json::{json, Value};

const MASTER_KEY: &str = "plk_bench_media_master";
const POSTS: usize = 200;

fn jpeg(width: u32, height: u32, seed: u8) -> Vec<u8> {
    let pixels: Vec<u8> = (0..width * height)
        .flat_map(|i| {
            let (x, y) = (i % width, i / width);
            [(x * 255 / width) as u8 ^ seed, (y * 255 / height) as u8, ((x + y) % 256) as u8]
        })
        .collect();
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, 90).write_image(&pixels, width, height, ExtendedColorType::Rgb8).unwrap();
    out
}

/// A handler that reads an upload's body and answers its length.
fn start_bare() -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let server = HttpServer::new(|| {
                App::new().route(
                    "/upload",
                    web::post().to(|body: web::Payload| async move {
                        let bytes = body.to_bytes_limited(64 * 1024 * 1024).await.unwrap().unwrap();
                        HttpResponse::Ok().json(json!({"bytes": bytes.len()}))
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

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1000.0
}

struct Bench {
    client: reqwest::Client,
    base: String,
    site_id: String,
    reader: String,
}

impl Bench {
    async fn upload(&self, name: &str, part: Part) -> (u16, Value) {
        let form = Form::new()
            .text("site_ids", json!([self.site_id]).to_string())
            .part("file", part.file_name(name.to_string()));
        let res = self
            .client
            .post(format!("{}/media/upload", self.base))
            .header("X-API-Key", MASTER_KEY)
            .multipart(form)
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    /// 4 readers of the admin blog list for `seconds`; every latency.
    async fn read_list(&self, seconds: u64) -> Vec<Duration> {
        let url = format!("{}/sites/{}/blogs?per_page=20", self.base, self.site_id);
        let until = Instant::now() + Duration::from_secs(seconds);
        let readers = (0..4).map(|_| {
            let (client, url, key) = (self.client.clone(), url.clone(), self.reader.clone());
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                while Instant::now() < until {
                    let started = Instant::now();
                    let res = client.get(&url).header("X-API-Key", &key).send().await.unwrap();
                    assert_eq!(res.status(), 200);
                    res.bytes().await.unwrap();
                    latencies.push(started.elapsed());
                }
                latencies
            })
        });
        let mut all = Vec::new();
        for reader in readers.collect::<Vec<_>>() {
            all.extend(reader.await.unwrap());
        }
        all.sort();
        all
    }
}

fn main() {
    let seconds: u64 = std::env::var("BENCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::defaults().unwrap();
    config.database_url = format!("sqlite://{}/bench.db?mode=rwc", dir.path().display());
    config.data_dir = dir.path().join("data");
    config.bootstrap_api_key = Some(MASTER_KEY.into());
    config.log.filter = "error".into();
    config.sites.response_cache_bytes = 0;
    let plinth = common::start_plinth(config);
    let bare = start_bare();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async move {
        let client = reqwest::Client::new();
        let base = format!("http://{plinth}/api/v1");
        let post = |path: &str, body: Value| client.post(format!("{base}{path}")).header("X-API-Key", MASTER_KEY).json(&body).send();
        let site: Value = post("/sites", json!({"name": "Media bench", "slug": "media-bench"})).await.unwrap().json().await.unwrap();
        let site_id = site["id"].as_str().unwrap().to_string();
        let reader: Value = post("/api-keys", json!({"name": "reader", "permission": "Read", "site_id": site_id})).await.unwrap().json().await.unwrap();
        for i in 0..POSTS {
            let body = json!({"site_ids": [site_id], "title": format!("Post {i}"), "status": "Published"});
            assert_eq!(post("/blogs", body).await.unwrap().status(), 201);
        }
        let bench = Bench { client: client.clone(), base: base.clone(), site_id, reader: reader["key"].as_str().unwrap().to_string() };

        // 1. Memory while 50 MB stream in (first, before image work grows the heap).
        const BIG: usize = 50_000_000;
        const CHUNK: usize = 64 * 1024;
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
        let chunks = futures_util::stream::iter((0..BIG.div_ceil(CHUNK)).map(|i| {
            let mut chunk = vec![(i % 251) as u8; CHUNK.min(BIG - i * CHUNK)];
            if i == 0 {
                chunk[..4].copy_from_slice(b"PK\x03\x04");
            }
            Ok::<_, std::io::Error>(Bytes::from(chunk))
        }));
        let started = Instant::now();
        let part = Part::stream_with_length(reqwest::Body::wrap_stream(chunks), BIG as u64);
        let (status, record) = bench.upload("archive.zip", part).await;
        let took = started.elapsed();
        sampling.store(false, Ordering::Relaxed);
        sampler.join().unwrap();
        assert_eq!(status, 201, "{record}");
        let growth_mib = (peak.load(Ordering::Relaxed).saturating_sub(baseline)) as f64 / 1024.0;
        println!("\n## Media (SQLite)\n");
        println!("| row | figure | target |\n|---|---|---|");
        println!(
            "| RSS growth while a 50 MB file uploads | {growth_mib:.1} MiB (upload took {:.2} s, {:.0} MB/s) | < 16 MiB |",
            took.as_secs_f64(),
            BIG as f64 / 1e6 / took.as_secs_f64()
        );

        // 2. A 12 MP photo until its variants are stored.
        let mut times = Vec::new();
        let mut bare_times = Vec::new();
        for seed in 0..5u8 {
            let photo = jpeg(4000, 3000, seed);
            let size = photo.len();
            let started = Instant::now();
            let (status, record) = bench.upload(&format!("photo-{seed}.jpg"), Part::bytes(photo.clone())).await;
            times.push(started.elapsed());
            assert_eq!(status, 201, "{record}");
            assert_eq!(record["variants"].as_array().map(Vec::len), Some(4));
            let started = Instant::now();
            let res = client.post(format!("http://{bare}/upload")).body(photo).send().await.unwrap();
            assert_eq!(res.json::<Value>().await.unwrap()["bytes"], size);
            bare_times.push(started.elapsed());
        }
        times.sort();
        bare_times.sort();
        println!(
            "| 12 MP JPEG upload → 4 variants stored (5 runs) | median {:.0} ms, max {:.0} ms (bare handler receiving it: {:.1} ms) | < 1,500 ms |",
            percentile(&times, 0.5),
            percentile(&times, 1.0),
            percentile(&bare_times, 0.5)
        );

        // 3. Reads alone, then beside 4 uploaders.
        let quiet = bench.read_list(seconds).await;
        let uploading = Arc::new(AtomicBool::new(true));
        let uploads = Arc::new(AtomicU64::new(0));
        let photo = Bytes::from(jpeg(1600, 1200, 7));
        let bench = Arc::new(bench);
        let uploaders: Vec<_> = (0..4u64)
            .map(|u| {
                let (bench, uploading, uploads, photo) = (bench.clone(), uploading.clone(), uploads.clone(), photo.clone());
                tokio::spawn(async move {
                    let mut n = 0u64;
                    while uploading.load(Ordering::Relaxed) {
                        // A distinct file each time: trailing bytes after the JPEG's end.
                        let mut bytes = photo.to_vec();
                        bytes.extend_from_slice(&(u * 1_000_000 + n).to_be_bytes());
                        n += 1;
                        let (status, _) = bench.upload("loop.jpg", Part::bytes(bytes)).await;
                        if status == 201 {
                            uploads.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let busy = bench.read_list(seconds).await;
        uploading.store(false, Ordering::Relaxed);
        for u in uploaders {
            u.await.unwrap();
        }
        let (q99, b99) = (percentile(&quiet, 0.99), percentile(&busy, 0.99));
        println!(
            "| blog list, 4 readers, quiet | {:.0} reads/s, p50 {:.2} ms, p99 {q99:.2} ms | |",
            quiet.len() as f64 / seconds as f64,
            percentile(&quiet, 0.5)
        );
        println!(
            "| blog list, 4 readers, 4 clients uploading 2 MP photos | {:.0} reads/s, p50 {:.2} ms, p99 {b99:.2} ms ({} uploads, {:.1}/s) | p99 within 1.5× of quiet: {:.2}× |",
            busy.len() as f64 / seconds as f64,
            percentile(&busy, 0.5),
            uploads.load(Ordering::Relaxed),
            uploads.load(Ordering::Relaxed) as f64 / (seconds as f64 + 0.3),
            b99 / q99
        );
    });
}
