//! `GET /sites/{site_id}/events`: a live Server-Sent Events stream of the
//! site's events, resumable with `Last-Event-ID`.

use std::time::Duration;

use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use reqwest::Method;
use serde_json::Value;

use crate::helpers::{assert_problem, TestApp};

/// An open stream: its bytes and what was read but not yet parsed.
pub struct Events {
    bytes: BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buffer: String,
}

/// Opens the site's stream (200, `text/event-stream`), resuming after `last`.
pub async fn open_stream(app: &TestApp, site: &str, key: &str, last: Option<i64>) -> Events {
    let mut request = app.client.get(app.url(&format!("/sites/{site}/events"))).header("X-API-Key", key);
    if let Some(last) = last {
        request = request.header("Last-Event-ID", last.to_string());
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    Events { bytes: response.bytes_stream().boxed(), buffer: String::new() }
}

/// The next event frame as (id, event name, data); comments are skipped.
pub async fn next_event(events: &mut Events) -> (i64, String, Value) {
    loop {
        if let Some(end) = events.buffer.find("\n\n") {
            let frame: String = events.buffer.drain(..end + 2).collect();
            let field =
                |name: &str| frame.lines().find_map(|l| l.strip_prefix(&format!("{name}: ")).map(str::to_string));
            if let (Some(name), Some(data)) = (field("event"), field("data")) {
                let id = field("id").and_then(|id| id.parse().ok()).unwrap_or(-1);
                return (id, name, serde_json::from_str(&data).unwrap());
            }
            continue;
        }
        let chunk = tokio::time::timeout(Duration::from_secs(10), events.bytes.next())
            .await
            .expect("an event within 10 s")
            .expect("the stream stays open")
            .unwrap();
        events.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
    }
}

#[actix_web::test]
async fn a_stream_carries_the_sites_events_and_resumes_after_the_last_id() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("live").await;
    let other = app.create_site_id("elsewhere").await;
    let mut events = open_stream(&app, &site, &app.admin_key, None).await;
    app.create_post(&other, "Not for this stream").await;
    app.create_post(&site, "First").await;
    let (first_id, name, body) = next_event(&mut events).await;
    assert_eq!(name, "blog.created");
    assert_eq!(body["event"], "blog.created");
    assert_eq!(body["site_id"], site.as_str());
    assert_eq!(body["data"]["title"], "First", "the other site's event is not on this stream");
    app.create_post(&site, "Second").await;
    let (second_id, _, body) = next_event(&mut events).await;
    assert_eq!(body["data"]["title"], "Second");
    assert!(second_id > first_id);
    drop(events);

    // Missed while disconnected, then replayed after the last id seen, in order.
    app.create_post(&site, "Third").await;
    app.create_post(&site, "Fourth").await;
    app.settle().await;
    let mut resumed = open_stream(&app, &site, &app.admin_key, Some(first_id)).await;
    let mut titles = Vec::new();
    for _ in 0..3 {
        let (_, _, body) = next_event(&mut resumed).await;
        titles.push(body["data"]["title"].as_str().unwrap().to_string());
    }
    assert_eq!(titles, ["Second", "Third", "Fourth"]);
    app.create_post(&site, "Fifth").await;
    let (_, _, body) = next_event(&mut resumed).await;
    assert_eq!(body["data"]["title"], "Fifth", "live after the replay, nothing repeated");
}

#[actix_web::test]
async fn a_stream_needs_read_on_its_site_and_is_bounded_per_site() {
    let app = TestApp::spawn_with(|c| c.events.subscribers_per_site = 2).await;
    let site = app.create_site_id("guarded").await;
    let foreign_site = app.create_site_id("foreign").await;
    let foreign = app.create_key("Admin", Some(&foreign_site)).await;
    let reader = app.create_key("Read", Some(&site)).await;
    let path = format!("/sites/{site}/events");
    assert_problem(app.request(Method::GET, &path, None, None).await, 401, "AUTH_MISSING_CREDENTIALS").await;
    assert_problem(app.get(&path, &foreign).await, 403, "AUTH_API_KEY_SITE_DENIED").await;
    // A Master key may read every site, but an id that names none is 404, not a stream.
    let nowhere = format!("/sites/{}/events", uuid::Uuid::new_v4());
    assert_problem(app.get(&nowhere, &app.admin_key).await, 404, "ENTITY_NOT_FOUND").await;

    let _one = open_stream(&app, &site, &reader, None).await;
    let _two = open_stream(&app, &site, &reader, None).await;
    let third = app.get(&path, &reader).await;
    assert!(third.headers().contains_key("retry-after"));
    assert_problem(third, 503, "SERVICE_UNAVAILABLE").await;
    // Another site has its own allowance.
    let _elsewhere = open_stream(&app, &foreign_site, &foreign, None).await;
}

/// The largest id a client can send resumes after it (nothing comes after it),
/// and the stream goes on: found by the fuzzer on a debug build, where the
/// id's successor overflowed and broke the stream.
#[actix_web::test]
async fn resuming_after_the_largest_id_keeps_the_stream_open() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("edge").await;
    let mut seen = open_stream(&app, &site, &app.admin_key, None).await;
    app.create_post(&site, "Before").await;
    next_event(&mut seen).await; // in the replay window now
    let mut events = open_stream(&app, &site, &app.admin_key, Some(i64::MAX)).await;
    let read = tokio::time::timeout(Duration::from_millis(500), events.bytes.next()).await;
    assert!(!matches!(read, Ok(None) | Ok(Some(Err(_)))), "the stream is neither ended nor broken: {read:?}");
}
