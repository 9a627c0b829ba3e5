use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn pages_share_the_engine_and_have_routes_and_sections() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("pages").await;
    let mut events = app.state.events.subscribe();
    let res = app
        .post("/pages", &app.admin_key, json!({"site_ids": [site], "title": "Über uns", "sections": [{"section_type": "hero", "title": "Hi", "body": "…"}]}))
        .await;
    assert_eq!(res.status(), 201);
    let about: Value = res.json().await.unwrap();
    assert_eq!((about["slug"].as_str(), about["route"].as_str()), (Some("uber-uns"), Some("/uber-uns")));
    assert_eq!(about["sections"][0]["section_type"], "hero");
    assert_eq!(events.recv().await.unwrap().event, "page.created");

    let team: Value = app
        .post("/pages", &app.admin_key, json!({"site_ids": [site], "title": "Team", "route": "/about/team"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(team["route"], "/about/team");
    let res =
        app.post("/pages", &app.admin_key, json!({"site_ids": [site], "title": "Clash", "route": "/about/team"})).await;
    assert_eq!(assert_problem(res, 409, "ENTITY_SLUG_TAKEN").await["entity_type"], "page");
    let res =
        app.post("/pages", &app.admin_key, json!({"site_ids": [site], "title": "Bad", "route": "no-slash"})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let res = app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Blog", "route": "/x"})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;

    let found: Value =
        app.get(&format!("/sites/{site}/pages/by-route?route=/about/team"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(found["id"], team["id"]);
    let moved: Value = app
        .put(&format!("/pages/{}", team["id"].as_str().unwrap()), &app.admin_key, json!({"route": "/team"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(moved["route"], "/team");
    assert_problem(
        app.get(&format!("/sites/{site}/pages/by-route?route=/about/team"), &app.admin_key).await,
        404,
        "ENTITY_NOT_FOUND",
    )
    .await;

    let copy: Value = app
        .post(&format!("/pages/{}/clone", about["id"].as_str().unwrap()), &app.admin_key, json!({}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!((copy["slug"].as_str(), copy["route"].as_str()), (Some("uber-uns-copy"), Some("/uber-uns-copy")));
    // The same sections, under ids of the copy's own.
    let without_ids = |sections: &Value| {
        let mut sections = sections.clone();
        sections.as_array_mut().unwrap().iter_mut().for_each(|s| drop(s.as_object_mut().unwrap().remove("id")));
        sections
    };
    assert_eq!(without_ids(&copy["sections"]), without_ids(&about["sections"]));
    assert_ne!(copy["sections"][0]["id"], about["sections"][0]["id"]);

    // Pages and blogs have separate slug spaces and lists.
    let blog: Value = app
        .post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Über uns"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(blog["slug"], "uber-uns");
    let pages: Value = app.get(&format!("/sites/{site}/pages"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(pages["meta"]["total"], 3);
    assert_problem(
        app.get(&format!("/pages/{}", blog["id"].as_str().unwrap()), &app.admin_key).await,
        404,
        "ENTITY_NOT_FOUND",
    )
    .await;

    let res = app
        .post(
            &format!("/sites/{site}/pages/bulk"),
            &app.admin_key,
            json!({"action": "UpdateStatus", "ids": [about["id"]]}),
        )
        .await;
    assert_problem(res, 400, "PAGE_BULK_STATUS_REQUIRED").await;

    app.put(&format!("/sites/{site}/settings"), &app.admin_key, json!({"module_pages_enabled": false})).await;
    assert_problem(app.get(&format!("/sites/{site}/pages"), &app.admin_key).await, 403, "MODULE_NOT_ENABLED").await;
    assert_eq!(app.get(&format!("/sites/{site}/blogs"), &app.admin_key).await.status(), 200);
}

#[actix_web::test]
async fn page_endpoints_are_documented_like_blog_endpoints() {
    let app = TestApp::spawn().await;
    let doc: Value =
        app.client.get(format!("{}/api-docs/openapi.json", app.base)).send().await.unwrap().json().await.unwrap();
    let paths = doc["paths"].as_object().unwrap();
    for (method, path) in [
        ("get", "/api/v1/sites/{site_id}/pages"),
        ("post", "/api/v1/pages"),
        ("put", "/api/v1/pages/{id}"),
        ("post", "/api/v1/pages/{id}/review"),
        ("delete", "/api/v1/pages/localizations/{loc_id}"),
        ("get", "/api/v1/sites/{site_id}/pages/by-route"),
        ("get", "/api/v1/sites/{site_id}/blogs/featured"),
    ] {
        assert!(paths.get(path).and_then(|p| p.get(method)).is_some(), "{method} {path}");
    }
    let op = &paths["/api/v1/sites/{site_id}/pages/bulk"]["post"];
    assert_eq!((op["operationId"].as_str(), op["tags"][0].as_str()), (Some("bulk_pages"), Some("Pages")));
    assert!(op.to_string().contains("PAGE_BULK_STATUS_REQUIRED"));
}

#[actix_web::test]
async fn pages_go_through_the_editorial_workflow() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("page-flow").await;
    app.put(&format!("/sites/{site}/settings"), &app.admin_key, json!({"editorial_workflow_enabled": true})).await;
    let editor = app.create_key("Write", Some(&site)).await;
    let page: Value =
        app.post("/pages", &editor, json!({"site_ids": [site], "title": "Pricing"})).await.json().await.unwrap();
    let id = page["id"].as_str().unwrap();
    assert_problem(
        app.put(&format!("/pages/{id}"), &editor, json!({"status": "Published"})).await,
        403,
        "WORKFLOW_REVIEW_REQUIRED",
    )
    .await;
    let res = app.post(&format!("/pages/{id}/review"), &editor, json!({"action": "Approve"})).await;
    assert_problem(res, 400, "CONTENT_REVIEW_INVALID_STATUS").await;
    let submitted: Value =
        app.put(&format!("/pages/{id}"), &editor, json!({"status": "InReview"})).await.json().await.unwrap();
    assert_eq!(submitted["status"], "InReview");
    let mut events = app.state.events.subscribe();
    let approved: Value =
        app.post(&format!("/pages/{id}/review"), &editor, json!({"action": "Approve"})).await.json().await.unwrap();
    assert_eq!(approved["status"], "Published");
    assert_eq!(
        [events.recv().await.unwrap().event, events.recv().await.unwrap().event],
        ["page.updated", "page.published"]
    );
    let published: Value = app.get(&format!("/sites/{site}/pages/published"), &editor).await.json().await.unwrap();
    assert_eq!(published["data"][0]["id"], id);
}
