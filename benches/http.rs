//! Load benchmark: `cargo bench --bench http`.
//!
//! Starts Plinth (SQLite in a temp dir) and a bare actix-web handler that returns
//! a fixed JSON body, each with one worker, and loads them with `wrk` (install it
//! with `apt-get install wrk`): the bare handler, `GET /sites/{id}` with an API key
//! and with a member's bearer token, and on a site
//! with 1,000 published posts `GET /sites/{id}/blogs/published` and `feed.rss`.
//! Prints requests/s, p50 and p99 for each and the ratios to the bare handler.
//!
//! Settings: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 32).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::TcpListener;
use std::process::Command;

use actix_web::{web, App, HttpResponse, HttpServer};
use plinth::{Config, Plinth};
use serde_json::{json, Value};

struct Figures {
    requests_per_sec: f64,
    p50_ms: f64,
    p99_ms: f64,
}

fn wrk(url: &str, headers: &[(&str, &str)], seconds: u64, connections: u64) -> Figures {
    let mut cmd = Command::new("wrk");
    cmd.args(["-t1", &format!("-c{connections}"), &format!("-d{seconds}s"), "--latency"]);
    for (name, value) in headers {
        cmd.args(["-H", &format!("{name}: {value}")]);
    }
    let out = cmd.arg(url).output().expect("wrk is installed (apt-get install wrk)");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(!text.contains("Non-2xx"), "non-2xx answers during the benchmark:\n{text}");
    let field = |prefix: &str| -> String {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(prefix).map(|v| v.trim().to_string()))
            .unwrap_or_else(|| panic!("no '{prefix}' in wrk output:\n{text}"))
    };
    Figures {
        requests_per_sec: field("Requests/sec:").parse().unwrap(),
        p50_ms: millis(&field("50%")),
        p99_ms: millis(&field("99%")),
    }
}

fn millis(value: &str) -> f64 {
    let split = value.find(|c: char| c.is_ascii_alphabetic()).unwrap();
    let (number, unit) = value.split_at(split);
    let n: f64 = number.parse().unwrap();
    match unit {
        "us" => n / 1000.0,
        "ms" => n,
        "s" => n * 1000.0,
        other => panic!("unknown unit {other}"),
    }
}

const POSTS: usize = 1000;

fn main() {
    let seconds: u64 = std::env::var("BENCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    let connections: u64 = std::env::var("BENCH_CONNECTIONS").ok().and_then(|s| s.parse().ok()).unwrap_or(32);
    let dir = tempfile::tempdir().unwrap();
    let key = "plk_bench_master_key".to_string();

    let mut config = Config::defaults().unwrap();
    config.database_url = format!("sqlite://{}?mode=rwc", dir.path().join("bench.db").display());
    config.data_dir = dir.path().join("data");
    config.workers = 1;
    config.bootstrap_api_key = Some(key.clone());
    config.log.filter = "error".into();
    // Bearer tokens from the test identity provider's key (tests/api/fixtures).
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/api/fixtures");
    let jwk: Value = serde_json::from_str(&std::fs::read_to_string(fixtures.join("jwk_a.json")).unwrap()).unwrap();
    let jwks_file = dir.path().join("jwks.json");
    std::fs::write(&jwks_file, json!({"keys": [jwk]}).to_string()).unwrap();
    config.idp.jwks_file = Some(jwks_file);
    config.idp.issuer = Some("https://idp.bench".into());
    config.idp.audience = Some("plinth-bench".into());
    let now = chrono::Utc::now().timestamp();
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
    header.kid = Some("key-a".into());
    let claims =
        json!({"sub": "bench-user", "iss": "https://idp.bench", "aud": "plinth-bench", "iat": now, "exp": now + 3600});
    let signing_key = std::fs::read_to_string(fixtures.join("rsa_a.pem")).unwrap();
    let bearer = jsonwebtoken::encode(
        &header,
        &claims,
        &jsonwebtoken::EncodingKey::from_rsa_pem(signing_key.as_bytes()).unwrap(),
    )
    .unwrap();

    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let app = Plinth::build(config).await.unwrap();
            let running = app.serve(TcpListener::bind("127.0.0.1:0").unwrap(), false).unwrap();
            let plinth_addr = running.addr;
            actix_web::rt::spawn(running.server);

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
            let bare_addr = bare.addrs()[0];
            actix_web::rt::spawn(bare.run());

            let client = reqwest::Client::new();
            let site: Value = client
                .post(format!("http://{plinth_addr}/api/v1/sites"))
                .header("X-API-Key", &key)
                .json(&json!({"name": "Site bench", "slug": "bench"}))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let created: Value = client
                .post(format!("http://{plinth_addr}/api/v1/api-keys"))
                .header("X-API-Key", &key)
                .json(&json!({"name": "bench reader", "permission": "Read", "site_id": site["id"]}))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let site_id = site["id"].as_str().unwrap().to_string();
            let member = client
                .post(format!("http://{plinth_addr}/api/v1/sites/{site_id}/members"))
                .header("X-API-Key", &key)
                .json(&json!({"idp_user_id": "bench-user", "role": "read"}))
                .send()
                .await
                .unwrap();
            assert_eq!(member.status(), 201);
            for i in 0..POSTS {
                let res = client
                    .post(format!("http://{plinth_addr}/api/v1/blogs"))
                    .header("X-API-Key", &key)
                    .json(&json!({"site_ids": [site_id], "title": format!("Post number {i}"), "excerpt": "An excerpt of a few words.", "status": "Published"}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(res.status(), 201);
            }
            tx.send((plinth_addr, bare_addr, site_id, created["key"].as_str().unwrap().to_string())).unwrap();
            std::future::pending::<()>().await;
        });
    });
    let (plinth_addr, bare_addr, site_id, reader_key) = rx.recv().unwrap();

    println!("wrk: 1 thread, {connections} connections, {seconds} s per target; each server has 1 worker; {POSTS} published posts\n");
    let auth = [("X-API-Key", reader_key.as_str())];
    let bearer_header = format!("Bearer {bearer}");
    let jwt_auth = [("Authorization", bearer_header.as_str())];
    let base = format!("http://{plinth_addr}/api/v1/sites/{site_id}");
    let bare = wrk(&format!("http://{bare_addr}/bare"), &[], seconds, connections);
    let targets = [
        ("GET /sites/{id}", wrk(&base, &auth, seconds, connections)),
        ("GET /sites/{id} (member's bearer token)", wrk(&base, &jwt_auth, seconds, connections)),
        ("GET /sites/{id}/blogs/published", wrk(&format!("{base}/blogs/published"), &auth, seconds, connections)),
        (
            "GET /sites/{id}/blogs/published?per_page=100",
            wrk(&format!("{base}/blogs/published?per_page=100"), &auth, seconds, connections),
        ),
        ("GET /sites/{id}/feed.rss (50 items)", wrk(&format!("{base}/feed.rss"), &auth, seconds, connections)),
    ];

    println!(
        "{:<62} {:>11} {:>9} {:>9} {:>12} {:>11}",
        "target", "requests/s", "p50 ms", "p99 ms", "rps vs bare", "p99 vs bare"
    );
    println!(
        "{:<62} {:>11.0} {:>9.3} {:>9.3} {:>12} {:>11}",
        "bare actix-web handler (fixed JSON)", bare.requests_per_sec, bare.p50_ms, bare.p99_ms, "1.00", "1.00x"
    );
    for (name, f) in &targets {
        println!(
            "{name:<62} {:>11.0} {:>9.3} {:>9.3} {:>12.2} {:>10.2}x",
            f.requests_per_sec,
            f.p50_ms,
            f.p99_ms,
            f.requests_per_sec / bare.requests_per_sec,
            f.p99_ms / bare.p99_ms
        );
    }
}
