//! A key's newest requests, as the origin service's admin shows its usage.

use serde_json::{json, Value};

use crate::helpers::{assert_problem, test_config, TestApp};

async fn usage(app: &TestApp, key_id: &str, query: &str) -> Vec<Value> {
    let res = app.get(&format!("/api-keys/{key_id}/usage{query}"), &app.admin_key).await;
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}

#[actix_web::test]
async fn a_keys_newest_requests_are_listed_by_route_and_survive_a_restart() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("usage").await;
    let body = json!({"name": "load tester", "permission": "Write", "site_id": site});
    let created: Value = app.post("/api-keys", &app.admin_key, body).await.json().await.unwrap();
    let (secret, id) = (created["key"].as_str().unwrap().to_string(), created["id"].as_str().unwrap().to_string());

    assert_eq!(app.get(&format!("/sites/{site}/blogs"), &secret).await.status(), 200);
    let missing = uuid::Uuid::new_v4();
    assert_eq!(app.get(&format!("/blogs/{missing}?draft=1"), &secret).await.status(), 404);
    let res = app.post("/blogs", &secret, json!({"site_ids": [site], "title": "Usage"})).await;
    assert_eq!(res.status(), 201);

    // Newest first, by route template: no id, query or body of the caller's.
    let listed = usage(&app, &id, "").await;
    let seen: Vec<(&str, &str, u64)> = listed
        .iter()
        .map(|r| (r["endpoint"].as_str().unwrap(), r["method"].as_str().unwrap(), r["status_code"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        seen,
        [
            ("/api/v1/blogs", "POST", 201),
            ("/api/v1/blogs/{id}", "GET", 404),
            ("/api/v1/sites/{site_id}/blogs", "GET", 200)
        ]
    );
    assert!(listed.iter().all(|r| r["response_time_ms"].as_f64().is_some() && r["created_at"].is_string()));
    assert!(!serde_json::to_string(&listed).unwrap().contains(&missing.to_string()));
    let second = usage(&app, &id, "?limit=1&offset=1").await;
    assert_eq!((second.len(), second[0]["status_code"].as_u64()), (1, Some(404)));

    // Only who may manage the key reads it.
    let reader = app.create_key("Read", Some(&site)).await;
    let res = app.get(&format!("/api-keys/{id}/usage"), &reader).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;

    // Past the newest hundred, the oldest go; a graceful stop writes the rest,
    // and a new process lists them from the database.
    for _ in 0..105 {
        assert_eq!(app.get(&format!("/sites/{site}"), &secret).await.status(), 200);
    }
    let config_key = app.admin_key.clone();
    let (dir, database_url) = app.stop().await;
    let mut config = test_config(&dir, &database_url);
    config.bootstrap_api_key = Some(config_key);
    let app = TestApp::start(config, dir).await;
    let stored = usage(&app, &id, "?limit=100").await;
    assert_eq!(stored.len(), 100, "the newest hundred are kept");
    assert!(stored.iter().all(|r| r["endpoint"] == "/api/v1/sites/{id}"), "the three first requests are gone");
    let key: Value = app.get(&format!("/api-keys/{id}"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(key["total_requests"], 108, "the count is not capped");
}
