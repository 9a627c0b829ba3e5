//! Two instances on one PostgreSQL database (run when `PLINTH_TEST_DATABASE_URL`
//! is set; on SQLite there is one instance and these tests say so and pass).
//! What one instance changes is seen by the other through the cluster channel
//! well before the caches' own 30 s, and periodic work runs on one at a time.

use std::time::{Duration, Instant};

use futures_util::stream::{self, StreamExt};
use reqwest::Method;
use serde_json::{json, Value};

use crate::event_stream::{next_event, open_stream};
use crate::helpers::{test_config, TestApp};
use crate::idp::{add_member, jwk, user_token, JwksServer, AUDIENCE, ISSUER};
use crate::receiver::Receiver;

/// How long a change may take to reach the other instance before the test
/// calls it lost (the caches alone would take 30 s). The measured time is printed.
const PATIENCE: Duration = Duration::from_secs(5);

fn on_postgres(app: &TestApp) -> bool {
    let shared = app.database_url.starts_with("postgres");
    if !shared {
        eprintln!("one instance on SQLite: set PLINTH_TEST_DATABASE_URL to run the two-instance tests");
    }
    shared
}

/// A second instance on `first`'s database, with the same master key.
pub(crate) async fn second_instance(first: &TestApp, adjust: impl FnOnce(&mut plinth::Config)) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(&dir, &first.database_url);
    config.bootstrap_api_key = Some(first.admin_key.clone());
    adjust(&mut config);
    TestApp::start(config, dir).await
}

/// Polls until `check` holds; returns how long it took.
async fn within<F, Fut>(what: &str, mut check: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = Instant::now();
    while started.elapsed() < PATIENCE {
        if check().await {
            let took = started.elapsed();
            eprintln!("{what}: seen on the other instance after {} ms", took.as_millis());
            return took;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{what}: not seen on the other instance within {PATIENCE:?}");
}

#[actix_web::test]
async fn a_revoked_key_and_a_changed_setting_reach_the_other_instance() {
    let a = TestApp::spawn().await;
    if !on_postgres(&a) {
        return;
    }
    let b = second_instance(&a, |_| {}).await;
    let site = a.create_site_id("twins").await;
    let created: Value = a
        .post("/api-keys", &a.admin_key, json!({"name": "reader", "permission": "Read", "site_id": site}))
        .await
        .json()
        .await
        .unwrap();
    let (key_id, secret) = (created["id"].as_str().unwrap(), created["key"].as_str().unwrap().to_string());
    let (site_path, settings) = (format!("/sites/{site}"), format!("/sites/{site}/settings"));
    // B caches the key, the site and its settings.
    assert_eq!(b.get(&site_path, &secret).await.status(), 200);
    let before: Value = b.get(&settings, &b.admin_key).await.json().await.unwrap();

    let changed = !before["analytics_enabled"].as_bool().unwrap_or(false);
    let put = a.put(&settings, &a.admin_key, json!({"analytics_enabled": changed})).await;
    assert_eq!(put.status(), 200, "{}", put.text().await.unwrap());
    within("a settings change", || async {
        let now: Value = b.get(&settings, &b.admin_key).await.json().await.unwrap();
        now["analytics_enabled"] == json!(changed)
    })
    .await;

    // A block holds on B from the key's next request there, and so does its lifting.
    let blocked = a.post(&format!("/api-keys/{key_id}/block"), &a.admin_key, json!({"reason": "leaked"})).await;
    assert_eq!(blocked.status(), 200);
    within("a blocked key", || async { b.get(&site_path, &secret).await.status() == 401 }).await;
    let unblocked = a.post(&format!("/api-keys/{key_id}/unblock"), &a.admin_key, json!({})).await;
    assert_eq!(unblocked.status(), 200);
    within("an unblocked key", || async { b.get(&site_path, &secret).await.status() == 200 }).await;

    assert_eq!(a.delete(&format!("/api-keys/{key_id}"), &a.admin_key).await.status(), 204);
    within("a revoked key", || async { b.get(&site_path, &secret).await.status() == 401 }).await;
}

#[actix_web::test]
async fn a_ban_on_one_instance_holds_on_the_other() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let with_idp = |c: &mut plinth::Config| {
        c.idp.jwks_url = Some(jwks.url.clone());
        c.idp.issuer = Some(ISSUER.into());
        c.idp.audience = Some(AUDIENCE.into());
        c.idp.jwks_refetch_secs = 0;
    };
    let a = TestApp::spawn_with(with_idp).await;
    if !on_postgres(&a) {
        return;
    }
    let b = second_instance(&a, with_idp).await;
    let site = a.create_site_id("banned").await;
    add_member(&a, &site, "mallory", "Editor").await;
    let token = user_token("mallory");
    let path = format!("/sites/{site}");
    // B remembers that mallory may act.
    assert_eq!(b.bearer(Method::GET, &path, &token, None).await.status(), 200);
    let ban = a.post("/admin/users/mallory/ban", &a.admin_key, json!({"reason": "fraud"})).await;
    assert_eq!(ban.status(), 200, "{}", ban.text().await.unwrap());
    within("a ban", || async { b.bearer(Method::GET, &path, &token, None).await.status() == 403 }).await;
}

#[actix_web::test]
async fn a_stream_on_one_instance_sees_a_blog_created_on_the_other() {
    let a = TestApp::spawn().await;
    if !on_postgres(&a) {
        return;
    }
    let b = second_instance(&a, |_| {}).await;
    let site = a.create_site_id("streamed").await;
    let mut events = open_stream(&b, &site, &b.admin_key, None).await;
    let created = a.post("/blogs", &a.admin_key, json!({"site_ids": [site], "title": "From A"})).await;
    assert_eq!(created.status(), 201);
    let (_, name, body) = next_event(&mut events).await;
    assert_eq!(name, "blog.created");
    assert_eq!(body["data"]["title"], "From A");
}

#[actix_web::test]
async fn periodic_work_runs_on_one_instance_at_a_time() {
    let a = TestApp::spawn().await;
    if !on_postgres(&a) {
        return;
    }
    let b = second_instance(&a, |_| {}).await;
    let (now, lease) = (chrono::Utc::now(), Duration::from_secs(60));
    let job = "a-test-job";
    assert!(a.state.cluster.may_run(&a.state.db, job, now, lease).await);
    assert!(!b.state.cluster.may_run(&b.state.db, job, now, lease).await, "held by A");
    assert!(a.state.cluster.may_run(&a.state.db, job, now, lease).await, "A renews its own lease");
    // A lapsed lease is taken over; then A is refused.
    let later = now + chrono::Duration::seconds(61);
    assert!(b.state.cluster.may_run(&b.state.db, job, later, lease).await);
    assert!(!a.state.cluster.may_run(&a.state.db, job, later, lease).await);
    // A released lease is free at once.
    b.state.cluster.release(&b.state.db, &[job]).await;
    assert!(a.state.cluster.may_run(&a.state.db, job, later, lease).await);
}

#[actix_web::test]
async fn two_instances_deliver_a_thousand_events_once_each() {
    const EVENTS: usize = 1000;
    let receiver = Receiver::start();
    let allow = |c: &mut plinth::Config| c.ssrf_allowlist = vec![receiver.host_port.clone()];
    let a = TestApp::spawn_with(allow).await;
    if !on_postgres(&a) {
        return;
    }
    let b = second_instance(&a, allow).await;
    let site = a.create_site_id("once").await;
    let hook = a
        .post(
            &format!("/sites/{site}/webhooks"),
            &a.admin_key,
            json!({"url": receiver.url, "events": ["blog.created"]}),
        )
        .await;
    assert_eq!(hook.status(), 201);
    stream::iter(0..EVENTS)
        .for_each_concurrent(16, |i| {
            let app = if i % 2 == 0 { &a } else { &b };
            let body = json!({"site_ids": [site], "title": format!("post-{i}")});
            async move { assert_eq!(app.post("/blogs", &app.admin_key, body).await.status(), 201) }
        })
        .await;
    let started = Instant::now();
    while receiver.received().len() < EVENTS && started.elapsed() < Duration::from_secs(60) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Anything sent twice would arrive by now too.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let received = receiver.received();
    let mut titles: Vec<String> =
        received.iter().map(|got| got.body["data"]["title"].as_str().unwrap_or_default().to_string()).collect();
    titles.sort();
    let sent = titles.len();
    titles.dedup();
    assert_eq!(titles.len(), EVENTS, "every event delivered");
    assert_eq!(sent, EVENTS, "no event delivered twice");
    a.settle().await;
    b.settle().await;
}
