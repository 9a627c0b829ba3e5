//! Privacy-first analytics over HTTP.

use plinth_entities::{analytics_daily, analytics_event};
use sea_orm::{EntityTrait, QueryOrder};
use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

async fn view(app: &TestApp, key: &str, site: &str, path: &str, agent: &str, referrer: Option<&str>) {
    let res = app
        .client
        .post(app.url(&format!("/sites/{site}/analytics/pageview")))
        .header("X-API-Key", key)
        .header("User-Agent", agent)
        .json(&json!({"path": path, "referrer": referrer}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    assert_eq!(res.json::<Value>().await.unwrap(), json!({"ok": true}));
}

async fn rollups(app: &TestApp) -> Vec<analytics_daily::Model> {
    analytics_daily::Entity::find()
        .order_by_asc(analytics_daily::Column::Day)
        .order_by_asc(analytics_daily::Column::Path)
        .all(&app.state.db)
        .await
        .unwrap()
}

#[actix_web::test]
async fn pageviews_are_counted_without_keeping_anyone() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("stats").await;
    let key = app.admin_key.clone();
    let reader = app.create_key("Read", Some(&site)).await;
    assert_problem(app.get(&format!("/sites/{site}/analytics/report"), &key).await, 403, "ANALYTICS_NOT_ENABLED").await;
    app.put(&format!("/sites/{site}/settings"), &key, json!({"analytics_enabled": true})).await;

    for _ in 0..3 {
        view(&app, &reader, &site, "/a", "Firefox", Some("https://www.search.example/?q=secret")).await;
    }
    view(&app, &reader, &site, "/a", "Chrome", None).await;
    view(&app, &reader, &site, "/b", "Firefox", None).await;
    view(&app, &reader, &site, "/b", "Firefox", None).await;
    let bad = app.post(&format!("/sites/{site}/analytics/pageview"), &reader, json!({"path": ""})).await;
    assert_problem(bad, 422, "VALIDATION_ERROR").await;

    let report: Value =
        app.get(&format!("/sites/{site}/analytics/report?days=7&top_n=5"), &reader).await.json().await.unwrap();
    assert_eq!((report["total_views"].as_u64(), report["total_unique_visitors"].as_u64()), (Some(6), Some(2)));
    assert_eq!(
        report["top_content"],
        json!([{"path": "/a", "total_views": 4, "unique_visitors": 2}, {"path": "/b", "total_views": 2, "unique_visitors": 1}])
    );
    let trend = report["trend"].as_array().unwrap();
    assert_eq!(trend.len(), 7);
    assert_eq!((trend[6]["total_views"].as_u64(), trend[6]["unique_visitors"].as_u64()), (Some(6), Some(2)));
    assert_problem(
        app.get(&format!("/sites/{site}/analytics/report?days=400"), &reader).await,
        422,
        "VALIDATION_ERROR",
    )
    .await;

    // What is stored: a day's hash and a domain, nothing that names the visitor.
    let stored = analytics_event::Entity::find().all(&app.state.db).await.unwrap();
    assert_eq!(stored.len(), 6);
    for row in &stored {
        assert_eq!(row.visitor_hash.len(), 32);
        assert!(!row.visitor_hash.contains("127.0.0.1"));
    }
    assert_eq!(stored[0].referrer_domain.as_deref(), Some("search.example"));
    let hashes: std::collections::HashSet<&str> = stored.iter().map(|r| r.visitor_hash.as_str()).collect();
    assert_eq!(hashes.len(), 2, "two user agents, two visitors");

    // Tomorrow, the rollup; twice gives the same rollup; old raw views go.
    assert_problem(
        app.post(&format!("/sites/{site}/analytics/aggregate"), &reader, json!({})).await,
        403,
        "AUTH_INSUFFICIENT_ROLE",
    )
    .await;
    app.clock.advance(chrono::Duration::days(1));
    let first: Value =
        app.post(&format!("/sites/{site}/analytics/aggregate"), &key, json!({})).await.json().await.unwrap();
    assert_eq!(first["rows_affected"], 3, "{first}");
    let once = rollups(&app).await;
    let again: Value =
        app.post(&format!("/sites/{site}/analytics/aggregate"), &key, json!({})).await.json().await.unwrap();
    assert_eq!(again["rows_affected"], 3);
    assert_eq!(rollups(&app).await, once);
    let pruned: Value = app
        .post(&format!("/sites/{site}/analytics/aggregate?retention_days=0"), &key, json!({}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(pruned["rows_affected"], 3 + 6);
    assert!(analytics_event::Entity::find().all(&app.state.db).await.unwrap().is_empty());
    let report: Value = app.get(&format!("/sites/{site}/analytics/report?days=7"), &reader).await.json().await.unwrap();
    assert_eq!((report["total_views"].as_u64(), report["total_unique_visitors"].as_u64()), (Some(6), Some(2)));
    assert_eq!(report["trend"][5]["total_views"], 6, "yesterday, from the rollup");

    let res = app.post(&format!("/sites/{site}/analytics/aggregate?retention_days=2147483648"), &key, json!({})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let other = app.create_site_id("stats-other").await;
    let foreign = app.create_key("Admin", Some(&other)).await;
    assert_eq!(app.get(&format!("/sites/{site}/analytics/report"), &foreign).await.status(), 403);
}

#[actix_web::test]
async fn one_paths_report_has_its_days_visitors_and_referrers() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("page-stats").await;
    let key = app.admin_key.clone();
    app.put(&format!("/sites/{site}/settings"), &key, json!({"analytics_enabled": true})).await;
    let reader = app.create_key("Read", Some(&site)).await;
    for _ in 0..3 {
        view(&app, &reader, &site, "/a", "Firefox", Some("https://www.search.example/?q=secret")).await;
    }
    view(&app, &reader, &site, "/a", "Chrome", Some("https://news.example/today")).await;
    view(&app, &reader, &site, "/a", "Chrome", None).await;
    view(&app, &reader, &site, "/b", "Firefox", Some("https://other.example/")).await;

    let page = format!("/sites/{site}/analytics/report/page");
    let res = app.get(&format!("{page}?path=/a&days=7"), &reader).await;
    assert_eq!(res.status(), 200);
    let report: Value = res.json().await.unwrap();
    assert_eq!(report["path"], "/a");
    assert_eq!((report["total_views"].as_u64(), report["total_unique_visitors"].as_u64()), (Some(5), Some(2)));
    assert_eq!(
        report["referrers"],
        json!([{"domain": "search.example", "views": 3}, {"domain": "news.example", "views": 1}]),
        "only this path's, most first"
    );
    let trend = report["trend"].as_array().unwrap();
    assert_eq!((trend.len(), trend[6]["total_views"].as_u64()), (7, Some(5)));
    let none: Value = app.get(&format!("{page}?path=/never"), &reader).await.json().await.unwrap();
    assert_eq!((none["total_views"].as_u64(), none["trend"].as_array().map(Vec::len)), (Some(0), Some(30)));
    assert_problem(app.get(&format!("{page}?path=/a&days=0"), &reader).await, 422, "VALIDATION_ERROR").await;
    assert_eq!(app.get(&page, &reader).await.status().as_u16() / 100, 4, "a path is required");
}
