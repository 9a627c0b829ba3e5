//! The `plinth` process killed with SIGKILL while deliveries are in flight and
//! attempt results wait in memory: after a restart every event has arrived at
//! least once, and every resend carries the `webhook-id` of its first send.

use std::collections::HashMap;
use std::process::Stdio;
use std::time::Duration;

use futures_util::stream::{self, StreamExt};
use serde_json::{json, Value};

use crate::cli::{free_port, plinth, wait_until_ready, Running};
use crate::helpers::fresh_database;
use crate::receiver::Receiver;

const KEY: &str = "plk_crash_test_master_key";
const POSTS: usize = 120;

#[actix_web::test]
async fn a_killed_process_loses_no_delivery_and_resends_keep_their_ids() {
    let receiver = Receiver::start();
    let dir = tempfile::tempdir().unwrap();
    let database_url = fresh_database(&dir).await;
    let port = free_port();
    let start = || {
        let mut cmd = plinth(&dir, &database_url, port);
        cmd.env("PLINTH_BOOTSTRAP_API_KEY", KEY).env("PLINTH_SSRF_ALLOWLIST", &receiver.host_port);
        let mut child = Running(cmd.stdout(Stdio::piped()).spawn().unwrap());
        wait_until_ready(&mut child.0);
        child
    };
    let mut server = start();
    let api = format!("http://127.0.0.1:{port}/api/v1");
    let client = reqwest::Client::new();
    let post =
        |path: &str, body: Value| client.post(format!("{api}{path}")).header("X-API-Key", KEY).json(&body).send();
    let site: Value = post("/sites", json!({"name": "Crash", "slug": "crash"})).await.unwrap().json().await.unwrap();
    let site_id = site["id"].as_str().unwrap().to_string();
    let hook = post(&format!("/sites/{site_id}/webhooks"), json!({"url": receiver.url, "events": ["blog.created"]}));
    assert_eq!(hook.await.unwrap().status(), 201);

    stream::iter(0..POSTS)
        .for_each_concurrent(16, |i| {
            let body = json!({"site_ids": [site_id], "title": format!("post-{i}")});
            let sent = post("/blogs", body);
            async move { assert_eq!(sent.await.unwrap().status(), 201) }
        })
        .await;
    // No drain, no flush: whatever is in flight or buffered dies with it.
    server.0.kill().unwrap();
    server.0.wait().unwrap();
    let before_restart = receiver.received().len();

    let _server = start();
    let mut ids_by_title: HashMap<String, Vec<String>> = HashMap::new();
    for _ in 0..600 {
        ids_by_title.clear();
        for got in receiver.received() {
            let title = got.body["data"]["title"].as_str().unwrap_or_default().to_string();
            ids_by_title.entry(title).or_default().push(got.headers["webhook-id"].clone());
        }
        if ids_by_title.len() >= POSTS {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let missing: Vec<String> =
        (0..POSTS).map(|i| format!("post-{i}")).filter(|t| !ids_by_title.contains_key(t)).collect();
    assert!(missing.is_empty(), "never delivered after the restart: {missing:?}");
    for (title, ids) in &ids_by_title {
        assert!(ids.iter().all(|id| *id == ids[0]), "{title} was resent under another webhook-id: {ids:?}");
    }
    let resent = receiver.received().len() - POSTS;
    eprintln!("{before_restart} deliveries arrived before the kill; {resent} were sent again after it");
}
