//! Load benchmark: `cargo bench --bench http`.
//!
//! Starts a bare actix-web handler returning a fixed JSON body and Plinth, each
//! with one worker, and loads them with `wrk` (`apt-get install wrk`). Plinth runs
//! on SQLite, and on PostgreSQL too when `PLINTH_TEST_DATABASE_URL` names a server
//! (a fresh database is created there), each with the response cache on and off,
//! on a site with 1,000 published posts: the reads an admin UI makes (site, admin
//! list, one blog) with a Read key and with a member's bearer token, the public
//! published list and feed, a conditional list read answered 304, and a key
//! limited to 100 requests/s hammered past its limit (rejections/s, and how many
//! were accepted per one-second window). Prints requests/s, p50, p99 and the
//! ratio to the bare handler for each, and the server's CPU time per request;
//! first, what recording a request in the metrics costs in process (ns).
//!
//! Settings: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 32),
//! BENCH_BACKENDS (`sqlite,postgres` by default; PostgreSQL only with the URL).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};

use actix_web::{web, App, HttpResponse, HttpServer};
use plinth::{Config, Plinth};
use serde_json::{json, Value};

use common::{wrk, wrk_expecting, Figures};

const POSTS: usize = 1000;
const LIMITED_PER_SECOND: u64 = 100;

/// What the rows need from one running Plinth.
#[derive(Clone)]
struct Seeded {
    site_id: String,
    blog_id: String,
    reader_key: String,
    limited_key: String,
}

fn config_for(dir: &Path, database_url: &str, cache_bytes: u64) -> Config {
    let mut config = Config::defaults().unwrap();
    config.database_url = database_url.to_string();
    config.data_dir = dir.join("data");
    config.workers = 1;
    config.bootstrap_api_key = Some(MASTER_KEY.into());
    config.log.filter = "error".into();
    config.sites.response_cache_bytes = cache_bytes;
    // Bearer tokens from the test identity provider's key (tests/api/fixtures).
    let jwk: Value = serde_json::from_str(&std::fs::read_to_string(fixtures().join("jwk_a.json")).unwrap()).unwrap();
    let jwks_file = dir.join("jwks.json");
    std::fs::write(&jwks_file, json!({"keys": [jwk]}).to_string()).unwrap();
    config.idp.jwks_file = Some(jwks_file);
    config.idp.issuer = Some("https://idp.bench".into());
    config.idp.audience = Some("plinth-bench".into());
    config
}

const MASTER_KEY: &str = "plk_bench_master_key";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/api/fixtures")
}

fn bearer_token() -> String {
    let now = chrono::Utc::now().timestamp();
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
    header.kid = Some("key-a".into());
    let claims =
        json!({"sub": "bench-user", "iss": "https://idp.bench", "aud": "plinth-bench", "iat": now, "exp": now + 3600});
    let signing_key = std::fs::read_to_string(fixtures().join("rsa_a.pem")).unwrap();
    let key = jsonwebtoken::EncodingKey::from_rsa_pem(signing_key.as_bytes()).unwrap();
    jsonwebtoken::encode(&header, &claims, &key).unwrap()
}

/// Starts Plinth on its own actix system thread; with `seed`, creates the site,
/// keys, member and posts first. Returns its address.
fn start_plinth(config: Config, seed: bool) -> (SocketAddr, Option<Seeded>) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let app = Plinth::build(config).await.unwrap();
            let running = app.serve(TcpListener::bind("127.0.0.1:0").unwrap(), false).unwrap();
            let addr = running.addr;
            actix_web::rt::spawn(running.server);
            let seeded = match seed {
                true => Some(seed_site(addr).await),
                false => None,
            };
            tx.send((addr, seeded)).unwrap();
            std::future::pending::<()>().await;
        });
    });
    rx.recv().unwrap()
}

async fn seed_site(addr: SocketAddr) -> Seeded {
    let client = reqwest::Client::new();
    let post = |path: &str, body: Value| {
        client.post(format!("http://{addr}/api/v1{path}")).header("X-API-Key", MASTER_KEY).json(&body).send()
    };
    let site: Value =
        post("/sites", json!({"name": "Site bench", "slug": "bench"})).await.unwrap().json().await.unwrap();
    let site_id = site["id"].as_str().unwrap().to_string();
    let key = |name: &str, extra: Value| {
        let mut body = json!({"name": name, "permission": "Read", "site_id": site_id});
        body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        post("/api-keys", body)
    };
    let reader: Value = key("bench reader", json!({})).await.unwrap().json().await.unwrap();
    let limited: Value =
        key("bench limited", json!({"rate_limit_per_second": LIMITED_PER_SECOND})).await.unwrap().json().await.unwrap();
    let member = post(&format!("/sites/{site_id}/members"), json!({"idp_user_id": "bench-user", "role": "read"}));
    assert_eq!(member.await.unwrap().status(), 201);
    let mut blog_id = String::new();
    for i in 0..POSTS {
        let body = json!({"site_ids": [site_id], "title": format!("Post number {i}"),
            "excerpt": "An excerpt of a few words.", "status": "Published"});
        let res = post("/blogs", body).await.unwrap();
        assert_eq!(res.status(), 201);
        blog_id = res.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    }
    let secret = |v: &Value| v["key"].as_str().unwrap().to_string();
    Seeded { site_id, blog_id, reader_key: secret(&reader), limited_key: secret(&limited) }
}

fn start_bare() -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let body = json!({
                "id": uuid::Uuid::new_v4(), "name": "Site bench", "slug": "bench", "description": "",
                "base_url": null, "is_active": true, "logo_url": null, "favicon_url": null,
                "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"
            });
            let bare = HttpServer::new(move || {
                let body = body.clone();
                App::new().route(
                    "/bare",
                    web::get().to(move || {
                        let body = body.clone();
                        async move { HttpResponse::Ok().json(body) }
                    }),
                )
            })
            .workers(1)
            .disable_signals()
            .listen(TcpListener::bind("127.0.0.1:0").unwrap())
            .unwrap();
            tx.send(bare.addrs()[0]).unwrap();
            bare.run().await.unwrap();
        });
    });
    rx.recv().unwrap()
}

fn fresh_postgres(admin_url: &str) -> String {
    actix_web::rt::System::new().block_on(common::fresh_postgres(admin_url))
}

fn analyze(url: &str) {
    actix_web::rt::System::new().block_on(common::analyze(url));
}

struct Row {
    name: String,
    figures: Figures,
    note: String,
}

fn rows_for(addr: SocketAddr, seeded: &Seeded, bearer: &str, seconds: u64, connections: u64, full: bool) -> Vec<Row> {
    let key = [("X-API-Key", seeded.reader_key.as_str())];
    let bearer = format!("Bearer {bearer}");
    let token = [("Authorization", bearer.as_str())];
    let api = format!("http://{addr}/api/v1");
    let site = format!("{api}/sites/{}", seeded.site_id);
    let list = format!("{site}/blogs?per_page=10");
    let blog = format!("{api}/blogs/{}", seeded.blog_id);
    let run = |url: &str, headers: &[(&str, &str)]| wrk(url, headers, seconds, connections);
    let row = |name: &str, figures: Figures| Row { name: name.into(), figures, note: String::new() };
    let mut rows = vec![
        row("GET /sites/{id}, key", run(&site, &key)),
        row("GET /sites/{id}, bearer", run(&site, &token)),
        row("GET /sites/{id}/blogs?per_page=10, key (admin list)", run(&list, &key)),
        row("GET /sites/{id}/blogs?per_page=10, bearer", run(&list, &token)),
        row("GET /blogs/{id}, key", run(&blog, &key)),
        row("GET /blogs/{id}, bearer", run(&blog, &token)),
    ];
    if !full {
        return rows;
    }
    rows.push(row("GET /sites/{id}/blogs/published, key", run(&format!("{site}/blogs/published"), &key)));
    rows.push(row("GET /sites/{id}/feed.rss (50 items)", run(&format!("{site}/feed.rss"), &key)));

    // wrk counts only statuses above 399 as errors, so the 304s are checked
    // with curl before the run and read from the bytes transferred.
    let curl = |extra: &[&str]| {
        let mut args = vec!["-s", "-D", "-", "-o", "/dev/null", "-H"];
        let key_header = format!("X-API-Key: {}", seeded.reader_key);
        args.push(&key_header);
        args.extend_from_slice(extra);
        args.push(&list);
        let out = std::process::Command::new("curl").args(&args).output().expect("curl is installed");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let etag = curl(&[])
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("etag:").map(|v| v.trim().to_string()))
        .expect("the admin list carries an ETag");
    let condition = format!("If-None-Match: {etag}");
    assert!(curl(&["-H", &condition]).starts_with("HTTP/1.1 304"), "a matching If-None-Match is answered 304");
    let headers = [("X-API-Key", seeded.reader_key.as_str()), ("If-None-Match", etag.as_str())];
    let figures = wrk(&list, &headers, seconds, connections);
    rows.push(Row { name: "admin list, If-None-Match → 304".into(), figures, note: "304 checked with curl".into() });

    let limited = [("X-API-Key", seeded.limited_key.as_str())];
    let figures = wrk_expecting(&site, &limited, seconds, connections, true);
    let accepted = figures.requests - figures.not_2xx;
    let note = format!(
        "{} rejected; {accepted} accepted = {:.1}/s (limit {LIMITED_PER_SECOND}/s)",
        figures.not_2xx,
        accepted as f64 / seconds as f64
    );
    rows.push(Row { name: format!("key limited to {LIMITED_PER_SECOND}/s, hammered (mostly 429)"), figures, note });
    rows
}

/// What the metrics add to one request, in process: the route's series found
/// under a read lock and one histogram observation (what `record_request`
/// does besides reading the route name actix already matched). ns per request.
fn metrics_record_ns() -> f64 {
    use actix_web::http::{Method, StatusCode};
    use plinth::observability::http::Route;
    let observability = plinth::observability::Observability::new().unwrap();
    let routes = ["/sites/{id}", "/sites/{site_id}/blogs", "/blogs/{id}", "/sites/{site_id}/feed.rss"];
    let rounds = 4_000_000;
    let started = std::time::Instant::now();
    for i in 0..rounds {
        let route = std::hint::black_box(routes[i % routes.len()]);
        observability.http.observe(Route::Api(route), &Method::GET, StatusCode::OK, 0.0004);
    }
    started.elapsed().as_nanos() as f64 / rounds as f64
}

fn print_rows(title: &str, bare: &Figures, rows: &[Row]) {
    println!("\n{title}");
    for Row { name, figures: f, note } in rows {
        println!(
            "{name:<58} {:>10.0} {:>8.3} {:>8.3} {:>8.2} {:>9.1} {note}",
            f.requests_per_sec,
            f.p50_ms,
            f.p99_ms,
            f.requests_per_sec / bare.requests_per_sec,
            f.cpu_us_per_request,
        );
    }
}

fn main() {
    let seconds: u64 = std::env::var("BENCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    let connections: u64 = std::env::var("BENCH_CONNECTIONS").ok().and_then(|s| s.parse().ok()).unwrap_or(32);
    let wanted = std::env::var("BENCH_BACKENDS").unwrap_or_else(|_| "sqlite,postgres".into());
    let postgres = std::env::var("PLINTH_TEST_DATABASE_URL").ok().filter(|u| !u.is_empty());
    let dir = tempfile::tempdir().unwrap();
    let bearer = bearer_token();

    let mut backends: Vec<(&str, String)> = Vec::new();
    if wanted.contains("sqlite") {
        backends.push(("SQLite", format!("sqlite://{}?mode=rwc", dir.path().join("bench.db").display())));
    }
    if let (true, Some(admin_url)) = (wanted.contains("postgres"), &postgres) {
        backends.push(("PostgreSQL", fresh_postgres(admin_url)));
    }

    println!(
        "wrk: 1 thread, {connections} connections, {seconds} s per target; each server has 1 worker; {POSTS} published posts"
    );
    println!("metrics: recording one request costs {:.0} ns in process", metrics_record_ns());
    let bare_addr = start_bare();
    let bare = wrk(&format!("http://{bare_addr}/bare"), &[], seconds, connections);
    println!("\n{:<58} {:>10} {:>8} {:>8} {:>8} {:>9}", "target", "req/s", "p50 ms", "p99 ms", "vs bare", "CPU µs/req");
    println!(
        "{:<58} {:>10.0} {:>8.3} {:>8.3} {:>8} {:>9.1}",
        "bare actix-web handler (fixed JSON)",
        bare.requests_per_sec,
        bare.p50_ms,
        bare.p99_ms,
        "1.00",
        bare.cpu_us_per_request
    );
    for (backend, url) in backends {
        let backend_dir = dir.path().join(backend);
        std::fs::create_dir_all(&backend_dir).unwrap();
        let (cached_addr, seeded) = start_plinth(config_for(&backend_dir, &url, 64 << 20), true);
        let seeded = seeded.unwrap();
        if url.starts_with("postgres") {
            analyze(&url);
        }
        // A second instance on the same database with the response cache off.
        let (uncached_addr, _) = start_plinth(config_for(&backend_dir, &url, 0), false);
        let warm = rows_for(cached_addr, &seeded, &bearer, seconds, connections, true);
        print_rows(&format!("{backend}, response cache on"), &bare, &warm);
        let cold = rows_for(uncached_addr, &seeded, &bearer, seconds, connections, false);
        print_rows(&format!("{backend}, response cache off (every read built from the database)"), &bare, &cold);
    }
}
