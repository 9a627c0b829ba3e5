//! A hosted site's front end reads through the API with a Read key, which
//! sees drafts too: its published-only lookups must not show them.

use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn published_only_lookups_answer_404_for_anything_not_published() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("front").await;
    let reader = app.create_key("Read", Some(&site)).await;
    let body = |title: &str, status: &str| json!({"site_ids": [site], "title": title, "status": status});
    let live = app.create("/blogs", &app.admin_key, body("Live", "Published")).await;
    let draft = app.create("/blogs", &app.admin_key, body("Draft", "Draft")).await;
    let by_id = |item: &Value| format!("/blogs/{}", item["id"].as_str().unwrap());
    let by_slug = |item: &Value| format!("/sites/{site}/blogs/by-slug/{}", item["slug"].as_str().unwrap());

    for path in [by_id(&live), by_slug(&live)] {
        let res = app.get(&format!("{path}?status=published"), &reader).await;
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(res.json::<Value>().await.unwrap()["title"], "Live");
    }
    for path in [by_id(&draft), by_slug(&draft)] {
        let problem =
            assert_problem(app.get(&format!("{path}?status=published"), &reader).await, 404, "ENTITY_NOT_FOUND").await;
        // Worded as for nothing at all there.
        let nowhere =
            path.replace(draft["id"].as_str().unwrap(), &uuid::Uuid::new_v4().to_string()).replace("draft", "nowhere");
        let absent =
            assert_problem(app.get(&format!("{nowhere}?status=published"), &reader).await, 404, "ENTITY_NOT_FOUND")
                .await;
        assert_eq!(
            problem["detail"].as_str().map(|d| d.contains("draft") || d.contains(draft["id"].as_str().unwrap())),
            Some(true),
            "{problem}"
        );
        assert_eq!(problem["title"], absent["title"]);
        // Without it, the spec's read: any status.
        assert_eq!(app.get(&path, &reader).await.status(), 200, "{path}");
    }
    let res = app.get(&format!("{}?status=draft", by_id(&live)), &reader).await;
    assert_eq!(res.status(), 400, "only published is a front end's status");
}
