//! Pages as the origin service's admin writes them: `page_type`, `template`,
//! `is_in_navigation`, `navigation_order` and a `parent_page_id` that must be
//! a live page of the same site and never below the page itself.

use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn the_origin_admin_keeps_its_page_fields_and_a_sound_page_tree() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;
    let site = app.create_site_id("origin-pages").await;
    let other = app.create_site_id("origin-pages-other").await;
    // CreatePageRequest as the admin sends it.
    let about = app
        .create(
            "/pages",
            key,
            json!({"route": "/about", "slug": "about", "page_type": "Landing", "template": "wide",
                "is_in_navigation": true, "navigation_order": 2, "status": "Draft", "site_ids": [site]}),
        )
        .await;
    let about_id = about["id"].as_str().unwrap();
    assert_eq!((about["page_type"].as_str(), about["template"].as_str()), (Some("Landing"), Some("wide")));
    assert_eq!((about["is_in_navigation"].as_bool(), about["navigation_order"].as_i64()), (Some(true), Some(2)));
    assert_eq!((about["content_id"].as_str(), about["parent_page_id"].is_null()), (Some(about_id), true));
    let team = app
        .create(
            "/pages",
            key,
            json!({"route": "/about/team", "title": "Team", "parent_page_id": about_id, "site_ids": [site]}),
        )
        .await;
    assert_eq!((team["parent_page_id"].as_str(), team["page_type"].as_str()), (Some(about_id), Some("Static")));

    // Not below itself, not a blog, not another site's page.
    let res = app.put(&format!("/pages/{about_id}"), key, json!({"parent_page_id": team["id"]})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let post = app.create("/blogs", key, json!({"site_ids": [site], "title": "Post"})).await;
    let res = app.post("/pages", key, json!({"route": "/x", "parent_page_id": post["id"], "site_ids": [site]})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let elsewhere = app.create("/pages", key, json!({"route": "/far", "site_ids": [other]})).await;
    let res =
        app.post("/pages", key, json!({"route": "/y", "parent_page_id": elsewhere["id"], "site_ids": [site]})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    // Page fields are a page's.
    let res = app.post("/blogs", key, json!({"site_ids": [site], "title": "Typed", "page_type": "Landing"})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;

    let changed: Value = app
        .put(
            &format!("/pages/{about_id}"),
            key,
            json!({"template": null, "page_type": "blog_index", "navigation_order": null}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!((changed["template"].is_null(), changed["page_type"].as_str()), (true, Some("BlogIndex")));
    assert!(changed["navigation_order"].is_null());
    let listed: Value = app.get(&format!("/sites/{site}/pages"), key).await.json().await.unwrap();
    let team_item = listed["data"].as_array().unwrap().iter().find(|p| p["id"] == team["id"]).unwrap().clone();
    assert_eq!(
        (team_item["parent_page_id"].as_str(), team_item["is_in_navigation"].as_bool()),
        (Some(about_id), Some(false))
    );
    let res = app.put(&format!("/pages/{}", team["id"].as_str().unwrap()), key, json!({"parent_page_id": null})).await;
    assert!(res.json::<Value>().await.unwrap()["parent_page_id"].is_null());
}
