use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn social_links_are_ordered_and_go_through_the_trash_with_content() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("social").await;
    let path = format!("/sites/{site}/social-links");
    let github: Value = app
        .post(
            &path,
            &app.admin_key,
            json!({"platform": "github", "url": "https://github.com/acme", "display_order": 2}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!((github["label"].as_str(), github["is_active"].as_bool()), (Some("github"), Some(true)));
    app.post(
        &path,
        &app.admin_key,
        json!({"platform": "mastodon", "url": "https://social.example/@acme", "label": "Mastodon", "display_order": 1}),
    )
    .await;
    let res = app.post(&path, &app.admin_key, json!({"platform": "Git Hub", "url": "ftp://x"})).await;
    assert_eq!(assert_problem(res, 422, "VALIDATION_ERROR").await["errors"].as_array().unwrap().len(), 2);
    let listed: Vec<Value> = app.get(&path, &app.admin_key).await.json().await.unwrap();
    assert_eq!(listed.iter().map(|l| l["platform"].as_str().unwrap()).collect::<Vec<_>>(), ["mastodon", "github"]);

    let reader = app.create_key("Read", Some(&site)).await;
    let id = github["id"].as_str().unwrap();
    assert_problem(
        app.put(&format!("/social-links/{id}"), &reader, json!({"label": "x"})).await,
        403,
        "AUTH_INSUFFICIENT_ROLE",
    )
    .await;
    let renamed: Value =
        app.put(&format!("/social-links/{id}"), &app.admin_key, json!({"label": "GitHub"})).await.json().await.unwrap();
    assert_eq!(renamed["label"], "GitHub");

    // A deleted post and a deleted link share the trash, newest-deleted first.
    let post: Value =
        app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Post"})).await.json().await.unwrap();
    app.delete(&format!("/blogs/{}", post["id"].as_str().unwrap()), &app.admin_key).await;
    assert_eq!(app.delete(&format!("/social-links/{id}"), &app.admin_key).await.status(), 204);
    let trash: Value = app.get(&format!("/sites/{site}/trash"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(trash["total"], 2);
    let types: Vec<&str> =
        trash["items"].as_array().unwrap().iter().map(|i| i["entity_type"].as_str().unwrap()).collect();
    assert_eq!(types, ["social", "blog"]);
    let second: Value =
        app.get(&format!("/sites/{site}/trash?page=2&page_size=1"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(second["items"][0]["entity_type"], "blog");
    let listed: Vec<Value> = app.get(&path, &app.admin_key).await.json().await.unwrap();
    assert_eq!(listed.len(), 1);

    let restored: Value = app
        .post(&format!("/trash/{id}/restore?entity_type=social"), &app.admin_key, json!({}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(restored["label"], "GitHub");
    assert_problem(
        app.post(&format!("/trash/{id}/restore?entity_type=social"), &app.admin_key, json!({})).await,
        400,
        "TRASH_ALREADY_RESTORED",
    )
    .await;
    assert_problem(
        app.delete(&format!("/trash/{id}?entity_type=social"), &app.admin_key).await,
        400,
        "TRASH_NOT_DELETED",
    )
    .await;
    app.delete(&format!("/social-links/{id}"), &app.admin_key).await;
    assert_eq!(app.delete(&format!("/trash/{id}?entity_type=social"), &app.admin_key).await.status(), 204);
    let count: Value = app.get(&format!("/sites/{site}/trash/count"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(count, json!({"count": 1}));
}
