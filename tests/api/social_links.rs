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

/// The origin service's admin: its paths, its body (`title`, `icon`,
/// `alt_text`, the site repeated), the fields its types read, and its
/// all-or-nothing reordering.
#[actix_web::test]
async fn the_origin_admin_manages_social_links_at_its_paths() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("origin-social").await;
    let other = app.create_site_id("origin-social-other").await;
    let key = &app.admin_key;
    let path = format!("/sites/{site}/social");
    let body = |title: &str, icon: &str, order: i32| {
        json!({"title": title, "url": format!("https://{icon}.example/acme"), "icon": icon,
            "alt_text": format!("{title} profile"), "display_order": order, "site_id": site})
    };
    let res = app.post(&path, key, body("GitHub", "github", 0)).await;
    assert_eq!(res.status(), 201);
    let github: Value = res.json().await.unwrap();
    for (field, expected) in
        [("title", json!("GitHub")), ("icon", json!("github")), ("alt_text", json!("GitHub profile"))]
    {
        assert_eq!(github[field], expected, "{field}");
    }
    assert_eq!(github["display_order"], 0);
    let mastodon: Value = app.post(&path, key, body("Mastodon", "mastodon", 1)).await.json().await.unwrap();
    let (github_id, mastodon_id) = (github["id"].as_str().unwrap(), mastodon["id"].as_str().unwrap());
    let mut elsewhere = body("Elsewhere", "elsewhere", 2);
    elsewhere["site_id"] = json!(other);
    assert_problem(app.post(&path, key, elsewhere).await, 422, "VALIDATION_ERROR").await;

    let titles =
        |listed: Vec<Value>| listed.iter().map(|l| l["title"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    let order = json!({"items": [{"id": github_id, "display_order": 5}, {"id": mastodon_id, "display_order": 4}]});
    assert_eq!(app.post(&format!("{path}/reorder"), key, order).await.status(), 204);
    assert_eq!(titles(app.get(&path, key).await.json().await.unwrap()), ["Mastodon", "GitHub"]);

    // A link of another site, or one named twice, and nothing moves.
    let foreign: Value = app
        .post(&format!("/sites/{other}/social"), key, json!({"url": "https://x.example/a"}))
        .await
        .json()
        .await
        .unwrap();
    let mixed = json!({"items": [{"id": github_id, "display_order": 0}, {"id": foreign["id"], "display_order": 9}]});
    assert_problem(app.post(&format!("{path}/reorder"), key, mixed).await, 404, "ENTITY_NOT_FOUND").await;
    let twice = json!({"items": [{"id": github_id, "display_order": 0}, {"id": github_id, "display_order": 9}]});
    assert_problem(app.post(&format!("{path}/reorder"), key, twice).await, 422, "VALIDATION_ERROR").await;
    assert_eq!(titles(app.get(&path, key).await.json().await.unwrap()), ["Mastodon", "GitHub"]);

    let one = format!("/social/{github_id}");
    let changed: Value = app.put(&one, key, json!({"title": "Code", "alt_text": null})).await.json().await.unwrap();
    assert_eq!((changed["title"].as_str(), changed["label"].as_str()), (Some("Code"), Some("Code")));
    assert!(changed["alt_text"].is_null());
    let read: Value = app.get(&one, key).await.json().await.unwrap();
    assert_eq!((read["title"].as_str(), read["display_order"].as_i64()), (Some("Code"), Some(5)));
    let reader = app.create_key("Read", Some(&site)).await;
    assert_eq!(app.get(&one, &reader).await.status(), 200);
    let reorder = json!({"items": [{"id": github_id, "display_order": 1}]});
    assert_problem(app.post(&format!("{path}/reorder"), &reader, reorder).await, 403, "AUTH_INSUFFICIENT_ROLE").await;

    assert_eq!(app.delete(&one, key).await.status(), 204);
    assert_problem(app.get(&one, key).await, 404, "ENTITY_NOT_FOUND").await;
    assert_eq!(titles(app.get(&path, key).await.json().await.unwrap()), ["Mastodon"]);
}
