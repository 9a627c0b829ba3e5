//! Blogs as the origin service's admin writes and reads them: its create and
//! update bodies, `content_id`, `allow_comments`, `reading_time_minutes`, and
//! a localization's `subtitle` and `translation_status`.

use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn the_origin_admin_writes_and_reads_its_blog_fields() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;
    let site = app.create_site_id("origin-blogs").await;
    // CreateBlogRequest as the admin sends it.
    let body = json!({"slug": "first-post", "author": "Ann", "published_date": "2026-11-01",
        "reading_time_minutes": 7, "is_featured": false, "allow_comments": false, "status": "Draft",
        "site_ids": [site]});
    let created = app.create("/blogs", key, body).await;
    let id = created["id"].as_str().unwrap();
    assert_eq!(created["content_id"], created["id"]);
    assert_eq!((created["allow_comments"].as_bool(), created["reading_time_minutes"].as_i64()), (Some(false), Some(7)));
    let plain = app.create("/blogs", key, json!({"site_ids": [site], "title": "Plain"})).await;
    assert_eq!((plain["allow_comments"].as_bool(), plain["reading_time_minutes"].is_null()), (Some(true), true));

    let listed: Value = app.get(&format!("/sites/{site}/blogs"), key).await.json().await.unwrap();
    let item = listed["data"].as_array().unwrap().iter().find(|i| i["id"] == id).unwrap().clone();
    assert_eq!((item["content_id"].as_str(), item["reading_time_minutes"].as_i64()), (Some(id), Some(7)));
    assert_eq!(item["allow_comments"], false);

    let changed: Value = app
        .put(&format!("/blogs/{id}"), key, json!({"reading_time_minutes": null, "allow_comments": true}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!((changed["allow_comments"].as_bool(), changed["reading_time_minutes"].is_null()), (Some(true), true));
    let res = app.put(&format!("/blogs/{id}"), key, json!({"reading_time_minutes": -1})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    // Comments are a blog's: a page refuses them rather than dropping them.
    let res = app.post("/pages", key, json!({"site_ids": [site], "title": "About", "allow_comments": true})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;

    // A localization: subtitle, and the translation's status (any spelling).
    let de = app.locale_id("de").await;
    app.post(&format!("/sites/{site}/locales"), key, json!({"locale_id": de})).await;
    let path = format!("/blogs/{id}/localizations");
    let res = app.post(&path, key, json!({"locale_id": de, "title": "Hallo", "subtitle": "Erster Beitrag"})).await;
    assert_eq!(res.status(), 201);
    let loc: Value = res.json().await.unwrap();
    assert_eq!(
        (loc["subtitle"].as_str(), loc["translation_status"].as_str()),
        (Some("Erster Beitrag"), Some("Pending"))
    );
    let loc_path = format!("/blogs/localizations/{}", loc["id"].as_str().unwrap());
    let updated: Value =
        app.put(&loc_path, key, json!({"translation_status": "in_progress"})).await.json().await.unwrap();
    assert_eq!(
        (updated["translation_status"].as_str(), updated["subtitle"].as_str()),
        (Some("InProgress"), Some("Erster Beitrag"))
    );
    let res = app.put(&loc_path, key, json!({"subtitle": "x".repeat(301)})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    assert_eq!(app.put(&loc_path, key, json!({"translation_status": "Finished"})).await.status(), 422);
    let detail: Value = app.get(&format!("/blogs/{id}/detail"), key).await.json().await.unwrap();
    assert_eq!(detail["localizations"][0]["translation_status"], "InProgress");
}
