//! A tenant's webhook endpoint turned against the deployment: one that answers
//! gigabytes and one that trickles. The `plinth` binary runs in its own process
//! so that its peak memory (`VmHWM`, reset through `/proc/<pid>/clear_refs`) is
//! its own, not this test runner's.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::cli::{peak_rss_kib, reset_peak_rss, Instance, INSTANCE_KEY};

/// Serves `/huge` (200 declaring 4 GiB, written as fast as it is read) and
/// `/trickle` (200, then one byte every 100 ms) on 127.0.0.1.
async fn hostile_endpoint() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let host_port = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut head = vec![0u8; 64 * 1024];
                let n = stream.read(&mut head).await.unwrap_or(0);
                let trickle = String::from_utf8_lossy(&head[..n]).contains("/trickle");
                let declared = if trickle { 1_000_000u64 } else { 4 << 30 };
                let head = format!("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {declared}\r\n\r\n");
                if stream.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let block = vec![if trickle { b't' } else { b'x' }; if trickle { 1 } else { 256 * 1024 }];
                while stream.write_all(&block).await.is_ok() {
                    if trickle {
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                }
            });
        }
    });
    host_port
}

async fn call(client: &reqwest::Client, method: reqwest::Method, url: String, body: Value) -> (u16, Value) {
    let res = client.request(method, url).header("X-API-Key", INSTANCE_KEY).json(&body).send().await.unwrap();
    (res.status().as_u16(), res.json().await.unwrap_or(Value::Null))
}

#[actix_web::test]
async fn an_endpoint_answering_gigabytes_or_trickling_costs_neither_memory_nor_time() {
    let hostile = hostile_endpoint().await;
    let timeout_secs = 3;
    let instance =
        Instance::new(&hostile, &[]).await.with_config_file(&format!("[webhooks]\ntimeout_secs = {timeout_secs}\n"));
    let server = instance.start();
    let pid = server.0.id();
    let api = instance.api();
    let client = reqwest::Client::new();
    let (status, site) = call(&client, reqwest::Method::POST, format!("{api}/sites"), json!({"name": "Hostile"})).await;
    assert_eq!(status, 201, "{site}");
    let site_id = site["id"].as_str().unwrap();

    for (path, expected_char) in [("huge", 'x'), ("trickle", 't')] {
        let body = json!({"url": format!("http://{hostile}/{path}"), "events": ["blog.created"]});
        let (status, hook) =
            call(&client, reqwest::Method::POST, format!("{api}/sites/{site_id}/webhooks"), body).await;
        assert_eq!(status, 201, "{hook}");
        let hook_id = hook["id"].as_str().unwrap();

        reset_peak_rss(pid);
        let before = peak_rss_kib(pid);
        let started = Instant::now();
        let (status, result) =
            call(&client, reqwest::Method::POST, format!("{api}/webhooks/{hook_id}/test"), json!({})).await;
        let took = started.elapsed();
        let grown_kib = peak_rss_kib(pid).saturating_sub(before);
        println!("/{path}: answered in {took:?}, peak RSS grew {grown_kib} KiB");

        // A 2xx counts once its head arrived; the body is read up to the cap or the deadline.
        assert_eq!((status, &result["success"]), (200, &json!(true)), "/{path}: {result}");
        assert!(took < Duration::from_secs(timeout_secs + 1), "/{path} took {took:?}");
        assert!(grown_kib < 16 * 1024, "/{path}: peak RSS grew {grown_kib} KiB");

        let url = format!("{api}/webhooks/{hook_id}/deliveries");
        let log = client.get(url).header("X-API-Key", INSTANCE_KEY).send().await.unwrap();
        let log: Value = log.json().await.unwrap();
        let excerpt = log["data"][0]["response_excerpt"].as_str().unwrap_or_default().to_string();
        assert!(!excerpt.is_empty() && excerpt.chars().all(|c| c == expected_char), "/{path}: {log}");
        assert!(excerpt.chars().count() <= 512, "/{path}: the log keeps 512 characters");
        if path == "huge" {
            assert_eq!(excerpt.chars().count(), 512);
        }
    }
}
