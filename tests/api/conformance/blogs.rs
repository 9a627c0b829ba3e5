//! Spec "Endpoints › Blogs" and "States › Content status".

use reqwest::Method;
use serde_json::{json, Value};

use super::{assert_paginated, expect_json, expect_status, locale_id, s};
use crate::helpers::{assert_problem, TestApp};
use crate::idp::{add_member, app_with_idp, jwk, user_token, JwksServer};

async fn create(app: &TestApp, body: Value) -> Value {
    expect_json(app.post("/blogs", &app.admin_key, body).await, 201).await
}

#[actix_web::test]
async fn create_blog_with_exactly_the_spec_body() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("news").await;
    // POST /blogs body {site_ids, slug (optional), author, status}: 201; no title.
    let blog = create(&app, json!({"site_ids": [site], "author": "Ann", "status": "Draft"})).await;
    assert_eq!(
        (blog["author"].as_str(), blog["status"].as_str(), blog["site_ids"].clone()),
        (Some("Ann"), Some("Draft"), json!([site]))
    );
    assert!(!s(&blog, "slug").is_empty(), "a slug is generated: {blog}");
    assert!(blog["published_date"].is_null() && blog["created_at"].is_string(), "{blog}");
    // With the optional slug.
    let body = json!({"site_ids": [site], "slug": "hello", "author": "Ann", "status": "Draft"});
    assert_eq!(create(&app, body.clone()).await["slug"], "hello");
    let taken = assert_problem(app.post("/blogs", &app.admin_key, body).await, 409, "ENTITY_SLUG_TAKEN").await;
    assert_eq!(taken["entity_type"], "blog");
}

#[actix_web::test]
async fn blog_read_rows() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;
    let site = app.create_site_id("read").await;
    let reader = app.create_key("Read", Some(&site)).await;
    let first =
        create(&app, json!({"site_ids": [site], "slug": "first", "author": "Ann", "status": "Published"})).await;
    let second =
        create(&app, json!({"site_ids": [site], "slug": "second", "author": "Ann", "status": "Published"})).await;
    create(&app, json!({"site_ids": [site], "slug": "draft", "author": "Bo", "status": "Draft"})).await;
    let (first_id, second_id) = (s(&first, "id"), s(&second, "id"));

    // GET /sites/{site_id}/blogs?page&per_page: paginated.
    let page = expect_json(app.get(&format!("/sites/{site}/blogs?page=2&per_page=2"), &reader).await, 200).await;
    assert_paginated(&page, 2, 2, 3);
    assert_paginated(&expect_json(app.get(&format!("/sites/{site}/blogs"), &reader).await, 200).await, 1, 10, 3);
    let beyond = expect_json(app.get(&format!("/sites/{site}/blogs?page=5&per_page=2"), &reader).await, 200).await;
    assert_eq!(assert_paginated(&beyond, 5, 2, 3), Vec::<Value>::new(), "a page beyond total_pages is empty");

    // GET …/blogs/published?page&per_page&locale_id: locale_id recomputes total/total_pages.
    let published =
        expect_json(app.get(&format!("/sites/{site}/blogs/published?page=1&per_page=1"), &reader).await, 200).await;
    assert_paginated(&published, 1, 1, 2);
    let de = locale_id(&app, "de").await;
    expect_json(
        app.post(
            &format!("/sites/{site}/locales"),
            key,
            json!({"locale_id": de, "is_default": false, "url_prefix": "de"}),
        )
        .await,
        201,
    )
    .await;
    let loc_body = json!({"locale_id": de, "title": "Erster"});
    let loc =
        expect_json(app.post(&format!("/blogs/{first_id}/localizations"), key, loc_body.clone()).await, 201).await;
    let german =
        expect_json(app.get(&format!("/sites/{site}/blogs/published?locale_id={de}"), &reader).await, 200).await;
    let data = assert_paginated(&german, 1, 10, 1);
    assert_eq!(data[0]["id"], first_id.as_str());

    // GET …/blogs/featured?limit: limit instead of page.
    app.put(&format!("/blogs/{first_id}"), key, json!({"is_featured": true})).await;
    let featured = expect_json(app.get(&format!("/sites/{site}/blogs/featured?limit=5"), &reader).await, 200).await;
    let ids: Vec<&str> = featured.as_array().unwrap().iter().map(|b| b["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [first_id.as_str()]);
    // A limit is the document's int64 of 0 or more; larger ones are clamped.
    for (limit, status) in [("-1", 400), ("9223372036854775808", 400), ("9223372036854775807", 200)] {
        let res = app.get(&format!("/sites/{site}/blogs/featured?limit={limit}"), &reader).await;
        assert_eq!(res.status(), status, "limit={limit}");
    }

    // GET …/blogs/{id}/similar?limit: array of BlogListItem (same author scores +1).
    let similar =
        expect_json(app.get(&format!("/sites/{site}/blogs/{first_id}/similar?limit=3"), &reader).await, 200).await;
    let ids: Vec<&str> = similar.as_array().unwrap().iter().map(|b| b["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [second_id.as_str()], "only published posts scoring above 0");

    // GET …/by-slug/{slug}, GET /blogs/{id}, GET /blogs/{id}/detail.
    let by_slug = expect_json(app.get(&format!("/sites/{site}/blogs/by-slug/first"), &reader).await, 200).await;
    let by_id = expect_json(app.get(&format!("/blogs/{first_id}"), &reader).await, 200).await;
    assert_eq!(by_slug["id"], by_id["id"]);
    assert_eq!((by_id["slug"].as_str(), by_id["author"].as_str()), (Some("first"), Some("Ann")));
    let detail = expect_json(app.get(&format!("/blogs/{first_id}/detail"), &reader).await, 200).await;
    assert_eq!(detail["localizations"][0]["title"], "Erster");
    assert!(detail["categories"].is_array(), "{detail}");
    let res = app.get(&format!("/blogs/{}", uuid::Uuid::new_v4()), &reader).await;
    assert_eq!(assert_problem(res, 404, "ENTITY_NOT_FOUND").await["entity_type"], "blog");

    // Localizations: GET list, POST (exists → 400), PUT, DELETE (gone → 404).
    let list = expect_json(app.get(&format!("/blogs/{first_id}/localizations"), &reader).await, 200).await;
    assert_eq!(list.as_array().unwrap().len(), 1);
    let res = app.post(&format!("/blogs/{first_id}/localizations"), key, loc_body).await;
    assert_eq!(assert_problem(res, 400, "ENTITY_LOCALIZATION_EXISTS").await["entity_type"], "blog");
    let loc_path = format!("/blogs/localizations/{}", s(&loc, "id"));
    let changed = expect_json(app.put(&loc_path, key, json!({"title": "Erstens"})).await, 200).await;
    assert_eq!(changed["title"], "Erstens");
    assert!(app.delete(&loc_path, key).await.status().is_success());
    assert_problem(app.delete(&loc_path, key).await, 404, "ENTITY_LOCALIZATION_NOT_FOUND").await;

    // The section's 403: a Read key cannot create.
    let body = json!({"site_ids": [site], "author": "Ann", "status": "Draft"});
    assert_problem(app.post("/blogs", &reader, body).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
}

#[actix_web::test]
async fn blog_write_rows_feed_bulk_and_samples() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;
    let site = app.create_site_id("write").await;
    app.put(&format!("/sites/{site}"), key, json!({"base_url": "https://write.example"})).await;
    let blog = create(&app, json!({"site_ids": [site], "slug": "post", "author": "Ann", "status": "Draft"})).await;
    let id = s(&blog, "id");

    // PUT /blogs/{id}.
    let updated =
        expect_json(app.put(&format!("/blogs/{id}"), key, json!({"title": "Post", "status": "Published"})).await, 200)
            .await;
    assert_eq!((updated["title"].as_str(), updated["status"].as_str()), (Some("Post"), Some("Published")));
    assert!(updated["published_date"].is_string());

    // POST /blogs/{id}/clone: new Draft copy (no body).
    let res = app.request(Method::POST, &format!("/blogs/{id}/clone"), Some(key), None).await;
    let copy = expect_json(res, 201).await;
    assert_eq!(copy["status"], "Draft");
    assert_ne!(copy["id"], blog["id"]);
    assert_ne!(copy["slug"], "post");

    // GET /sites/{site_id}/feed.rss: RSS 2.0, application/rss+xml.
    let res = app.get(&format!("/sites/{site}/feed.rss"), key).await;
    expect_status(&res, 200);
    assert!(res.headers()["content-type"].to_str().unwrap().starts_with("application/rss+xml"));
    let xml = res.text().await.unwrap();
    assert!(xml.contains("<rss version=\"2.0\"") && xml.matches("<item>").count() == 1, "{xml}");

    // POST …/blogs/bulk body {action, ids, status}.
    let bulk = format!("/sites/{site}/blogs/bulk");
    let ids = json!([copy["id"]]);
    let res = app.post(&bulk, key, json!({"action": "UpdateStatus", "ids": ids})).await;
    assert_problem(res, 400, "BLOG_BULK_STATUS_REQUIRED").await;
    let res = app.post(&bulk, key, json!({"action": "UpdateStatus", "ids": ids, "status": "Published"})).await;
    expect_status(&res, 200);
    let copy_now = expect_json(app.get(&format!("/blogs/{}", s(&copy, "id")), key).await, 200).await;
    assert_eq!(copy_now["status"], "Published");
    let res = app.post(&bulk, key, json!({"action": "Delete", "ids": ids})).await;
    expect_status(&res, 200);
    assert_problem(app.get(&format!("/blogs/{}", s(&copy, "id")), key).await, 404, "ENTITY_NOT_FOUND").await;

    // DELETE /blogs/{id}: soft delete (gone from reads, kept in the trash).
    assert!(app.delete(&format!("/blogs/{id}"), key).await.status().is_success());
    assert_problem(app.get(&format!("/blogs/{id}"), key).await, 404, "ENTITY_NOT_FOUND").await;
    let trash = expect_json(app.get(&format!("/sites/{site}/trash/count"), key).await, 200).await;
    assert_eq!(trash["count"], 2);

    // POST …/blogs/seed: 201 array of 3 sample Draft blogs; 400 BLOG_SAMPLE_EXISTS.
    let seed = format!("/sites/{site}/blogs/seed");
    let samples = expect_json(app.request(Method::POST, &seed, Some(key), None).await, 201).await;
    let samples = samples.as_array().unwrap();
    assert_eq!(samples.len(), 3);
    assert!(samples.iter().all(|b| b["status"] == "Draft"), "{samples:?}");
    let res = app.request(Method::POST, &seed, Some(key), None).await;
    assert_problem(res, 400, "BLOG_SAMPLE_EXISTS").await;

    // DELETE …/blogs/samples: 200 {deleted}.
    let deleted = expect_json(app.delete(&format!("/sites/{site}/blogs/samples"), key).await, 200).await;
    assert_eq!(deleted, json!({"deleted": 3}));

    // Content status table: bulk UpdateStatus without status, PAGE_ and PROJECT_ variants.
    app.put(&format!("/sites/{site}/settings"), key, json!({"module_portfolio_enabled": true})).await;
    let page = expect_json(app.post("/pages", key, json!({"site_ids": [site], "title": "Page"})).await, 201).await;
    let project =
        expect_json(app.post("/projects", key, json!({"site_ids": [site], "title": "Project"})).await, 201).await;
    for (plural, item, code) in
        [("pages", &page, "PAGE_BULK_STATUS_REQUIRED"), ("projects", &project, "PROJECT_BULK_STATUS_REQUIRED")]
    {
        let body = json!({"action": "UpdateStatus", "ids": [item["id"]]});
        assert_problem(app.post(&format!("/sites/{site}/{plural}/bulk"), key, body).await, 400, code).await;
    }
}

#[actix_web::test]
async fn blog_detail_lists_attached_documents() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("detail").await;
    let blog = create(&app, json!({"site_ids": [site], "author": "Ann", "status": "Draft"})).await;
    let detail = expect_json(app.get(&format!("/blogs/{}/detail", s(&blog, "id")), &app.admin_key).await, 200).await;
    assert!(detail["localizations"].is_array() && detail["categories"].is_array(), "{detail}");
    assert_eq!(detail["documents"], json!([]), "blog with localizations, categories, documents: {detail}");
}

#[actix_web::test]
async fn review_and_editorial_workflow_transitions() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let site = app.create_site_id("flow").await;
    app.put(&format!("/sites/{site}/settings"), &app.admin_key, json!({"editorial_workflow_enabled": true})).await;
    add_member(&app, &site, "author_1", "author").await;
    add_member(&app, &site, "reviewer_1", "reviewer").await;
    let (author, reviewer) = (user_token("author_1"), user_token("reviewer_1"));
    let body = json!({"site_ids": [site], "author": "Ann", "status": "Draft"});
    let blog = expect_json(app.bearer(Method::POST, "/blogs", &author, Some(body)).await, 201).await;
    let path = format!("/blogs/{}", s(&blog, "id"));
    let review = format!("{path}/review");
    let approve = Some(json!({"action": "Approve"}));

    // any --review--> unchanged while not InReview: CONTENT_REVIEW_INVALID_STATUS.
    let res = app.bearer(Method::POST, &review, &reviewer, approve.clone()).await;
    assert_problem(res, 400, "CONTENT_REVIEW_INVALID_STATUS").await;
    // Workflow on: publishing without review; reviewers move only InReview content.
    let res = app.put(&path, &app.admin_key, json!({"status": "Published"})).await;
    assert_problem(res, 403, "WORKFLOW_REVIEW_REQUIRED").await;
    let res = app.bearer(Method::PUT, &path, &reviewer, Some(json!({"status": "Archived"}))).await;
    assert_problem(res, 403, "WORKFLOW_INVALID_STATUS").await;

    // Draft --submit--> InReview; an author may not publish it: WORKFLOW_NO_PERMISSION.
    let res = app.bearer(Method::PUT, &path, &author, Some(json!({"status": "InReview"}))).await;
    assert_eq!(expect_json(res, 200).await["status"], "InReview");
    let res = app.bearer(Method::PUT, &path, &author, Some(json!({"status": "Published"}))).await;
    assert_problem(res, 403, "WORKFLOW_NO_PERMISSION").await;

    // InReview --request changes--> Draft (action RequestChanges).
    let res = app.bearer(Method::POST, &review, &reviewer, Some(json!({"action": "RequestChanges"}))).await;
    assert_eq!(expect_json(res, 200).await["status"], "Draft");

    // InReview --POST /blogs/{id}/review {action: Approve}--> Published.
    app.bearer(Method::PUT, &path, &author, Some(json!({"status": "InReview"}))).await;
    let approved = expect_json(app.bearer(Method::POST, &review, &reviewer, approve).await, 200).await;
    assert_eq!(approved["status"], "Published");
}

#[actix_web::test]
async fn clone_exhaustion_gives_the_generation_failed_codes() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;
    let site = app.create_site_id("copies").await;

    // Blog slugs: `orig-copy`, `orig-copy-2` … `orig-copy-100` all taken.
    let orig = create(&app, json!({"site_ids": [site], "slug": "orig", "author": "Ann", "status": "Draft"})).await;
    for n in 1..=100 {
        let slug = if n == 1 { "orig-copy".to_string() } else { format!("orig-copy-{n}") };
        create(&app, json!({"site_ids": [site], "slug": slug, "author": "Ann", "status": "Draft"})).await;
    }
    let res = app.request(Method::POST, &format!("/blogs/{}/clone", s(&orig, "id")), Some(key), None).await;
    assert_problem(res, 400, "CONTENT_SLUG_GENERATION_FAILED").await;

    // Page routes: `/r-copy` … `/r-copy-100` all taken (slugs free).
    let page =
        expect_json(app.post("/pages", key, json!({"site_ids": [site], "title": "R", "route": "/r"})).await, 201).await;
    for n in 1..=100 {
        let route = if n == 1 { "/r-copy".to_string() } else { format!("/r-copy-{n}") };
        let body = json!({"site_ids": [site], "title": format!("Taken {n}"), "route": route});
        expect_json(app.post("/pages", key, body).await, 201).await;
    }
    let res = app.request(Method::POST, &format!("/pages/{}/clone", s(&page, "id")), Some(key), None).await;
    assert_problem(res, 400, "CONTENT_ROUTE_GENERATION_FAILED").await;
}
