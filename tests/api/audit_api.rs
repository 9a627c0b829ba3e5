//! The audit API: a site's trail (content on several sites listed under each),
//! an item's entries and field history, a revert written like any edit, and
//! tenant isolation.

use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn the_trail_lists_content_under_every_site_and_a_revert_is_an_ordinary_edit() {
    let app = TestApp::spawn().await;
    let key = app.admin_key.clone();
    let a = app.create_site_id("audit-a").await;
    let b = app.create_site_id("audit-b").await;
    let res = app.post("/blogs", &key, json!({"site_ids": [a, b], "title": "First title", "body": "Body"})).await;
    assert_eq!(res.status(), 201);
    let blog: Value = res.json().await.unwrap();
    let id = blog["id"].as_str().unwrap();
    let res = app.put(&format!("/blogs/{id}"), &key, json!({"title": "Second title"})).await;
    assert_eq!(res.status(), 200);

    for site in [&a, &b] {
        let list: Value = app.get(&format!("/sites/{site}/audit?entity_type=blog"), &key).await.json().await.unwrap();
        let actions: Vec<&str> =
            list["data"].as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap()).collect();
        assert_eq!(actions, ["update", "create"], "site {site}");
    }
    let only_creates: Value =
        app.get(&format!("/sites/{a}/audit?action=create&entity_type=blog"), &key).await.json().await.unwrap();
    assert_eq!(only_creates["meta"]["total"], 1);

    let entries: Value = app.get(&format!("/audit/entity/blog/{id}"), &key).await.json().await.unwrap();
    assert_eq!(entries["meta"]["total"], 2);
    let history: Value = app.get(&format!("/audit/history/blog/{id}"), &key).await.json().await.unwrap();
    let title_change =
        history.as_array().unwrap().iter().find(|c| c["field"] == "title" && c["new"] == "Second title").unwrap();
    assert_eq!(title_change["old"], "First title");
    // The same change under the origin admin's ChangeHistoryEntry names.
    assert_eq!(
        (&title_change["entity_type"], &title_change["entity_id"], &title_change["field_name"]),
        (&json!("blog"), &json!(id), &json!("title"))
    );
    assert_eq!((&title_change["old_value"], &title_change["new_value"]), (&title_change["old"], &title_change["new"]));
    assert_eq!(
        (&title_change["changed_by"], &title_change["changed_at"]),
        (&title_change["actor"], &title_change["created_at"])
    );
    // A key acted: no user.
    assert_eq!(entries["data"][0]["user_id"], Value::Null);

    let res = app.post("/audit/history/revert", &key, json!({"change_ids": [title_change["change_id"]]})).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap()["title"], "First title");
    let item: Value = app.get(&format!("/blogs/{id}"), &key).await.json().await.unwrap();
    assert_eq!(item["title"], "First title");
    let entries: Value = app.get(&format!("/audit/entity/blog/{id}"), &key).await.json().await.unwrap();
    assert_eq!(entries["meta"]["total"], 3, "the revert is audited like any edit");

    let system = history.as_array().unwrap().iter().find(|c| c["field"] == "updated_at").unwrap();
    let res = app.post("/audit/history/revert", &key, json!({"change_ids": [system["change_id"]]})).await;
    assert_problem(res, 400, "BAD_REQUEST").await;

    // Another site's admin key sees nothing of these sites' trails.
    let c = app.create_site_id("audit-c").await;
    let foreign = app.create_key("Admin", Some(&c)).await;
    assert_problem(app.get(&format!("/sites/{a}/audit"), &foreign).await, 403, "AUTH_API_KEY_SITE_DENIED").await;
    assert_problem(app.get(&format!("/audit/entity/blog/{id}"), &foreign).await, 403, "AUTH_API_KEY_SITE_DENIED").await;
    assert_problem(app.get(&format!("/audit/history/blog/{id}"), &foreign).await, 403, "AUTH_API_KEY_SITE_DENIED")
        .await;
    let res = app.post("/audit/history/revert", &foreign, json!({"change_ids": [title_change["change_id"]]})).await;
    assert_problem(res, 403, "AUTH_API_KEY_SITE_DENIED").await;
    let own: Value = app.get(&format!("/sites/{c}/audit"), &foreign).await.json().await.unwrap();
    assert!(own["data"].as_array().unwrap().iter().all(|e| e["entity_id"] != id));
    // A Read key of the site reads content history but not the site's trail.
    let reader = app.create_key("Read", Some(&a)).await;
    assert_eq!(app.get(&format!("/audit/history/blog/{id}"), &reader).await.status(), 200);
    assert_problem(app.get(&format!("/sites/{a}/audit"), &reader).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
}
