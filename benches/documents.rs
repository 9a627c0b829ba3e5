//! Documents benchmark: `cargo bench --bench documents`.
//!
//! Plinth on SQLite in this process: a 10 MB document made private (read,
//! encrypted in 64 KiB chunks, written, plaintext removed) and downloaded
//! with a token (decrypted as it streams), beside a plain download of the same
//! bytes; then verify-access per second from 4 clients, which the argon2id
//! derivation (19 MiB, 2 passes, 1 lane) bounds.
//!
//! Settings: BENCH_SECONDS for the verify-access phase (default 5).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use base64::Engine;
use plinth::Config;
use serde_json::{json, Value};

const MASTER_KEY: &str = "plk_bench_documents_master";
const SIZE: usize = 10_000_000;
const PASSWORD: &str = "a long enough password";

fn main() {
    let seconds: u64 = std::env::var("BENCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::defaults().unwrap();
    config.database_url = format!("sqlite://{}/bench.db?mode=rwc", dir.path().display());
    config.data_dir = dir.path().join("data");
    config.bootstrap_api_key = Some(MASTER_KEY.into());
    config.log.filter = "error".into();
    let addr = common::start_plinth(config);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async move {
        let client = reqwest::Client::new();
        let base = format!("http://{addr}/api/v1");
        let send = |method: reqwest::Method, path: &str, body: Value| {
            client.request(method, format!("{base}{path}")).header("X-API-Key", MASTER_KEY).json(&body).send()
        };
        let site: Value = send(reqwest::Method::POST, "/sites", json!({"name": "Docs bench", "slug": "docs-bench"})).await.unwrap().json().await.unwrap();
        let site_id = site["id"].as_str().unwrap().to_string();
        send(reqwest::Method::PUT, &format!("/sites/{site_id}/settings"), json!({"module_documents_enabled": true})).await.unwrap();
        let plain: Vec<u8> = (0..SIZE).map(|i| (i % 251) as u8).collect();
        let body = json!({"file_data": base64::engine::general_purpose::STANDARD.encode(&plain), "file_name": "big.pdf", "mime_type": "application/pdf"});
        let doc: Value = send(reqwest::Method::POST, &format!("/sites/{site_id}/documents"), body).await.unwrap().json().await.unwrap();
        let id = doc["id"].as_str().unwrap().to_string();

        let started = Instant::now();
        let res = client.get(format!("{base}/documents/{id}/download")).send().await.unwrap();
        assert_eq!(res.bytes().await.unwrap().len(), SIZE);
        let public_download = started.elapsed();

        let started = Instant::now();
        let res = send(reqwest::Method::POST, &format!("/documents/{id}/privacy"), json!({"password": PASSWORD})).await.unwrap();
        assert_eq!(res.status(), 200);
        let make_private = started.elapsed();

        let started = Instant::now();
        let token: Value = client.post(format!("{base}/documents/{id}/verify-access")).json(&json!({"password": PASSWORD})).send().await.unwrap().json().await.unwrap();
        let one_verify = started.elapsed();
        let started = Instant::now();
        let res = client.get(format!("{base}/documents/{id}/download?token={}", token["access_token"].as_str().unwrap())).send().await.unwrap();
        let bytes = res.bytes().await.unwrap();
        let private_download = started.elapsed();
        assert_eq!(bytes.as_ref(), plain.as_slice());

        let until = Instant::now() + Duration::from_secs(seconds);
        let clients: Vec<_> = (0..4)
            .map(|_| {
                let (client, url) = (client.clone(), format!("{base}/documents/{id}/verify-access"));
                tokio::spawn(async move {
                    let mut n = 0u64;
                    while Instant::now() < until {
                        let res = client.post(&url).json(&json!({"password": PASSWORD})).send().await.unwrap();
                        assert_eq!(res.status(), 200);
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        let mut verified = 0;
        for c in clients {
            verified += c.await.unwrap();
        }
        let mb = SIZE as f64 / 1e6;
        println!("\n## Documents (SQLite, 10 MB file)\n");
        println!("| row | figure |\n|---|---|");
        println!("| make private (read, encrypt, write, remove plaintext) | {:.0} ms ({:.0} MB/s) |", make_private.as_secs_f64() * 1e3, mb / make_private.as_secs_f64());
        println!("| download with a token (decrypted while streaming) | {:.0} ms ({:.0} MB/s) |", private_download.as_secs_f64() * 1e3, mb / private_download.as_secs_f64());
        println!("| download of the same bytes while public | {:.0} ms ({:.0} MB/s) |", public_download.as_secs_f64() * 1e3, mb / public_download.as_secs_f64());
        println!("| one verify-access (argon2id m=19 MiB, t=2, p=1) | {:.0} ms |", one_verify.as_secs_f64() * 1e3);
        println!("| verify-access, 4 clients | {:.1}/s |", verified as f64 / seconds as f64);
    });
}
