//! Spec "Endpoints › Webhooks", "Events" and "States › Webhook delivery".

use reqwest::Method;
use serde_json::json;

use super::{assert_paginated, expect_json, s};
use crate::helpers::{assert_problem, TestApp};
use crate::receiver::{verify, Receiver};

async fn app_with_receiver() -> (TestApp, Receiver) {
    let receiver = Receiver::start();
    let allowed = receiver.host_port.clone();
    let app = TestApp::spawn_with(move |c| c.ssrf_allowlist = vec![allowed]).await;
    (app, receiver)
}

#[actix_web::test]
async fn webhook_crud_rows_and_create_errors() {
    let (app, receiver) = app_with_receiver().await;
    let key = &app.admin_key;
    let site = app.create_site_id("hooks").await;
    let hooks = format!("/sites/{site}/webhooks");

    // POST body {url, description, events, debounce_seconds}: 201 with generated secret and is_active.
    let body = json!({"url": receiver.url, "description": "CI", "events": ["blog.created"], "debounce_seconds": 0});
    let hook = expect_json(app.post(&hooks, key, body).await, 201).await;
    assert!(!s(&hook, "secret").is_empty(), "{hook}");
    assert_eq!((hook["is_active"].as_bool(), hook["debounce_seconds"].as_i64()), (Some(true), Some(0)));
    assert_eq!((hook["url"].as_str(), hook["description"].as_str()), (Some(receiver.url.as_str()), Some("CI")));
    assert_eq!(hook["events"], json!(["blog.created"]));
    assert!(hook["created_at"].is_string());
    let id = s(&hook, "id");
    // debounce_seconds is optional.
    let body = json!({"url": receiver.url, "description": "all", "events": []});
    expect_json(app.post(&hooks, key, body).await, 201).await;

    // Errors: private targets, debounce out of range.
    let body = json!({"url": "http://10.0.0.5/hook", "description": "", "events": []});
    assert_problem(app.post(&hooks, key, body).await, 400, "WEBHOOK_URL_SSRF").await;
    let body = json!({"url": receiver.url, "description": "", "events": [], "debounce_seconds": 301});
    assert_problem(app.post(&hooks, key, body).await, 422, "WEBHOOK_INVALID_DEBOUNCE").await;

    // GET list: paginated; GET one.
    let listed = expect_json(app.get(&format!("{hooks}?page=1&per_page=1"), key).await, 200).await;
    assert_paginated(&listed, 1, 1, 2);
    let mut one = expect_json(app.get(&format!("/webhooks/{id}"), key).await, 200).await;
    let circuit = one.as_object_mut().unwrap().remove("circuit").unwrap();
    assert_eq!(circuit["state"], "closed", "its own answer adds the endpoint's health: {circuit}");
    assert_eq!(one, hook);

    // PUT /webhooks/{id}: update.
    let updated =
        expect_json(app.put(&format!("/webhooks/{id}"), key, json!({"description": "Deploys"})).await, 200).await;
    assert_eq!(
        (updated["description"].as_str(), updated["url"].as_str()),
        (Some("Deploys"), Some(receiver.url.as_str()))
    );

    // The section's 403: webhooks are Admin.
    let writer = app.create_key("Write", Some(&site)).await;
    assert_problem(app.get(&format!("/webhooks/{id}"), &writer).await, 403, "AUTH_INSUFFICIENT_ROLE").await;

    // DELETE /webhooks/{id}: gone with its delivery history.
    assert!(app.delete(&format!("/webhooks/{id}"), key).await.status().is_success());
    assert_problem(app.get(&format!("/webhooks/{id}"), key).await, 404, "ENTITY_NOT_FOUND").await;
    assert_problem(app.get(&format!("/webhooks/{id}/deliveries"), key).await, 404, "ENTITY_NOT_FOUND").await;
    app.settle().await;
}

#[actix_web::test]
async fn deliveries_test_stats_and_retry_of_a_dead_delivery() {
    let (app, receiver) = app_with_receiver().await;
    let key = &app.admin_key;
    let site = app.create_site_id("deliver").await;
    let body = json!({"url": receiver.url, "description": "", "events": ["blog.created"]});
    let hook = expect_json(app.post(&format!("/sites/{site}/webhooks"), key, body).await, 201).await;
    let id = s(&hook, "id");

    // POST /webhooks/{id}/test: sends a test payload, returns the delivery result.
    let test = format!("/webhooks/{id}/test");
    let result = expect_json(app.request(Method::POST, &test, Some(key), None).await, 200).await;
    assert_eq!(result["success"], true, "{result}");
    assert_eq!(receiver.received().len(), 1);
    receiver.answer_with(500);
    let res = app.request(Method::POST, &test, Some(key), None).await;
    assert_problem(res, 500, "WEBHOOK_TEST_FAILED").await;
    let before = receiver.received().len();

    // A content mutation is delivered: {event, timestamp, site_id, data {id, title, slug, status}}.
    let blog = expect_json(app.post("/blogs", key, json!({"site_ids": [site], "title": "Hi"})).await, 201).await;
    let received = receiver.wait_for(before + 1).await;
    let sent = &received[before].body;
    assert_eq!((sent["event"].as_str(), sent["site_id"].as_str()), (Some("blog.created"), Some(site.as_str())));
    assert!(sent["timestamp"].is_string(), "{sent}");
    assert_eq!(sent["data"], json!({"id": blog["id"], "title": "Hi", "slug": "hi", "status": "Draft"}));
    assert!(verify(&s(&hook, "secret"), &received[before]), "signed with the webhook secret");

    // pending --fails--> retried with backoff; the 6th failure leaves it dead.
    app.wait_for_logged_attempts(&id, "blog.created", 1).await;
    for _ in 0..5 {
        app.clock.advance(chrono::Duration::days(3));
        app.retry_webhooks().await;
    }
    assert_eq!(receiver.received().len(), before + 6, "six attempts in all");

    // GET /webhooks/{id}/deliveries?page&per_page: the delivery log, one entry per attempt.
    let log = expect_json(app.get(&format!("/webhooks/{id}/deliveries?page=1&per_page=5"), key).await, 200).await;
    let total = log["meta"]["total"].as_u64().unwrap();
    assert!(total >= 6, "each retry adds a log entry: {log}");
    assert_paginated(&log, 1, 5, total);
    let dead = log["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["event"] == "blog.created")
        .expect("the blog delivery is logged");
    let delivery_id = s(dead, "delivery_id");

    // GET /webhooks/{id}/stats?window: default 24h; 1h, 24h, 7d, 30d only.
    let stats = expect_json(app.get(&format!("/webhooks/{id}/stats"), key).await, 200).await;
    assert_eq!((stats["webhook_id"].as_str(), stats["window"].as_str()), (Some(id.as_str()), Some("24h")));
    for field in
        ["total_deliveries", "successful", "failed", "pending_retry", "success_rate", "last_delivery_at", "by_event"]
    {
        assert!(stats.get(field).is_some(), "stats have {field}: {stats}");
    }
    let stats = expect_json(app.get(&format!("/webhooks/{id}/stats?window=30d"), key).await, 200).await;
    assert!(stats["failed"].as_u64().unwrap() >= 1, "{stats}");
    let res = app.get(&format!("/webhooks/{id}/stats?window=2w"), key).await;
    assert_problem(res, 400, "WEBHOOK_INVALID_STATS_WINDOW").await;

    // dead --POST /webhooks/deliveries/{id}/retry--> re-enqueued.
    receiver.answer_with(200);
    let res = app.request(Method::POST, &format!("/webhooks/deliveries/{delivery_id}/retry"), Some(key), None).await;
    assert!(res.status().is_success(), "{}", res.status());
    app.retry_webhooks().await;
    assert_eq!(receiver.received().len(), before + 7, "sent again once re-enqueued");
    app.settle().await;
}
