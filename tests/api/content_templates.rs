//! Content templates at the origin service's admin's paths: per site, unique
//! names, the origin's defaults and limits, its roles, lists by name or time
//! with search.

use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn the_origin_admin_keeps_content_templates_of_a_site() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;
    let site = app.create_site_id("templates").await;
    let path = format!("/sites/{site}/content-templates");

    // CreateContentTemplateRequest as the admin sends it (with `site_id`).
    let tutorial = app
        .create(
            &path,
            key,
            json!({"name": "Tutorial", "description": "Step-by-step guide", "icon": "School", "slug_prefix": "tutorial",
                "title": "How to [Do Something]", "body": "## Step 1", "meta_title": "Tutorial", "site_id": site}),
        )
        .await;
    assert_eq!((tutorial["site_id"].as_str(), tutorial["icon"].as_str()), (Some(site.as_str()), Some("School")));
    assert_eq!((tutorial["allow_comments"].as_bool(), tutorial["is_active"].as_bool()), (Some(true), Some(true)));
    let minimal = app.create(&path, key, json!({"name": "Announcement"})).await;
    assert_eq!((minimal["icon"].as_str(), minimal["slug_prefix"].as_str()), (Some("Article"), Some("post")));
    assert!(minimal["description"].is_null() && minimal["title"] == "" && minimal["is_featured"] == false);

    // Names are unique per site; another site may reuse one.
    assert_problem(app.post(&path, key, json!({"name": "Tutorial"})).await, 409, "CONFLICT").await;
    let other = app.create_site_id("templates-other").await;
    app.create(&format!("/sites/{other}/content-templates"), key, json!({"name": "Tutorial"})).await;
    // A site_id other than the path's, a bad prefix, a blank name: refused.
    let res = app.post(&path, key, json!({"name": "X", "site_id": other})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    assert_problem(
        app.post(&path, key, json!({"name": "Y", "slug_prefix": "Bad Prefix"})).await,
        422,
        "VALIDATION_ERROR",
    )
    .await;
    assert_problem(app.post(&path, key, json!({"name": "  "})).await, 422, "VALIDATION_ERROR").await;

    // Lists: by name, or newest first, with search.
    let names = |page: &Value| -> Vec<String> {
        page["data"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect()
    };
    let page: Value = app.get(&path, key).await.json().await.unwrap();
    assert_eq!(
        (names(&page), page["meta"]["total"].as_u64()),
        (vec!["Announcement".into(), "Tutorial".into()], Some(2))
    );
    let page: Value =
        app.get(&format!("{path}?sort_by=created_at&sort_dir=desc&page_size=1"), key).await.json().await.unwrap();
    assert_eq!((names(&page), page["meta"]["total_pages"].as_u64()), (vec!["Announcement".into()], Some(2)));
    let page: Value = app.get(&format!("{path}?search=STEP"), key).await.json().await.unwrap();
    assert_eq!(names(&page), ["Tutorial"], "the description matches, in any case");
    let page: Value = app.get(&format!("{path}?search=100%25"), key).await.json().await.unwrap();
    assert_eq!(page["meta"]["total"], 0, "% is a character, not a wildcard");
    assert_eq!(app.get(&format!("{path}?sort_by=popularity"), key).await.status().as_u16() / 100, 4);

    // Read, change, delete by id.
    let id = tutorial["id"].as_str().unwrap();
    let one: Value = app.get(&format!("/content-templates/{id}"), key).await.json().await.unwrap();
    assert_eq!(one, tutorial);
    let res = app.put(&format!("/content-templates/{id}"), key, json!({"is_active": false, "description": null})).await;
    assert_eq!(res.status(), 200);
    let changed: Value = res.json().await.unwrap();
    assert_eq!((changed["is_active"].as_bool(), changed["description"].is_null()), (Some(false), true));
    assert_eq!(changed["body"], "## Step 1", "fields not sent stay");
    let res = app.put(&format!("/content-templates/{id}"), key, json!({"name": "Announcement"})).await;
    assert_problem(res, 409, "CONFLICT").await;
    assert_eq!(app.delete(&format!("/content-templates/{id}"), key).await.status(), 204);
    assert_problem(app.get(&format!("/content-templates/{id}"), key).await, 404, "ENTITY_NOT_FOUND").await;
}

#[actix_web::test]
async fn readers_read_authors_write_and_editors_delete_templates() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("template-roles").await;
    let path = format!("/sites/{site}/content-templates");
    let template = app.create(&path, &app.admin_key, json!({"name": "Base"})).await;
    let item = format!("/content-templates/{}", template["id"].as_str().unwrap());
    let reader = app.create_key("Read", Some(&site)).await;
    assert_eq!(app.get(&item, &reader).await.status(), 200);
    // The role is checked before the body.
    assert_problem(app.post(&path, &reader, json!({"name": ""})).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
    assert_problem(app.put(&item, &reader, json!({"name": ""})).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let writer = app.create_key("Write", Some(&site)).await;
    assert_eq!(app.put(&item, &writer, json!({"title": "Hello"})).await.status(), 200);
    assert_eq!(app.delete(&item, &writer).await.status(), 204);
}
