//! The `plinth` process killed with SIGKILL while deliveries are in flight and
//! attempt results wait in memory: after a restart every event has arrived at
//! least once, every resend carries the `webhook-id` of its first send, no
//! attempt is logged twice, and work that fell due during the outage is done.
//!
//! These start the binary cargo built for the tests (`CARGO_BIN_EXE_plinth`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use futures_util::stream::{self, StreamExt};
use sea_orm::{ConnectionTrait, Database, Statement};
use serde_json::{json, Value};

use crate::cli::{Instance, Running, INSTANCE_KEY as KEY};
use crate::receiver::Receiver;

const POSTS: usize = 120;

/// No drain, no flush: whatever is in flight or buffered dies with the process.
fn kill(mut server: Running) {
    server.0.kill().unwrap();
    server.0.wait().unwrap();
}

/// A JSON request with the master key; a fresh client per process, since the
/// pooled connections of the last one died with it.
async fn send(client: &reqwest::Client, method: reqwest::Method, url: String, body: Option<Value>) -> (u16, Value) {
    let mut request = client.request(method, url).header("X-API-Key", KEY);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let res = request.send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn create(client: &reqwest::Client, url: String, body: Value) -> Value {
    let (status, created) = send(client, reqwest::Method::POST, url, Some(body)).await;
    assert_eq!(status, 201, "{created}");
    created
}

/// Attempt numbers logged more than once for one delivery, read from the
/// database itself (the log of every webhook at once).
async fn attempts_logged_twice(database_url: &str) -> Vec<(uuid::Uuid, i64, i64)> {
    let db = Database::connect(database_url).await.unwrap();
    let sql = "SELECT delivery_id, CAST(attempt AS BIGINT), CAST(COUNT(*) AS BIGINT) \
               FROM webhook_attempts GROUP BY delivery_id, attempt HAVING COUNT(*) > 1";
    let rows = db.query_all_raw(Statement::from_string(db.get_database_backend(), sql)).await.unwrap();
    let twice = rows
        .iter()
        .map(|r| (r.try_get_by_index(0).unwrap(), r.try_get_by_index(1).unwrap(), r.try_get_by_index(2).unwrap()))
        .collect();
    db.close().await.ok();
    twice
}

/// Deliveries by status, and attempts logged in all.
async fn delivery_figures(database_url: &str) -> (BTreeMap<String, i64>, i64) {
    let db = Database::connect(database_url).await.unwrap();
    let backend = db.get_database_backend();
    let sql = "SELECT status, CAST(COUNT(*) AS BIGINT) FROM webhook_deliveries GROUP BY status";
    let rows = db.query_all_raw(Statement::from_string(backend, sql)).await.unwrap();
    let statuses = rows.iter().map(|r| (r.try_get_by_index(0).unwrap(), r.try_get_by_index(1).unwrap())).collect();
    let sql = "SELECT CAST(COUNT(*) AS BIGINT) FROM webhook_attempts";
    let logged = db.query_one_raw(Statement::from_string(backend, sql)).await.unwrap().unwrap();
    let logged = logged.try_get_by_index(0).unwrap();
    db.close().await.ok();
    (statuses, logged)
}

#[actix_web::test]
async fn a_killed_process_loses_no_delivery_and_resends_keep_their_ids() {
    let receiver = Receiver::start();
    let instance = Instance::new(&receiver.host_port, &[]).await;
    let server = instance.start();
    let api = instance.api();
    let client = reqwest::Client::new();
    let site = create(&client, format!("{api}/sites"), json!({"name": "Crash", "slug": "crash"})).await;
    let site_id = site["id"].as_str().unwrap().to_string();
    let hook = json!({"url": receiver.url, "events": ["blog.created"]});
    create(&client, format!("{api}/sites/{site_id}/webhooks"), hook).await;

    post_blogs(&client, &api, &site_id, POSTS).await;
    kill(server);
    let before_restart = receiver.received().len();

    let _server = instance.start();
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
    if !missing.is_empty() {
        let (statuses, _) = delivery_figures(&instance.database_url).await;
        let failures = failed_attempts(&instance.database_url).await;
        panic!("never delivered after the restart: {missing:?}\ndeliveries by status: {statuses:?}\nfailed attempts: {failures:?}");
    }
    for (title, ids) in &ids_by_title {
        assert!(ids.iter().all(|id| *id == ids[0]), "{title} was resent under another webhook-id: {ids:?}");
    }
    let resent = receiver.received().len() - POSTS;
    eprintln!("{before_restart} deliveries arrived before the kill; {resent} were sent again after it");
}

/// The errors of failed attempts, for a failure's message.
async fn failed_attempts(database_url: &str) -> Vec<String> {
    let db = Database::connect(database_url).await.unwrap();
    let sql = "SELECT COALESCE(error, '') FROM webhook_attempts WHERE success = FALSE";
    let rows = db.query_all_raw(Statement::from_string(db.get_database_backend(), sql)).await.unwrap();
    rows.iter().map(|r| r.try_get_by_index::<String>(0).unwrap()).collect()
}

/// Webhooks without debounce: 200 posts fan out to 1,000 deliveries.
const IMMEDIATE_HOOKS: usize = 5;
const FANNED_POSTS: usize = 200;
/// Debounce windows (s) longer than the process lives: open when it dies.
const DEBOUNCE_WINDOWS: [u64; 2] = [15, 20];
/// The receiver answers each request after this long: with at most
/// [`SENDS_PER_WEBHOOK`] sends per webhook in flight, a webhook's 200
/// deliveries take 25 rounds, 38 s. Slow enough that a third of them are still
/// to come when the process dies, however long a loaded machine takes to post
/// (with 16 sends per webhook, posting for more than 6 s left fewer).
const SLOW_ANSWER: Duration = Duration::from_millis(1500);
const SENDS_PER_WEBHOOK: &str = "8";
/// A delivery is claimed for this long when stored; most of them wait longer
/// than that for a send slot, so a claim lapsing while its send waits (and a
/// second send of the same attempt) would show.
const CLAIM_LEASE_SECS: u64 = 4;

#[actix_web::test]
async fn a_thousand_deliveries_and_open_debounce_buffers_survive_a_kill_against_a_slow_receiver() {
    let receiver = Receiver::start();
    receiver.answer_after(SLOW_ANSWER);
    let lease = CLAIM_LEASE_SECS.to_string();
    let env = [
        ("PLINTH_WEBHOOK_CLAIM_LEASE_SECS", lease.as_str()),
        ("PLINTH_WEBHOOK_RETRY_POLL_SECS", "1"),
        ("PLINTH_WEBHOOK_FLUSH_POLL_SECS", "1"),
        // A failed attempt (a timeout on a loaded machine) is tried again within
        // the test: every event must still arrive, each attempt logged once.
        ("PLINTH_WEBHOOK_RETRY_DELAYS", "1,1,1,1,1"),
        ("PLINTH_WEBHOOK_SENDS_PER_ENDPOINT", SENDS_PER_WEBHOOK),
        // Timeouts on a loaded machine must not open a circuit here: what is
        // tested is the crash, and every event arriving within the deadline.
        ("PLINTH_CIRCUIT_FAILURES", "1000"),
    ];
    let instance = Instance::new(&receiver.host_port, &env).await.with_config_file("[webhooks]\ntimeout_secs = 3\n");
    let server = instance.start();
    let api = instance.api();
    let client = reqwest::Client::new();
    let site = create(&client, format!("{api}/sites"), json!({"name": "Crash", "slug": "crash"})).await;
    let site_id = site["id"].as_str().unwrap().to_string();
    for i in 0..IMMEDIATE_HOOKS {
        let hook = json!({"url": format!("{}/{i}", receiver.url), "events": ["blog.created"]});
        create(&client, format!("{api}/sites/{site_id}/webhooks"), hook).await;
    }
    for (i, window) in DEBOUNCE_WINDOWS.iter().enumerate() {
        let hook = json!({"url": format!("{}/batch/{i}", receiver.url), "events": ["blog.created"], "debounce_seconds": window});
        create(&client, format!("{api}/sites/{site_id}/webhooks"), hook).await;
    }

    let posting = Instant::now();
    post_blogs(&client, &api, &site_id, FANNED_POSTS).await;
    // Past the lease of the deliveries still waiting for a send slot, and a
    // retry pass or two later: then the process dies with sends in flight.
    tokio::time::sleep(Duration::from_secs(CLAIM_LEASE_SECS + 2)).await;
    kill(server);
    let before_kill = receiver.received();
    let expected = IMMEDIATE_HOOKS * FANNED_POSTS;
    assert!(
        before_kill.len() < expected * 2 / 3,
        "a third of the deliveries are still to come when the process dies ({} of {expected} arrived)",
        before_kill.len()
    );
    assert!(
        posting.elapsed() < Duration::from_secs(DEBOUNCE_WINDOWS[0])
            && before_kill.iter().all(|r| !r.path.contains("/batch/")),
        "the debounce windows were still open when the process died"
    );

    let _server = instance.start();
    let wanted: HashSet<(String, String)> = (0..FANNED_POSTS)
        .flat_map(|p| {
            let mut paths: Vec<String> = (0..IMMEDIATE_HOOKS).map(|h| format!("/hook/{h}")).collect();
            paths.extend((0..DEBOUNCE_WINDOWS.len()).map(|b| format!("/hook/batch/{b}")));
            paths.into_iter().map(move |path| (path, format!("post-{p}")))
        })
        .collect();
    let mut got = HashSet::new();
    let deadline = Instant::now() + Duration::from_secs(90);
    while Instant::now() < deadline {
        got = delivered_titles(&receiver);
        if wanted.is_subset(&got) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let mut missing: Vec<&(String, String)> = wanted.difference(&got).collect();
    missing.sort();
    let (statuses, _) = delivery_figures(&instance.database_url).await;
    assert!(
        missing.is_empty(),
        "{} never delivered, e.g. {:?}; deliveries by status: {statuses:?}",
        missing.len(),
        &missing[..missing.len().min(10)]
    );

    // Every delivery recorded as sent: the receiver sees a request before its
    // attempt is logged.
    let mut figures = delivery_figures(&instance.database_url).await;
    for _ in 0..100 {
        if figures.0.keys().all(|s| s == "success") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        figures = delivery_figures(&instance.database_url).await;
    }
    let (statuses, logged) = figures;
    assert_eq!(statuses.get("success").copied(), Some(expected as i64 + DEBOUNCE_WINDOWS.len() as i64), "{statuses:?}");
    let twice = attempts_logged_twice(&instance.database_url).await;
    assert!(twice.is_empty(), "attempts logged more than once (delivery, attempt, times): {twice:?}");
    eprintln!(
        "{} of {expected} deliveries arrived before the kill; {} requests after it; {logged} attempts logged",
        before_kill.len(),
        receiver.received().len() - before_kill.len()
    );
}

/// (path, title) of every event the receiver was sent, batched or not.
fn delivered_titles(receiver: &Receiver) -> HashSet<(String, String)> {
    let mut got = HashSet::new();
    for request in receiver.received() {
        let events: Vec<&Value> = match request.body["events"].as_array() {
            Some(batch) => batch.iter().collect(),
            None => vec![&request.body],
        };
        for event in events {
            if let Some(title) = event["data"]["title"].as_str() {
                got.insert((request.path.clone(), title.to_string()));
            }
        }
    }
    got
}

#[actix_web::test]
async fn a_publish_due_while_the_process_is_down_happens_after_the_restart() {
    let receiver = Receiver::start();
    let instance = Instance::new(&receiver.host_port, &[]).await.with_config_file("janitor_every_secs = 1\n");
    let server = instance.start();
    let api = instance.api();
    let client = reqwest::Client::new();
    let site = create(&client, format!("{api}/sites"), json!({"name": "Crash", "slug": "crash"})).await;
    let site_id = site["id"].as_str().unwrap().to_string();
    let hook = json!({"url": receiver.url, "events": ["blog.published"]});
    create(&client, format!("{api}/sites/{site_id}/webhooks"), hook).await;
    // The binary's clock is the real one: due a few seconds from now.
    let due = chrono::Utc::now() + chrono::Duration::seconds(4);
    let body = json!({"site_ids": [site_id], "title": "Later", "status": "Scheduled", "publish_start": due});
    let blog = create(&client, format!("{api}/blogs"), body).await;
    let blog_id = blog["id"].as_str().unwrap().to_string();
    kill(server);
    assert!(chrono::Utc::now() < due, "the process died before the publish was due");
    assert!(receiver.received().is_empty());

    let wait = (due - chrono::Utc::now()).to_std().unwrap_or_default() + Duration::from_secs(1);
    tokio::time::sleep(wait).await;
    let _server = instance.start();
    let client = reqwest::Client::new();
    let published = receiver.wait_for(1).await;
    assert_eq!(published.len(), 1, "one blog.published after the restart");
    assert_eq!(
        (published[0].body["event"].as_str(), published[0].body["data"]["id"].as_str()),
        (Some("blog.published"), Some(blog_id.as_str()))
    );
    let (status, read) = send(&client, reqwest::Method::GET, format!("{api}/blogs/{blog_id}"), None).await;
    assert_eq!((status, read["status"].as_str()), (200, Some("Published")), "{read}");
}

/// Deliveries stored for `webhook_id` so far.
async fn stored_deliveries(db: &sea_orm::DatabaseConnection, webhook_id: &str) -> u64 {
    use plinth_entities::webhook_delivery;
    use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
    let id = uuid::Uuid::parse_str(webhook_id).unwrap();
    webhook_delivery::Entity::find().filter(webhook_delivery::Column::WebhookId.eq(id)).count(db).await.unwrap()
}

/// The claim a delivery gets when stored lasts a lease; behind a slow endpoint
/// its send can wait longer than that for a slot. The process still holds it,
/// so the retry pass must not take it as abandoned and send it a second time.
#[actix_web::test]
async fn a_send_waiting_past_its_lease_behind_a_slow_endpoint_is_sent_once() {
    const POSTS: usize = 40;
    let receiver = Receiver::start();
    let allowed = receiver.host_port.clone();
    let app = crate::helpers::TestApp::spawn_with(|config| config.ssrf_allowlist = vec![allowed]).await;
    receiver.answer_after(Duration::from_secs(2));
    let site: Value =
        app.post("/sites", &app.admin_key, json!({"name": "Slow", "slug": "slow"})).await.json().await.unwrap();
    let site_id = site["id"].as_str().unwrap().to_string();
    let hook: Value = app
        .post(&format!("/sites/{site_id}/webhooks"), &app.admin_key, json!({"url": receiver.url}))
        .await
        .json()
        .await
        .unwrap();
    let hook_id = hook["id"].as_str().unwrap();
    stream::iter(0..POSTS)
        .for_each_concurrent(16, |i| {
            let sent = app.post("/blogs", &app.admin_key, json!({"site_ids": [site_id], "title": format!("post-{i}")}));
            async move { assert_eq!(sent.await.status(), 201) }
        })
        .await;
    for _ in 0..500 {
        if stored_deliveries(&app.state.db, hook_id).await == POSTS as u64 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // 16 sends in flight, the others queued: every claim's lease runs out.
    assert!(receiver.received().len() < POSTS - 16, "sends are still queued behind the slow endpoint");
    let lease = app.state.config.webhooks.claim_lease_secs as i64;
    app.clock.advance(chrono::Duration::seconds(lease + 1));
    app.retry_webhooks().await;

    let received = receiver.wait_for(POSTS).await;
    // Time for a second send of any of them to arrive too.
    tokio::time::sleep(Duration::from_secs(1)).await;
    app.settle().await;
    assert_eq!(
        receiver.received().len(),
        POSTS,
        "each delivery sent once ({} had arrived after the wait)",
        received.len()
    );
    let twice = attempts_logged_twice(&app.database_url).await;
    assert!(twice.is_empty(), "attempts logged more than once (delivery, attempt, times): {twice:?}");
}

/// Creates `count` blogs titled `post-{i}` on the site, 16 at a time.
async fn post_blogs(client: &reqwest::Client, api: &str, site_id: &str, count: usize) {
    stream::iter(0..count)
        .for_each_concurrent(16, |i| {
            let body = json!({"site_ids": [site_id], "title": format!("post-{i}")});
            let sent = create(client, format!("{api}/blogs"), body);
            async move {
                sent.await;
            }
        })
        .await;
}
