//! Idle footprint: `cargo bench --bench idle`.
//!
//! Starts the release `plinth` binary on a fresh SQLite database (workers =
//! cores, every other setting its default), waits 3 s and prints its resident
//! memory: in all, anonymous (heap, stacks, caches) and file-backed (the
//! binary's pages it touched). Then asks for the OpenAPI document once (built
//! and kept on first request) and prints it again. The target is under 30 MB
//! idle on SQLite.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::PlinthProcess;

/// `VmRSS`, `RssAnon` and `RssFile` of `pid`, KiB.
fn resident(pid: u32) -> [u64; 3] {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    [field("VmRSS:"), field("RssAnon:"), field("RssFile:")]
}

/// The whole answer to a `GET` of `path` (HTTP/1.0: the server closes).
fn get(addr: std::net::SocketAddr, path: &str) -> Vec<u8> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    assert!(answer.starts_with(b"HTTP/1.0 200") || answer.starts_with(b"HTTP/1.1 200"), "GET {path} failed");
    answer
}

fn row(label: &str, [total, anon, file]: [u64; 3]) {
    let mb = |kib: u64| kib as f64 / 1024.0;
    println!("| {label} | {:.1} | {:.1} | {:.1} |", mb(total), mb(anon), mb(file));
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let database_url = format!("sqlite://{}?mode=rwc", dir.path().join("idle.db").display());
    let server = PlinthProcess::start(&database_url, dir.path(), &[]);
    std::thread::sleep(Duration::from_secs(3));
    println!("idle: plinth on a fresh SQLite database, 3 s after Ready (the target: under 30 MB in all)\n");
    println!("| moment | RSS MB | anonymous MB | file-backed MB |");
    println!("|---|---:|---:|---:|");
    row("idle", resident(server.child.id()));
    let bytes = get(server.addr, "/api-docs/openapi.json").len();
    std::thread::sleep(Duration::from_secs(1));
    row(&format!("after GET /api-docs/openapi.json ({} KB)", bytes / 1024), resident(server.child.id()));
    server.stop();
}
