//! Instructions per request: `cargo bench --bench request_cost` (needs valgrind).
//!
//! Wall-clock figures on a shared 2-core machine swing by tens of percent; an
//! instruction count does not. This bench re-runs itself under
//! `valgrind --tool=callgrind`, counting every thread's instructions while the
//! measuring function runs (the requests, the SQL on the pool's worker
//! threads, the outbox's fan-out), and drives the served application in process (`plinth::app::application`,
//! the same middleware and routes as a server worker, minus the socket) with a
//! fixed number of requests per target, beside a bare actix-web handler.
//! Prints instructions per request and the ratio to the bare handler.
//!
//! Settings: BENCH_REQUESTS (default 2000 per target); BENCH_PROFILES, a
//! folder to keep each target's callgrind profile in (read the measured
//! window, `callgrind.target-N.out.2`, with `callgrind_annotate`).
//!
//! **The gate.** `benches/request_cost.baseline` holds the instructions per
//! request of each target. With `BENCH_CHECK=1` (`.ci/run` sets it) the bench
//! fails when a target costs more than 5% over its baseline, or has none. A
//! change that means to cost more writes the baseline anew in the same commit
//! (`BENCH_UPDATE_BASELINE=1`) and says why in its message.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

use actix_web::http::StatusCode;
use actix_web::test::{call_service, init_service, TestRequest};
use actix_web::{web, App, HttpResponse};
use plinth::{Config, Plinth};
use serde_json::{json, Value};

const UNDER_CALLGRIND: &str = "PLINTH_BENCH_UNDER_CALLGRIND";

/// The requests of one target, in the order they are measured.
struct Target {
    label: &'static str,
    request: fn(&Fixture) -> TestRequest,
    expect: StatusCode,
    /// Each answer's `ETag` is the next request's `If-Match` ([`LAST_TAG`]).
    chains_tag: bool,
}

struct Fixture {
    site_id: String,
    blog_id: String,
    reader_key: String,
    /// A Write key of the site (the write target).
    writer_key: String,
    spent_key: String,
    list_etag: String,
    /// The post the edit targets change (a draft of the Master key's).
    edited_id: String,
}

fn with_key(req: TestRequest, key: &str) -> TestRequest {
    req.insert_header(("X-API-Key", key.to_string()))
}

const TARGETS: &[Target] = &[
    Target {
        label: "GET /sites/{id}, key",
        request: |f| with_key(TestRequest::get().uri(&format!("/api/v1/sites/{}", f.site_id)), &f.reader_key),
        expect: StatusCode::OK,
        chains_tag: false,
    },
    Target {
        label: "GET /sites/{id}/blogs?per_page=10, key",
        request: |f| {
            with_key(TestRequest::get().uri(&format!("/api/v1/sites/{}/blogs?per_page=10", f.site_id)), &f.reader_key)
        },
        expect: StatusCode::OK,
        chains_tag: false,
    },
    Target {
        label: "GET /blogs/{id}, key",
        request: |f| with_key(TestRequest::get().uri(&format!("/api/v1/blogs/{}", f.blog_id)), &f.reader_key),
        expect: StatusCode::OK,
        chains_tag: false,
    },
    Target {
        label: "admin list, If-None-Match → 304",
        request: |f| {
            with_key(TestRequest::get().uri(&format!("/api/v1/sites/{}/blogs?per_page=10", f.site_id)), &f.reader_key)
                .insert_header(("If-None-Match", f.list_etag.clone()))
        },
        expect: StatusCode::NOT_MODIFIED,
        chains_tag: false,
    },
    Target {
        label: "key over its limit → 429",
        request: |f| with_key(TestRequest::get().uri(&format!("/api/v1/sites/{}", f.site_id)), &f.spent_key),
        expect: StatusCode::TOO_MANY_REQUESTS,
        chains_tag: false,
    },
    Target {
        label: "POST /blogs, key",
        request: |f| {
            let n = WRITTEN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            with_key(TestRequest::post().uri("/api/v1/blogs"), &f.writer_key)
                .set_json(json!({"site_ids": [f.site_id], "title": format!("Written {n}"), "excerpt": "A post"}))
        },
        expect: StatusCode::CREATED,
        chains_tag: false,
    },
    Target { label: "PUT /blogs/{id}, key", request: |f| edit_post(f), expect: StatusCode::OK, chains_tag: false },
    Target {
        label: "PUT /blogs/{id}, key, If-Match",
        request: |f| {
            let tag = LAST_TAG.lock().unwrap().clone();
            edit_post(f).insert_header(("If-Match", tag))
        },
        expect: StatusCode::OK,
        chains_tag: true,
    },
    Target {
        // An open editor's keep-alive: the first request takes the lease,
        // every other renews it (one update by the item's key, one event).
        label: "POST /blogs/{id}/lease, renewal",
        request: |f| {
            with_key(TestRequest::post().uri(&format!("/api/v1/blogs/{}/lease", f.edited_id)), "plk_bench_master_key")
                .set_json(json!({}))
        },
        expect: StatusCode::OK,
        chains_tag: false,
    },
];

/// A change of the post the edit targets make, each its own.
fn edit_post(f: &Fixture) -> TestRequest {
    let n = WRITTEN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    with_key(TestRequest::put().uri(&format!("/api/v1/blogs/{}", f.edited_id)), "plk_bench_master_key")
        .set_json(json!({"excerpt": format!("Edit {n}")}))
}

/// The `ETag` of the conditional edit's last answer: the version it holds.
static LAST_TAG: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

/// Posts the write target has made (each needs its own title).
static WRITTEN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

const BASELINE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/request_cost.baseline");
/// How much dearer than its baseline a target may be.
const TOLERANCE: f64 = 0.05;

fn main() {
    let requests: u64 = std::env::var("BENCH_REQUESTS").ok().and_then(|s| s.parse().ok()).unwrap_or(2000);
    if let Some(target) = std::env::var(UNDER_CALLGRIND).ok().and_then(|t| t.parse().ok()) {
        return measure(target, requests);
    }
    let labels: Vec<&str> =
        std::iter::once("bare actix-web handler (fixed JSON)").chain(TARGETS.iter().map(|t| t.label)).collect();
    // One valgrind process per target: callgrind counts only while the
    // measuring function runs, so start-up and seeding do not count.
    let per_request: Vec<f64> = (0..labels.len())
        .map(|target| {
            let dir = tempfile::tempdir().unwrap();
            let out = match std::env::var_os("BENCH_PROFILES") {
                Some(folder) => Path::new(&folder).join(format!("callgrind.target-{target}.out")),
                None => dir.path().join("callgrind.out"),
            };
            // Every thread's instructions from the measuring function's start
            // to its end: the SQL runs on the pool's worker threads (SQLite's
            // own work, triggers, index and log writes: 40% of a write), and
            // the outbox's fan-out on its own task. A dump writes and resets
            // every thread's counts (a zero resets only the calling
            // thread's), so the second dump holds the window alone. The
            // function is named exactly: a pattern would match its async
            // block too, entered again at every poll.
            let status = Command::new("valgrind")
                .args([
                    "--tool=callgrind",
                    "--dump-before=request_cost::measure_requests",
                    "--dump-after=request_cost::measure_requests",
                    &format!("--callgrind-out-file={}", out.display()),
                ])
                .arg(std::env::current_exe().unwrap())
                .env(UNDER_CALLGRIND, target.to_string())
                .env("BENCH_REQUESTS", requests.to_string())
                .stderr(std::process::Stdio::null())
                .status()
                .expect("valgrind is installed (apt-get install valgrind)");
            assert!(status.success(), "the measured run of {} failed", labels[target]);
            // The dump taken after the measuring function (`.1` is start-up).
            let window = out.with_file_name(format!("{}.2", out.file_name().unwrap().to_string_lossy()));
            totals(&window).expect("callgrind wrote its totals") as f64 / requests as f64
        })
        .collect();
    println!("callgrind, {requests} requests per target, in process (no socket)\n");
    println!("{:<48} {:>16} {:>14}", "target", "instructions/req", "bare / target");
    for (label, cost) in labels.iter().zip(&per_request) {
        println!("{label:<48} {cost:>16.0} {:>14.2}", per_request[0] / cost);
    }
    if std::env::var_os("BENCH_UPDATE_BASELINE").is_some() {
        let lines: String =
            labels.iter().zip(&per_request).map(|(label, cost)| format!("{cost:.0}\t{label}\n")).collect();
        std::fs::write(
            BASELINE,
            format!("# instructions per request\ttarget (cargo bench --bench request_cost)\n{lines}"),
        )
        .unwrap();
        println!("\nwrote {BASELINE}");
    } else if std::env::var_os("BENCH_CHECK").is_some() {
        check_against_baseline(&labels, &per_request);
    }
}

/// Fails (exit 1) when a target costs more than [`TOLERANCE`] over its baseline.
fn check_against_baseline(labels: &[&str], per_request: &[f64]) {
    let text = std::fs::read_to_string(BASELINE).unwrap_or_default();
    let baseline: std::collections::HashMap<&str, f64> = text
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.split_once('\t'))
        .filter_map(|(cost, label)| Some((label, cost.parse().ok()?)))
        .collect();
    println!("\nagainst {BASELINE} (at most {:.0}% more):", TOLERANCE * 100.0);
    let mut failed = Vec::new();
    for (label, cost) in labels.iter().zip(per_request) {
        match baseline.get(label) {
            Some(base) => {
                let change = cost / base - 1.0;
                println!("{label:<48} {base:>16.0} {:>+13.1}%", change * 100.0);
                if change > TOLERANCE {
                    failed.push(format!(
                        "{label}: {cost:.0} instructions per request, {:+.1}% over {base:.0}",
                        change * 100.0
                    ));
                }
            }
            None => failed.push(format!("{label}: no baseline")),
        }
    }
    if !failed.is_empty() {
        eprintln!(
            "\nrequests got dearer:\n  {}\nIf that is meant, run BENCH_UPDATE_BASELINE=1 cargo bench --bench request_cost and say why in the commit message.",
            failed.join("\n  ")
        );
        std::process::exit(1);
    }
}

/// The `totals:` (or `summary:`) line of a callgrind dump.
fn totals(path: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines().find_map(|l| {
        l.strip_prefix("totals:").or_else(|| l.strip_prefix("summary:"))?.trim().split(' ').next()?.parse().ok()
    })
}

/// Runs `requests` requests through `app` to completion; callgrind counts
/// from its entry to its return (a plain function, so the polling happens
/// inside it).
#[inline(never)]
fn measure_requests<S, B>(
    system: &actix_web::rt::SystemRunner,
    app: &S,
    requests: u64,
    request: impl Fn() -> TestRequest,
    expect: StatusCode,
    chains_tag: bool,
) where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    system.block_on(async {
        for _ in 0..requests {
            let res = call_service(app, request().to_request()).await;
            assert_eq!(res.status(), expect);
            if chains_tag {
                keep_tag(&res);
            }
            // Read the body as a client would; it is part of the cost.
            let _ = actix_web::body::to_bytes(res.into_body()).await;
        }
    });
}

fn keep_tag<B>(res: &actix_web::dev::ServiceResponse<B>) {
    if let Some(tag) = res.headers().get("etag").and_then(|v| v.to_str().ok()) {
        *LAST_TAG.lock().unwrap() = tag.to_string();
    }
}

/// Target 0 is the bare handler; 1.. are `TARGETS`.
fn measure(target: usize, requests: u64) {
    let system = actix_web::rt::System::new();
    let bare_body = json!({
        "id": uuid::Uuid::new_v4(), "name": "Site bench", "slug": "bench", "description": "",
        "base_url": null, "is_active": true, "logo_url": null, "favicon_url": null,
        "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"
    });
    let bare = system.block_on(init_service(App::new().route(
        "/bare",
        web::get().to(move || {
            let body = bare_body.clone();
            async move { HttpResponse::Ok().json(body) }
        }),
    )));
    if target == 0 {
        return measure_requests(&system, &bare, requests, || TestRequest::get().uri("/bare"), StatusCode::OK, false);
    }

    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::defaults().unwrap();
    config.database_url = format!("sqlite://{}?mode=rwc", dir.path().join("bench.db").display());
    config.data_dir = dir.path().join("data");
    config.bootstrap_api_key = Some("plk_bench_master_key".into());
    config.log.filter = "error".into();
    let plinth = system.block_on(Plinth::build(config)).unwrap();
    let trash = web::Data::new(plinth::api::trash_sources());
    let app = system.block_on(init_service(plinth::app::application(&plinth.state, &plinth.webhooks, &trash)));
    let fixture = system.block_on(seed(&app));
    let target = &TARGETS[target - 1];
    // Warm: caches filled, the spent key's quota used up.
    system.block_on(async {
        for _ in 0..5 {
            let res = call_service(&app, (target.request)(&fixture).to_request()).await;
            keep_tag(&res);
        }
    });
    measure_requests(&system, &app, requests, || (target.request)(&fixture), target.expect, target.chains_tag);
}

async fn seed<S, B>(app: &S) -> Fixture
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let post = |path: &str, body: Value| {
        with_key(TestRequest::post().uri(&format!("/api/v1{path}")), "plk_bench_master_key").set_json(body).to_request()
    };
    let json_of = |res: actix_web::dev::ServiceResponse<B>| async move {
        let bytes = actix_web::body::to_bytes(res.into_body()).await.ok().unwrap();
        serde_json::from_slice::<Value>(&bytes).unwrap()
    };
    let site = json_of(call_service(app, post("/sites", json!({"name": "Bench", "slug": "bench"}))).await).await;
    let site_id = site["id"].as_str().unwrap().to_string();
    let key = |extra: Value| {
        let mut body = json!({"name": "bench", "permission": "Read", "site_id": site_id});
        body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        post("/api-keys", body)
    };
    let reader = json_of(call_service(app, key(json!({}))).await).await;
    let writer = json_of(call_service(app, key(json!({"permission": "Write"}))).await).await;
    let spent = json_of(call_service(app, key(json!({"rate_limit_per_hour": 1}))).await).await;
    let mut blog_id = String::new();
    for i in 0..30 {
        let body = json!({"site_ids": [site_id], "title": format!("Post {i}"), "status": "Published"});
        blog_id = json_of(call_service(app, post("/blogs", body)).await).await["id"].as_str().unwrap().to_string();
    }
    // Before the list's tag is read: the 304 target holds the list as it stays.
    let edited = post("/blogs", json!({"site_ids": [site_id], "title": "Edited", "excerpt": "Edit"}));
    let edited_id = json_of(call_service(app, edited).await).await["id"].as_str().unwrap().to_string();
    let reader_key = reader["key"].as_str().unwrap().to_string();
    let list = format!("/api/v1/sites/{site_id}/blogs?per_page=10");
    let res = call_service(app, with_key(TestRequest::get().uri(&list), &reader_key).to_request()).await;
    let list_etag = res.headers().get("etag").unwrap().to_str().unwrap().to_string();
    Fixture {
        site_id,
        blog_id,
        reader_key,
        writer_key: writer["key"].as_str().unwrap().to_string(),
        spent_key: spent["key"].as_str().unwrap().to_string(),
        list_etag,
        edited_id,
    }
}
