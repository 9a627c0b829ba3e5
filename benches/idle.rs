//! Idle footprint: `cargo bench --bench idle`.
//!
//! Starts the release `plinth` binary on a fresh SQLite database (workers =
//! cores, every other setting its default), waits 3 s and prints its memory:
//! resident in all, anonymous (heap, stacks, caches: private memory only this
//! process holds, the cost), file-backed (the binary's pages, shared with the
//! page cache and reclaimable), and PSS (resident, shared pages divided among
//! their users). The target is under 30 MB idle on SQLite.
//!
//! It then works the server as an admin screen would (a site, posts written,
//! lists and reads, uncached and cached) and prints the footprint again; asks
//! for the OpenAPI document once (built and kept on first request); and last
//! makes 100 more sites active (each written and read) to print what one
//! active site costs: the growth of anonymous memory and PSS, per site.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::time::Duration;

use common::PlinthProcess;
use serde_json::{json, Value};

/// `VmRSS`, `RssAnon` and `RssFile` of `pid` (`/proc/<pid>/status`) and its
/// `Pss` (`/proc/<pid>/smaps_rollup`), KiB.
fn resident(pid: u32) -> [u64; 4] {
    let read = |file: &str| std::fs::read_to_string(format!("/proc/{pid}/{file}")).unwrap_or_default();
    let (status, rollup) = (read("status"), read("smaps_rollup"));
    let field = |text: &str, name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    [field(&status, "VmRSS:"), field(&status, "RssAnon:"), field(&status, "RssFile:"), field(&rollup, "Pss:")]
}

/// One HTTP/1.0 exchange (the server closes): the status and the body.
fn exchange(addr: SocketAddr, method: &str, path: &str, key: Option<&str>, body: Option<&Value>) -> (u16, Vec<u8>) {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    let mut head = format!("{method} {path} HTTP/1.0\r\nHost: {addr}\r\n");
    if let Some(key) = key {
        head += &format!("X-API-Key: {key}\r\n");
    }
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    if !body.is_empty() {
        head += &format!("Content-Type: application/json\r\nContent-Length: {}\r\n", body.len());
    }
    write!(stream, "{head}\r\n{body}").unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let status = std::str::from_utf8(&answer[9..12]).unwrap().parse().unwrap();
    let start = answer.windows(4).position(|w| w == b"\r\n\r\n").map_or(answer.len(), |p| p + 4);
    (status, answer[start..].to_vec())
}

/// `exchange`, expecting `status`; the body as JSON (`null` when empty or not JSON).
fn call(server: &PlinthProcess, method: &str, path: &str, body: Option<Value>, status: u16) -> Value {
    let (got, answer) = exchange(server.addr, method, path, server.admin_key.as_deref(), body.as_ref());
    assert_eq!(got, status, "{method} {path}: {}", String::from_utf8_lossy(&answer));
    serde_json::from_slice(&answer).unwrap_or(Value::Null)
}

/// What an admin screen does in a first session: a site, 50 posts written,
/// the list paged and polled, every post read, the public list read.
fn working_session(server: &PlinthProcess) -> usize {
    let site = call(server, "POST", "/api/v1/sites", Some(json!({"name": "Idle", "slug": "idle"})), 201);
    let site_id = site["id"].as_str().unwrap().to_string();
    let mut requests = 1;
    let mut posts = Vec::new();
    for n in 0..50 {
        let body = json!({"site_ids": [site_id], "slug": format!("post-{n}"), "author": "Ann", "status": "Published"});
        let post = call(server, "POST", "/api/v1/blogs", Some(body), 201);
        posts.push(post["id"].as_str().unwrap().to_string());
        requests += 1;
    }
    for page in 1..=3 {
        for _ in 0..10 {
            call(server, "GET", &format!("/api/v1/sites/{site_id}/blogs?page={page}&per_page=20"), None, 200);
            requests += 1;
        }
    }
    for id in &posts {
        call(server, "GET", &format!("/api/v1/blogs/{id}"), None, 200);
        requests += 1;
    }
    for _ in 0..10 {
        call(server, "GET", &format!("/api/v1/sites/{site_id}/blogs/published"), None, 200);
        requests += 1;
    }
    requests
}

fn row(label: &str, [total, anon, file, pss]: [u64; 4]) {
    let mb = |kib: u64| kib as f64 / 1024.0;
    println!("| {label} | {:.1} | {:.1} | {:.1} | {:.1} |", mb(total), mb(anon), mb(file), mb(pss));
}

/// Sites made active: each created, written once and its list read.
const MORE_SITES: u64 = 100;

fn activate_more_sites(server: &PlinthProcess) {
    for n in 0..MORE_SITES {
        let body = json!({"name": format!("Active {n}"), "slug": format!("active-{n}")});
        let site = call(server, "POST", "/api/v1/sites", Some(body), 201);
        let site_id = site["id"].as_str().unwrap().to_string();
        let post = json!({"site_ids": [site_id], "slug": "hello", "author": "Ann", "status": "Published"});
        call(server, "POST", "/api/v1/blogs", Some(post), 201);
        call(server, "GET", &format!("/api/v1/sites/{site_id}/blogs?per_page=20"), None, 200);
    }
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let database_url = format!("sqlite://{}?mode=rwc", dir.path().join("idle.db").display());
    let server = PlinthProcess::start(&database_url, dir.path(), &[]);
    std::thread::sleep(Duration::from_secs(3));
    println!("idle: plinth on a fresh SQLite database, 3 s after Ready (the target: under 30 MB in all)\n");
    println!("| moment | RSS MB | anonymous MB | file-backed MB | PSS MB |");
    println!("|---|---:|---:|---:|---:|");
    row("idle", resident(server.child.id()));
    let requests = working_session(&server);
    std::thread::sleep(Duration::from_secs(1));
    row(&format!("after a working session ({requests} requests)"), resident(server.child.id()));
    let (status, document) = exchange(server.addr, "GET", "/api-docs/openapi.json", None, None);
    assert_eq!(status, 200, "GET /api-docs/openapi.json");
    std::thread::sleep(Duration::from_secs(1));
    let before = resident(server.child.id());
    row(&format!("after GET /api-docs/openapi.json ({} KB)", document.len() / 1024), before);
    activate_more_sites(&server);
    std::thread::sleep(Duration::from_secs(1));
    let after = resident(server.child.id());
    row(&format!("after {MORE_SITES} more active sites"), after);
    let per_site = |i: usize| after[i].saturating_sub(before[i]) / MORE_SITES;
    println!("\nper active site: {} KiB anonymous, {} KiB PSS", per_site(1), per_site(3));
    server.stop();
}
