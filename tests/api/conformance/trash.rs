//! Spec "Endpoints › Trash" and "States › Soft-deleted content".

use reqwest::Method;
use serde_json::{json, Value};

use super::{expect_json, s};
use crate::helpers::{assert_problem, TestApp};

async fn created(app: &TestApp, path: &str, body: Value) -> String {
    s(&expect_json(app.post(path, &app.admin_key, body).await, 201).await, "id")
}

#[actix_web::test]
async fn trash_rows_and_transitions() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;
    let site = app.create_site_id("bin").await;
    let first = created(&app, "/blogs", json!({"site_ids": [site], "title": "First"})).await;
    let second = created(&app, "/blogs", json!({"site_ids": [site], "title": "Second"})).await;
    let live = created(&app, "/blogs", json!({"site_ids": [site], "title": "Live"})).await;
    // active --DELETE on the content endpoint--> soft-deleted, appears in trash.
    for id in [&first, &second] {
        assert!(app.delete(&format!("/blogs/{id}"), key).await.status().is_success());
    }

    // GET /sites/{site_id}/trash?page&page_size: {items, total}, newest-deleted first.
    let trash = expect_json(app.get(&format!("/sites/{site}/trash"), key).await, 200).await;
    assert_eq!(trash["total"], 2);
    let ids: Vec<&str> = trash["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [second.as_str(), first.as_str()]);
    assert!(trash["items"].as_array().unwrap().iter().all(|i| i["deleted_at"].is_string()), "{trash}");
    let paged = expect_json(app.get(&format!("/sites/{site}/trash?page=2&page_size=1"), key).await, 200).await;
    assert_eq!(
        (paged["items"].as_array().unwrap().len(), paged["total"].as_u64()),
        (1, Some(2)),
        "total is not the page length"
    );
    assert_eq!(paged["items"][0]["id"], first.as_str());

    // GET /sites/{site_id}/trash/count: {count}.
    let count = expect_json(app.get(&format!("/sites/{site}/trash/count"), key).await, 200).await;
    assert_eq!(count, json!({"count": 2}));

    // soft-deleted --POST /trash/{id}/restore?entity_type--> active; reappears in listings.
    let restore = format!("/trash/{first}/restore?entity_type=blog");
    let restored = expect_json(app.request(Method::POST, &restore, Some(key), None).await, 200).await;
    assert_eq!(restored["id"], first.as_str());
    let listed = expect_json(app.get(&format!("/sites/{site}/blogs"), key).await, 200).await;
    assert_eq!(listed["meta"]["total"], 2);
    let res = app.request(Method::POST, &restore, Some(key), None).await;
    assert_problem(res, 400, "TRASH_ALREADY_RESTORED").await;

    // soft-deleted --DELETE /trash/{id}?entity_type--> removed; TRASH_NOT_DELETED when live.
    let res = app.delete(&format!("/trash/{live}?entity_type=blog"), key).await;
    assert_problem(res, 400, "TRASH_NOT_DELETED").await;
    assert!(app.delete(&format!("/trash/{second}?entity_type=blog"), key).await.status().is_success());
    let count = expect_json(app.get(&format!("/sites/{site}/trash/count"), key).await, 200).await;
    assert_eq!(count, json!({"count": 0}));
    let res = app.request(Method::POST, &format!("/trash/{second}/restore?entity_type=blog"), Some(key), None).await;
    assert_problem(res, 404, "ENTITY_NOT_FOUND").await;

    // The section's 403: the trash is Admin.
    let writer = app.create_key("Write", Some(&site)).await;
    assert_problem(app.get(&format!("/sites/{site}/trash"), &writer).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
}

#[actix_web::test]
async fn every_built_entity_type_goes_through_the_trash() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;
    let site = app.create_site_id("kinds").await;
    let settings = json!({"module_portfolio_enabled": true, "module_legal_enabled": true});
    app.put(&format!("/sites/{site}/settings"), key, settings).await;

    let menu = created(&app, &format!("/sites/{site}/menus"), json!({"name": "Main"})).await;
    let kept_menu = created(&app, &format!("/sites/{site}/menus"), json!({"name": "Footer"})).await;
    let item = created(&app, &format!("/menus/{kept_menu}/items"), json!({"label": "Home", "url": "/"})).await;
    let items: Vec<(&str, String, String)> = vec![
        ("blog", created(&app, "/blogs", json!({"site_ids": [site], "title": "B"})).await, "/blogs".into()),
        ("page", created(&app, "/pages", json!({"site_ids": [site], "title": "P"})).await, "/pages".into()),
        ("project", created(&app, "/projects", json!({"site_ids": [site], "title": "Pr"})).await, "/projects".into()),
        (
            "cv_entry",
            created(&app, "/cv", json!({"site_ids": [site], "title": "C", "start_date": "2020-01-01"})).await,
            "/cv".into(),
        ),
        ("skill", created(&app, "/skills", json!({"site_ids": [site], "name": "S"})).await, "/skills".into()),
        (
            "legal",
            created(&app, "/legal", json!({"site_ids": [site], "title": "L", "document_type": "imprint"})).await,
            "/legal".into(),
        ),
        (
            "social",
            created(
                &app,
                &format!("/sites/{site}/social-links"),
                json!({"platform": "github", "url": "https://github.com/x"}),
            )
            .await,
            "/social-links".into(),
        ),
        ("menu", menu, "/menus".into()),
        ("menu_item", item, "/menu-items".into()),
    ];
    for (entity_type, id, base) in &items {
        assert!(app.delete(&format!("{base}/{id}"), key).await.status().is_success(), "{entity_type} deleted");
    }
    let trash = expect_json(app.get(&format!("/sites/{site}/trash?page_size=100"), key).await, 200).await;
    assert_eq!(trash["total"], items.len(), "{trash}");
    for (entity_type, id, _) in &items {
        let res =
            app.request(Method::POST, &format!("/trash/{id}/restore?entity_type={entity_type}"), Some(key), None).await;
        assert_eq!(res.status(), 200, "{entity_type} restored: {}", res.text().await.unwrap());
    }
    let count = expect_json(app.get(&format!("/sites/{site}/trash/count"), key).await, 200).await;
    assert_eq!(count, json!({"count": 0}));
}
