use std::sync::{Arc, Mutex};

use sea_orm::EntityTrait;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::helpers::{assert_problem, TestApp};
use crate::receiver::{verify, Receiver};

async fn app_with_receiver() -> (TestApp, Receiver) {
    let receiver = Receiver::start();
    let allowed = receiver.host_port.clone();
    let app = TestApp::spawn_with(move |c| c.ssrf_allowlist = vec![allowed]).await;
    (app, receiver)
}

async fn create_webhook(app: &TestApp, site: &str, body: Value) -> Value {
    let res = app.post(&format!("/sites/{site}/webhooks"), &app.admin_key, body).await;
    assert_eq!(res.status(), 201);
    res.json().await.unwrap()
}

#[actix_web::test]
async fn a_subscribed_event_arrives_once_signed_and_verifiable() {
    let (app, receiver) = app_with_receiver().await;
    let site = app.create_site_id("hooks").await;
    let hook =
        create_webhook(&app, &site, json!({"url": receiver.url, "events": ["blog.created"], "description": "CI"}))
            .await;
    let secret = hook["secret"].as_str().unwrap();
    assert!(secret.starts_with("whsec_"));
    assert_eq!((hook["is_active"].as_bool(), hook["debounce_seconds"].as_i64()), (Some(true), Some(0)));

    let post = app.create_post(&site, "Hello hooks").await;
    let received = receiver.wait_for(1).await;
    assert_eq!(received.len(), 1);
    let request = &received[0];
    assert!(verify(secret, request), "signature must verify: {:?}", request.headers);
    assert_eq!(request.headers["content-type"], "application/json");
    assert_eq!(request.body["event"], "blog.created");
    assert_eq!(request.body["site_id"], site.as_str());
    assert_eq!(
        request.body["data"],
        json!({"id": post["id"], "title": "Hello hooks", "slug": "hello-hooks", "status": "Draft"})
    );

    // Unsubscribed events (updated, published) are not sent.
    app.put(&format!("/blogs/{}", post["id"].as_str().unwrap()), &app.admin_key, json!({"status": "Published"})).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(receiver.received().len(), 1);

    let log: Value = app
        .get(&format!("/webhooks/{}/deliveries", hook["id"].as_str().unwrap()), &app.admin_key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(log["meta"]["total"], 1);
    assert_eq!(
        (
            log["data"][0]["success"].as_bool(),
            log["data"][0]["status_code"].as_i64(),
            log["data"][0]["attempt"].as_i64()
        ),
        (Some(true), Some(200), Some(1))
    );
    assert_eq!(log["data"][0]["delivery_id"].as_str(), Some(request.headers["webhook-id"].as_str()));
    // The same attempt under the names the origin service's admin reads.
    let entry = &log["data"][0];
    assert_eq!(
        (&entry["webhook_id"], &entry["event_type"], &entry["attempt_number"], &entry["delivered_at"]),
        (&hook["id"], &entry["event"], &json!(1), &entry["created_at"])
    );
    assert_eq!((&entry["error_message"], &entry["response_body"]), (&entry["error"], &entry["response_excerpt"]));
    // What the attempt sent, as the receiver got it.
    assert_eq!(entry["payload"], request.body);
    app.settle().await;
}

#[actix_web::test]
async fn debounce_merges_a_burst_into_one_batch() {
    let (app, receiver) = app_with_receiver().await;
    let site = app.create_site_id("burst").await;
    create_webhook(&app, &site, json!({"url": receiver.url, "debounce_seconds": 60})).await;
    for i in 0..3 {
        app.create_post(&site, &format!("Burst {i}")).await;
    }
    app.flush_webhooks().await;
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(receiver.received().is_empty(), "the window is still open");

    app.clock.advance(chrono::Duration::seconds(61));
    app.flush_webhooks().await;
    let received = receiver.wait_for(1).await;
    assert_eq!(received.len(), 1);
    let batch = &received[0].body;
    assert_eq!(
        (batch["event"].as_str(), batch["event_count"].as_i64(), batch["batch_window_seconds"].as_i64()),
        (Some("batch"), Some(3), Some(60))
    );
    let names: Vec<&str> = batch["events"].as_array().unwrap().iter().map(|e| e["event"].as_str().unwrap()).collect();
    assert_eq!(names, ["blog.created", "blog.created", "blog.created"]);
    assert_eq!(batch["events"][2]["data"]["title"], "Burst 2");
    app.flush_webhooks().await;
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(receiver.received().len(), 1, "a flushed buffer is not sent twice");
    app.settle().await;
}

#[actix_web::test]
async fn a_failing_receiver_sees_six_attempts_on_the_schedule_then_a_manual_retry() {
    let (app, receiver) = app_with_receiver().await;
    receiver.answer_with(500);
    let site = app.create_site_id("failing").await;
    let hook = create_webhook(&app, &site, json!({"url": receiver.url, "events": ["blog.created"]})).await;
    let hook_id = hook["id"].as_str().unwrap();
    app.create_post(&site, "Doomed").await;
    assert_eq!(receiver.wait_for(1).await.len(), 1);
    // The clock may move only once the failed attempt (and the time of the next
    // one) is recorded.
    app.wait_for_logged_attempts(hook_id, "blog.created", 1).await;

    // Nothing is due before each delay has passed; then exactly one more attempt.
    for (attempt, delay) in [(2, 300), (3, 1800), (4, 7200), (5, 43200), (6, 172800)] {
        app.clock.advance(chrono::Duration::seconds(delay - 10));
        app.retry_webhooks().await;
        assert_eq!(receiver.received().len(), attempt - 1, "attempt {attempt} is not due yet");
        app.clock.advance(chrono::Duration::seconds(11));
        app.retry_webhooks().await;
        assert_eq!(receiver.received().len(), attempt, "attempt {attempt} was sent");
    }
    let requests = receiver.received();
    let ids: std::collections::HashSet<&String> = requests.iter().map(|r| &r.headers["webhook-id"]).collect();
    assert_eq!(ids.len(), 1, "every attempt carries the same webhook-id");
    assert!(requests.iter().all(|r| verify(hook["secret"].as_str().unwrap(), r)), "every attempt is signed");

    app.clock.advance(chrono::Duration::days(10));
    app.retry_webhooks().await;
    assert_eq!(receiver.received().len(), 6, "a dead delivery is not retried by itself");
    let log: Value =
        app.get(&format!("/webhooks/{hook_id}/deliveries?per_page=10"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(log["meta"]["total"], 6);
    assert!(log["data"].as_array().unwrap().iter().all(|a| a["success"] == false && a["status_code"] == 500));
    let delivery_id = log["data"][0]["delivery_id"].as_str().unwrap().to_string();

    let stats: Value =
        app.get(&format!("/webhooks/{hook_id}/stats?window=30d"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(
        (stats["total_deliveries"].as_u64(), stats["failed"].as_u64(), stats["successful"].as_u64()),
        (Some(1), Some(1), Some(0))
    );
    assert_eq!(stats["success_rate"], 0.0);
    assert_eq!(stats["by_event"], json!([{"event_type": "blog.created", "total": 1, "successful": 0, "failed": 1}]));

    // Re-enqueued by hand, it is sent on the next pass and now succeeds.
    receiver.answer_with(204);
    let res = app.post(&format!("/webhooks/deliveries/{delivery_id}/retry"), &app.admin_key, json!({})).await;
    assert_eq!(res.json::<Value>().await.unwrap()["status"], "pending");
    app.retry_webhooks().await;
    assert_eq!(receiver.received().len(), 7);
    let res = app.post(&format!("/webhooks/deliveries/{delivery_id}/retry"), &app.admin_key, json!({})).await;
    assert_problem(res, 409, "CONFLICT").await;
    let stats: Value =
        app.get(&format!("/webhooks/{hook_id}/stats?window=30d"), &app.admin_key).await.json().await.unwrap();
    assert_eq!((stats["successful"].as_u64(), stats["success_rate"].as_f64()), (Some(1), Some(100.0)));
    assert_problem(
        app.get(&format!("/webhooks/{hook_id}/stats?window=2w"), &app.admin_key).await,
        400,
        "WEBHOOK_INVALID_STATS_WINDOW",
    )
    .await;
    app.settle().await;
}

#[actix_web::test]
async fn private_network_targets_are_refused() {
    let (app, receiver) = app_with_receiver().await;
    let site = app.create_site_id("ssrf").await;
    // The receiver's host on another port is not allowlisted.
    let port: u16 = receiver.host_port.rsplit(':').next().unwrap().parse().unwrap();
    let other_port = format!("127.0.0.1:{}", if port == u16::MAX { port - 1 } else { port + 1 });
    for url in [
        "http://10.0.0.5/hook".to_string(),
        format!("http://{other_port}/hook"),
        "http://127.0.0.1/hook".to_string(),
        "http://169.254.169.254/latest/meta-data".to_string(),
        "http://[::1]/hook".to_string(),
        "http://localhost:9999/hook".to_string(),
        "http://[::ffff:192.168.0.1]/hook".to_string(),
    ] {
        let res = app.post(&format!("/sites/{site}/webhooks"), &app.admin_key, json!({"url": url})).await;
        let refused = assert_problem(res, 400, "WEBHOOK_URL_SSRF").await;
        let detail = refused["detail"].as_str().unwrap_or_default();
        assert!(
            detail.contains("PLINTH_SSRF_ALLOWLIST"),
            "{url}: the detail names the setting that allows it: {detail}"
        );
    }
    let hook = create_webhook(&app, &site, json!({"url": receiver.url})).await;
    let res = app
        .put(
            &format!("/webhooks/{}", hook["id"].as_str().unwrap()),
            &app.admin_key,
            json!({"url": "http://192.168.1.1/"}),
        )
        .await;
    assert_problem(res, 400, "WEBHOOK_URL_SSRF").await;
    let res = app
        .post(&format!("/sites/{site}/webhooks"), &app.admin_key, json!({"url": receiver.url, "debounce_seconds": 301}))
        .await;
    assert_problem(res, 422, "WEBHOOK_INVALID_DEBOUNCE").await;
    let res = app
        .post(
            &format!("/sites/{site}/webhooks"),
            &app.admin_key,
            json!({"url": receiver.url, "events": ["blog.exploded"]}),
        )
        .await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    app.settle().await;
}

#[actix_web::test]
async fn the_test_endpoint_reports_success_and_failure() {
    let (app, receiver) = app_with_receiver().await;
    let site = app.create_site_id("testing").await;
    let hook = create_webhook(&app, &site, json!({"url": receiver.url})).await;
    let path = format!("/webhooks/{}/test", hook["id"].as_str().unwrap());
    let ok: Value = app.post(&path, &app.admin_key, json!({})).await.json().await.unwrap();
    assert_eq!((ok["success"].as_bool(), ok["status_code"].as_u64()), (Some(true), Some(200)));
    // The origin admin reads the answer as a delivery.
    assert_eq!((&ok["id"], &ok["webhook_id"]), (&ok["delivery_id"], &hook["id"]));
    assert_eq!((ok["event_type"].as_str(), ok["attempt_number"].as_i64()), (Some("webhook.test"), Some(1)));
    assert_eq!((ok["payload"]["test"].as_bool(), ok["error_message"].is_null()), (Some(true), true));
    assert!(ok["delivered_at"].is_string());
    let sent = &receiver.received()[0];
    assert_eq!((sent.body["event"].as_str(), sent.body["test"].as_bool()), (Some("webhook.test"), Some(true)));
    assert!(verify(hook["secret"].as_str().unwrap(), sent));
    receiver.answer_with(302);
    assert_problem(app.post(&path, &app.admin_key, json!({})).await, 500, "WEBHOOK_TEST_FAILED").await;
    app.settle().await;
}

#[actix_web::test]
async fn webhooks_belong_to_their_site_admins_and_go_with_their_history() {
    let (app, receiver) = app_with_receiver().await;
    let (a, b) = (app.create_site_id("hook-a").await, app.create_site_id("hook-b").await);
    let hook_b = create_webhook(&app, &b, json!({"url": receiver.url})).await;
    let id = hook_b["id"].as_str().unwrap();
    let admin_a = app.create_key("Admin", Some(&a)).await;
    let writer_b = app.create_key("Write", Some(&b)).await;
    assert_problem(app.get(&format!("/webhooks/{id}"), &admin_a).await, 403, "AUTH_API_KEY_SITE_DENIED").await;
    assert_problem(app.get(&format!("/sites/{b}/webhooks"), &admin_a).await, 403, "AUTH_API_KEY_SITE_DENIED").await;
    assert_problem(app.get(&format!("/webhooks/{id}"), &writer_b).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
    // Events of site A never reach site B's webhook.
    app.create_post(&a, "Only A").await;
    app.create_post(&b, "Only B").await;
    let received = receiver.wait_for(1).await;
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(receiver.received().len(), 1);
    assert_eq!(received[0].body["data"]["title"], "Only B");

    let listed: Value = app.get(&format!("/sites/{b}/webhooks"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(listed["meta"]["total"], 1);
    assert_eq!(app.delete(&format!("/webhooks/{id}"), &app.admin_key).await.status(), 204);
    assert_problem(app.get(&format!("/webhooks/{id}/deliveries"), &app.admin_key).await, 404, "ENTITY_NOT_FOUND").await;
    app.settle().await;
}

#[actix_web::test]
async fn pending_retries_and_buffers_survive_a_restart() {
    let receiver = Receiver::start();
    receiver.answer_with(503);
    let allowed = receiver.host_port.clone();
    let app = TestApp::spawn_with(|c| c.ssrf_allowlist = vec![allowed]).await;
    let site = app.create_site_id("restart").await;
    create_webhook(&app, &site, json!({"url": receiver.url, "events": ["blog.created"]})).await;
    create_webhook(&app, &site, json!({"url": receiver.url, "events": ["blog.updated"], "debounce_seconds": 30})).await;
    let post = app.create_post(&site, "Survivor").await;
    let res = app
        .put(&format!("/blogs/{}", post["id"].as_str().unwrap()), &app.admin_key, json!({"title": "Survivor!"}))
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(receiver.wait_for(1).await.len(), 1, "the first attempt failed");

    // The process goes away: the failed delivery and the open buffer are stored.
    plinth::RunningServer::drain(&app.webhooks).await;
    let buffered = plinth_entities::webhook_buffer::Entity::find().all(&app.state.db).await.unwrap();
    assert_eq!(buffered.len(), 1, "the update waits in the debounce buffer");
    let admin_key = app.admin_key.clone();
    let (dir, database_url) = app.stop().await;
    receiver.answer_with(200);
    let mut config = crate::helpers::test_config(&dir, &database_url);
    config.bootstrap_api_key = Some(admin_key);
    config.ssrf_allowlist = vec![receiver.host_port.clone()];
    let app = TestApp::start(config, dir).await;
    app.clock.advance(chrono::Duration::minutes(6));
    app.retry_webhooks().await;
    app.flush_webhooks().await;
    let received = receiver.wait_for(3).await;
    let events: Vec<&str> = received.iter().map(|r| r.body["event"].as_str().unwrap()).collect();
    assert_eq!(events, ["blog.created", "blog.created", "batch"]);
    assert_eq!(received[0].headers["webhook-id"], received[1].headers["webhook-id"]);
    assert_eq!(received[2].body["events"][0]["data"]["title"], "Survivor!");
    app.settle().await;
}

#[actix_web::test]
async fn concurrent_writes_all_succeed_while_deliveries_are_recorded() {
    let (app, receiver) = app_with_receiver().await;
    let site = app.create_site_id("busy").await;
    create_webhook(&app, &site, json!({"url": receiver.url, "events": ["blog.created"]})).await;
    let writes = (0..40)
        .map(|i| app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": format!("Concurrent {i}")})));
    let results = futures_util::future::join_all(writes).await;
    let mut failures = Vec::new();
    for res in results {
        if res.status() != 201 {
            failures.push(res.text().await.unwrap());
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
    assert_eq!(receiver.wait_for(40).await.len(), 40);
    app.settle().await;
}

#[actix_web::test]
async fn an_event_committed_just_before_a_crash_is_still_delivered() {
    let receiver = Receiver::start();
    let allowed = receiver.host_port.clone();
    let app = TestApp::spawn_with(|c| c.ssrf_allowlist = vec![allowed]).await;
    let site = app.create_site_id("crash").await;
    create_webhook(&app, &site, json!({"url": receiver.url, "events": ["page.published"]})).await;
    let admin_key = app.admin_key.clone();
    let (dir, database_url) = app.stop().await;

    // What a process leaves when it committed a change and died before the
    // dispatcher saw it: the event row in the outbox, written with the change.
    let db = plinth::db::Db::uncached(sea_orm::Database::connect(&database_url).await.unwrap());
    let txn = plinth::db::begin_unaudited(&db, "a test's event").await.unwrap();
    plinth::events::store(
        &txn,
        &plinth::events::EventBus::default(),
        &[plinth::events::DomainEvent {
            event: "page.published".parse().unwrap(),
            timestamp: chrono::Utc::now(),
            site_id: site.parse().unwrap(),
            data: json!({"id": uuid::Uuid::new_v4(), "title": "Left behind", "slug": "left-behind", "status": "Published"}),
        }],
    )
    .await
    .unwrap();
    txn.commit().await.unwrap();
    db.connection().clone().close().await.unwrap();

    let mut config = crate::helpers::test_config(&dir, &database_url);
    config.bootstrap_api_key = Some(admin_key);
    config.ssrf_allowlist = vec![receiver.host_port.clone()];
    let app = TestApp::start(config, dir).await;
    app.flush_webhooks().await;
    let received = receiver.wait_for(1).await;
    assert_eq!(received.len(), 1);
    assert_eq!(
        (received[0].body["event"].as_str(), received[0].body["data"]["title"].as_str()),
        (Some("page.published"), Some("Left behind"))
    );
    let left: Vec<plinth_entities::event_outbox::Model> =
        plinth_entities::event_outbox::Entity::find().all(&app.state.db).await.unwrap();
    assert!(left.is_empty(), "the outbox row is gone once dispatched");
    app.settle().await;
}

/// An endpoint on 127.0.0.1 whose keep-alive ends just as the next request on a
/// connection arrives: it answers the first request of each connection (and
/// keeps it open), reads the second and closes without an answer. Returns its
/// `host:port` and the `webhook-id` of every request it read, answered or not.
async fn endpoint_dropping_kept_alive_connections() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let host_port = listener.local_addr().unwrap().to_string();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let ids = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let ids = Arc::clone(&ids);
            tokio::spawn(async move {
                let Some(id) = read_request(&mut stream).await else { return };
                ids.lock().unwrap().push(id);
                let answer = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
                if stream.write_all(answer.as_bytes()).await.is_err() {
                    return;
                }
                if let Some(id) = read_request(&mut stream).await {
                    ids.lock().unwrap().push(id);
                }
                // Dropped here: closed with the request read and never answered.
            });
        }
    });
    (host_port, seen)
}

/// Reads one request (head and `content-length` body); its `webhook-id`.
async fn read_request(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&bytes[..end]).to_ascii_lowercase();
            let header = |name: &str| {
                head.lines().find_map(|l| l.strip_prefix(name).map(|v| v.trim_start_matches(':').trim().to_string()))
            };
            let length: usize = header("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
            if bytes.len() >= end + 4 + length {
                return header("webhook-id");
            }
        }
        let n = stream.read(&mut chunk).await.ok().filter(|n| *n > 0)?;
        bytes.extend_from_slice(&chunk[..n]);
    }
}

/// A server's keep-alive timeout can close an idle connection just as the next
/// delivery goes out on it (the request is written, the answer never comes).
/// That delivery is sent again at once on a new connection, under its
/// `webhook-id`, and logged as one successful attempt, not a failure left to
/// wait five minutes for its retry.
#[actix_web::test]
async fn a_delivery_on_a_connection_the_endpoint_just_closed_is_sent_again_at_once() {
    let (host_port, seen) = endpoint_dropping_kept_alive_connections().await;
    let allowed = host_port.clone();
    let app = TestApp::spawn_with(move |c| c.ssrf_allowlist = vec![allowed]).await;
    let site = app.create_site_id("keep-alive").await;
    let hook =
        create_webhook(&app, &site, json!({"url": format!("http://{host_port}/hook"), "events": ["blog.created"]}))
            .await;
    let hook_id = hook["id"].as_str().unwrap();

    app.create_post(&site, "First").await;
    app.wait_for_logged_attempts(hook_id, "blog.created", 1).await;
    app.create_post(&site, "Second").await;
    app.wait_for_logged_attempts(hook_id, "blog.created", 2).await;
    app.settle().await;

    let log: Value = app.get(&format!("/webhooks/{hook_id}/deliveries"), &app.admin_key).await.json().await.unwrap();
    let attempts: Vec<(bool, i64)> = log["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["success"].as_bool().unwrap(), a["attempt"].as_i64().unwrap()))
        .collect();
    assert_eq!(attempts, [(true, 1), (true, 1)], "{log}");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 3, "the second delivery was read on the kept-alive connection, then again: {seen:?}");
    assert_eq!(seen[1], seen[2], "sent again under its own webhook-id: {seen:?}");
    assert_ne!(seen[0], seen[1]);
}
