//! Moving big sites: `cargo bench --bench moving`.
//!
//! The release binary runs as its own process (its peak RSS is its own) on
//! SQLite, and on PostgreSQL when `PLINTH_TEST_DATABASE_URL` is set. A base site
//! is seeded through the API: 1,000 posts, each with a German localization,
//! two categories and a tag, and `MOVING_MEDIA_MB` of media (default 1024) in
//! 16 MiB files. Its export is the seed of every step: for a step of N posts the
//! bench writes that export's posts N/1,000 times (new ids and slugs, the same
//! rows otherwise) and imports it. Then, while another site's list is read
//! continuously (response cache off) and one of its posts retitled 20 times a
//! second, it measures:
//! - the export of the N-post site (queued → ready), and
//! - the import of that export (`POST /sites/import` → 201),
//!
//! printing the time, the server's peak RSS growth (VmHWM after
//! `/proc/<pid>/clear_refs` = 5, against VmRSS before), the p50/p99 of the
//! other site's reads and the p99 of its writes, beside their p99 with nothing
//! running.
//!
//! Settings: MOVING_STEPS (default 1000,10000,100000), MOVING_MEDIA_MB.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::PlinthProcess;
use reqwest::multipart::{Form, Part};
use serde_json::{json, Value};

const MASTER_KEY: &str = "plk_bench_moving_master_key";
const BASE_POSTS: usize = 1_000;
const SECTIONS: [&str; 14] = [
    "format",
    "exported_at",
    "site",
    "settings",
    "locales",
    "media",
    "taxonomy",
    "blogs",
    "pages",
    "projects",
    "cv_entries",
    "skills",
    "legal",
    "navigation",
];

fn env_list(name: &str, default: &[usize]) -> Vec<usize> {
    std::env::var(name)
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| default.to_vec())
}

fn main() {
    let steps = env_list("MOVING_STEPS", &[1_000, 10_000, 100_000]);
    let media_mb = env_list("MOVING_MEDIA_MB", &[1024])[0];
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let mut backends = vec![("SQLite", None)];
    if let Ok(url) = std::env::var("PLINTH_TEST_DATABASE_URL") {
        if !url.is_empty() {
            backends.push(("PostgreSQL", Some(url)));
        }
    }
    for (name, admin_url) in backends {
        let dir = tempfile::tempdir().unwrap();
        let database_url = match &admin_url {
            Some(url) => runtime.block_on(common::fresh_postgres(url)),
            None => format!("sqlite://{}/bench.db?mode=rwc", dir.path().display()),
        };
        // Archives of a gigabyte and more: the upload limit of one archive is raised.
        let config = dir.path().join("plinth.toml");
        std::fs::write(&config, "[media]\nmax_upload_bytes = 17179869184\nsite_quota_bytes = 0\n").unwrap();
        let server = PlinthProcess::start(
            &database_url,
            dir.path(),
            &[
                ("PLINTH_BOOTSTRAP_API_KEY", MASTER_KEY),
                ("PLINTH_CONFIG", config.to_str().unwrap()),
                ("PLINTH_RESPONSE_CACHE_BYTES", "0"),
            ],
        );
        println!("\n## Moving sites on {name} ({media_mb} MiB of media, steps {steps:?})\n");
        runtime.block_on(run(&server, dir.path(), &steps, media_mb));
        server.stop();
    }
}

struct Api {
    base: String,
    client: reqwest::Client,
}

impl Api {
    async fn send(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let res = self
            .client
            .request(method, format!("{}{path}", self.base))
            .header("X-API-Key", MASTER_KEY)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert!(res.status().is_success(), "{path}: {}", res.status());
        res.json().await.unwrap_or(Value::Null)
    }

    async fn post(&self, path: &str, body: Value) -> Value {
        self.send(reqwest::Method::POST, path, body).await
    }
}

async fn run(server: &PlinthProcess, dir: &Path, steps: &[usize], media_mb: usize) {
    let api = Api { base: format!("http://{}/api/v1", server.addr), client: reqwest::Client::new() };
    let started = Instant::now();
    let (base_site, other) = seed(&api, media_mb).await;
    println!(
        "seeded the base site (1,000 posts with localizations, media) and another site in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let base_zip = export(&api, &base_site, &dir.join("base.zip")).await.0;

    let (_, idle, idle_writes) = beside(&api, &other, async { tokio::time::sleep(Duration::from_secs(3)).await }).await;
    println!(
        "other site with nothing running: reads p50 {:.2} ms, p99 {:.2} ms ({} reads); writes p99 {:.2} ms ({} writes)\n",
        idle.p50, idle.p99, idle.count, idle_writes.p99, idle_writes.count
    );
    println!(
        "| posts | job | time | peak RSS growth | other site's reads p50 / p99 (idle p99 {:.2} ms) | its writes p99 (idle {:.2} ms) |",
        idle.p99, idle_writes.p99
    );
    println!("|---|---|---|---|---|---|");
    let pid = server.child.id();
    for &posts in steps {
        let scaled = dir.join(format!("seed-{posts}.zip"));
        scale(&base_zip, &scaled, posts / BASE_POSTS);
        let seeded = Instant::now();
        let site = import(&api, &scaled).await;
        std::fs::remove_file(&scaled).unwrap();
        eprintln!("({posts} posts seeded by importing a scaled export in {:.1} s)", seeded.elapsed().as_secs_f64());

        let target = dir.join(format!("export-{posts}.zip"));
        let before = reset_peak(pid);
        let ((_, (took, size)), reads, writes) = beside(&api, &other, export(&api, &site, &target)).await;
        let growth = peak_kib(pid).saturating_sub(before);
        println!(
            "| {posts} | export ({:.0} MB) | {:.1} s | {:.1} MiB | {:.2} / {:.2} ms ({} reads) | {:.2} ms ({} writes) |",
            size as f64 / 1e6,
            took.as_secs_f64(),
            growth as f64 / 1024.0,
            reads.p50,
            reads.p99,
            reads.count,
            writes.p99,
            writes.count
        );
        let before = reset_peak(pid);
        let import_started = Instant::now();
        let (_, reads, writes) = beside(&api, &other, import(&api, &target)).await;
        let took = import_started.elapsed();
        let growth = peak_kib(pid).saturating_sub(before);
        println!(
            "| {posts} | import | {:.1} s | {:.1} MiB | {:.2} / {:.2} ms ({} reads) | {:.2} ms ({} writes) |",
            took.as_secs_f64(),
            growth as f64 / 1024.0,
            reads.p50,
            reads.p99,
            reads.count,
            writes.p99,
            writes.count
        );
        std::fs::remove_file(&target).unwrap();
    }
}

/// Another site, read and written while a job runs: a Read key on it and one of its posts.
struct Other {
    id: String,
    reader: String,
    post: String,
}

/// The base site, and the other site.
async fn seed(api: &Api, media_mb: usize) -> (String, Other) {
    let site =
        api.post("/sites", json!({"name": "Moving", "slug": "moving"})).await["id"].as_str().unwrap().to_string();
    let locales: Value = api
        .client
        .get(format!("{}/locales", api.base))
        .header("X-API-Key", MASTER_KEY)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let de = locales.as_array().unwrap().iter().find(|l| l["code"] == "de").unwrap()["id"].clone();
    api.post(&format!("/sites/{site}/locales"), json!({"locale_id": de})).await;
    let mut categories = Vec::new();
    for name in ["Travel", "Food"] {
        categories.push(api.post(&format!("/sites/{site}/categories"), json!({"name": name})).await["id"].clone());
    }
    let tag = api.post(&format!("/sites/{site}/tags"), json!({"name": "Mountains"})).await["id"].clone();
    for i in 0..BASE_POSTS {
        let body = "Some words about the trip. ".repeat(30);
        let post = api
            .post(
                "/blogs",
                json!({"site_ids": [site], "title": format!("Post {i}"), "body": body, "status": "Published",
                       "category_ids": [categories[i % 2]], "tag_ids": [tag]}),
            )
            .await;
        let id = post["id"].as_str().unwrap();
        api.post(
            &format!("/blogs/{id}/localizations"),
            json!({"locale_id": de, "title": format!("Beitrag {i}"), "body": "Ein paar Worte. ".repeat(30)}),
        )
        .await;
    }
    // Media: files of 16 MiB of incompressible bytes (stored as they are).
    let files = media_mb.div_ceil(16);
    for n in 0..files {
        let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ n as u64;
        let chunks = futures_util::stream::iter((0..256).map(move |i| {
            let mut chunk = vec![0u8; 64 * 1024];
            for b in chunk.chunks_mut(8) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                b.copy_from_slice(&state.to_le_bytes()[..b.len()]);
            }
            if i == 0 {
                chunk[..4].copy_from_slice(b"PK\x03\x04");
            }
            Ok::<_, std::io::Error>(Bytes::from(chunk))
        }));
        let part = Part::stream_with_length(reqwest::Body::wrap_stream(chunks), 256 * 64 * 1024)
            .file_name(format!("bundle-{n}.zip"));
        let form = Form::new().text("site_ids", json!([site]).to_string()).part("file", part);
        let res = api
            .client
            .post(format!("{}/media/upload", api.base))
            .header("X-API-Key", MASTER_KEY)
            .multipart(form)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201, "{}", res.text().await.unwrap());
    }
    let other = api.post("/sites", json!({"name": "Other", "slug": "other"})).await["id"].as_str().unwrap().to_string();
    let mut post = String::new();
    for i in 0..200 {
        let created = api
            .post("/blogs", json!({"site_ids": [other], "title": format!("Other {i}"), "status": "Published"}))
            .await;
        post = created["id"].as_str().unwrap().to_string();
    }
    let reader = api.post("/api-keys", json!({"name": "reader", "permission": "Read", "site_id": other})).await;
    (site, Other { id: other, reader: reader["key"].as_str().unwrap().to_string(), post })
}

/// Exports `site` and downloads the archive to `to`: its path, time and size.
async fn export(api: &Api, site: &str, to: &Path) -> (PathBuf, (Duration, u64)) {
    let started = Instant::now();
    let job = api.post(&format!("/sites/{site}/export"), json!({})).await;
    let id = job["id"].as_str().unwrap();
    let done = loop {
        let job: Value = api
            .client
            .get(format!("{}/sites/{site}/export/{id}", api.base))
            .header("X-API-Key", MASTER_KEY)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if job["status"] == "ready" || job["status"] == "failed" {
            break job;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let took = started.elapsed();
    assert_eq!(done["status"], "ready", "{done}");
    let mut res =
        api.client.get(done["download_url"].as_str().unwrap()).header("X-API-Key", MASTER_KEY).send().await.unwrap();
    let mut file = std::io::BufWriter::new(std::fs::File::create(to).unwrap());
    let mut size = 0u64;
    while let Some(chunk) = res.chunk().await.unwrap() {
        size += chunk.len() as u64;
        file.write_all(&chunk).unwrap();
    }
    file.flush().unwrap();
    (to.to_path_buf(), (took, size))
}

/// Imports the archive at `path` (streamed from disk); the new site's id.
async fn import(api: &Api, path: &Path) -> String {
    let size = std::fs::metadata(path).unwrap().len();
    let file = std::fs::File::open(path).unwrap();
    let chunks = futures_util::stream::unfold(file, |mut file| async move {
        let mut buffer = vec![0u8; 1024 * 1024];
        match file.read(&mut buffer) {
            Ok(0) => None,
            Ok(n) => {
                buffer.truncate(n);
                Some((Ok::<_, std::io::Error>(Bytes::from(buffer)), file))
            }
            Err(e) => Some((Err(e), file)),
        }
    });
    let part = Part::stream_with_length(reqwest::Body::wrap_stream(chunks), size).file_name("site.zip");
    let res = api
        .client
        .post(format!("{}/sites/import", api.base))
        .header("X-API-Key", MASTER_KEY)
        .multipart(Form::new().part("archive", part))
        .send()
        .await
        .unwrap();
    let status = res.status();
    let body: Value = res.json().await.unwrap();
    assert_eq!(status, 201, "{body}");
    body["id"].as_str().unwrap().to_string()
}

/// Writes the base export with its posts `copies` times (new ids, slugs `-<copy>`).
fn scale(base: &Path, to: &Path, copies: usize) {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(base).unwrap()).unwrap();
    let mut text = String::new();
    zip.by_name("archive.json").unwrap().read_to_string(&mut text).unwrap();
    let document: Value = serde_json::from_str(&text).unwrap();
    let mut out = zip::ZipWriter::new(std::io::BufWriter::new(std::fs::File::create(to).unwrap()));
    for index in 0..zip.len() {
        let entry = zip.by_index_raw(index).unwrap();
        if entry.name().unwrap() != "archive.json" {
            out.raw_copy_file(entry).unwrap();
        }
    }
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated).large_file(true);
    out.start_file("archive.json", options).unwrap();
    let mut json = std::io::BufWriter::new(&mut out);
    json.write_all(b"{").unwrap();
    for (n, key) in SECTIONS.iter().enumerate() {
        if n > 0 {
            json.write_all(b",\n").unwrap();
        }
        write!(json, "\"{key}\": ").unwrap();
        if *key != "blogs" {
            serde_json::to_writer(&mut json, &document[*key]).unwrap();
            continue;
        }
        json.write_all(b"[").unwrap();
        let mut first = true;
        for copy in 0..copies.max(1) {
            for post in document["blogs"].as_array().unwrap() {
                let mut post = post.clone();
                post["id"] = json!(uuid::Uuid::new_v4());
                let slug = format!("{}-{copy}", post["placement"]["slug"].as_str().unwrap());
                post["placement"]["slug"] = json!(slug);
                post["slug"] = json!(slug);
                json.write_all(if first { b"\n" } else { b",\n" }).unwrap();
                first = false;
                serde_json::to_writer(&mut json, &post).unwrap();
            }
        }
        json.write_all(b"\n]").unwrap();
    }
    json.write_all(b"}\n").unwrap();
    json.flush().unwrap();
    drop(json);
    out.finish().unwrap();
}

/// Runs `job` while two clients read the other site's first list pages one
/// request after another, and a third retitles one of its posts 20 times a
/// second; the job's outcome, the reads' and the writes' latencies.
async fn beside<T>(api: &Api, other: &Other, job: impl std::future::Future<Output = T>) -> (T, Latencies, Latencies) {
    let running = Arc::new(AtomicBool::new(true));
    let mut readers = Vec::new();
    for client in 0..2 {
        let (running, http) = (running.clone(), api.client.clone());
        let url = format!("{}/sites/{}/blogs?per_page=10", api.base, other.id);
        let reader = other.reader.clone();
        readers.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut n = client;
            while running.load(Ordering::Relaxed) {
                let started = Instant::now();
                let res =
                    http.get(format!("{url}&page={}", n % 5 + 1)).header("X-API-Key", &reader).send().await.unwrap();
                assert!(res.status().is_success(), "{}", res.status());
                res.bytes().await.unwrap();
                latencies.push(started.elapsed().as_secs_f64() * 1000.0);
                n += 1;
            }
            latencies
        }));
    }
    let writer = {
        let (running, http) = (running.clone(), api.client.clone());
        let url = format!("{}/blogs/{}", api.base, other.post);
        tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut n = 0;
            while running.load(Ordering::Relaxed) {
                let started = Instant::now();
                let body = json!({"title": format!("Retitled {n}")});
                let res = http.put(&url).header("X-API-Key", MASTER_KEY).json(&body).send().await.unwrap();
                assert!(res.status().is_success(), "{}", res.status());
                res.bytes().await.unwrap();
                latencies.push(started.elapsed().as_secs_f64() * 1000.0);
                n += 1;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            latencies
        })
    };
    let outcome = job.await;
    running.store(false, Ordering::Relaxed);
    let mut reads: Vec<f64> = Vec::new();
    for reader in readers {
        reads.extend(reader.await.unwrap());
    }
    (outcome, Latencies::of(reads), Latencies::of(writer.await.unwrap()))
}

struct Latencies {
    p50: f64,
    p99: f64,
    count: usize,
}

impl Latencies {
    fn of(mut latencies: Vec<f64>) -> Latencies {
        latencies.sort_by(f64::total_cmp);
        let at = |q: f64| {
            latencies
                .get(((latencies.len() as f64 * q) as usize).min(latencies.len().saturating_sub(1)))
                .copied()
                .unwrap_or(0.0)
        };
        Latencies { p50: at(0.50), p99: at(0.99), count: latencies.len() }
    }
}

fn status_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Resets the server's peak RSS to its current RSS; answers that RSS (KiB).
fn reset_peak(pid: u32) -> u64 {
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").unwrap();
    status_kib(pid, "VmRSS:")
}

fn peak_kib(pid: u32) -> u64 {
    status_kib(pid, "VmHWM:")
}
