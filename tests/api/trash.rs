use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn deleted_items_go_through_the_trash_and_back() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("bin").await;
    let blog: Value =
        app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Blog"})).await.json().await.unwrap();
    let page: Value =
        app.post("/pages", &app.admin_key, json!({"site_ids": [site], "title": "Page"})).await.json().await.unwrap();
    let (blog_id, page_id) = (blog["id"].as_str().unwrap(), page["id"].as_str().unwrap());
    app.delete(&format!("/blogs/{blog_id}"), &app.admin_key).await;
    app.delete(&format!("/pages/{page_id}"), &app.admin_key).await;

    let trash: Value = app.get(&format!("/sites/{site}/trash"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(trash["total"], 2);
    let types: Vec<&str> =
        trash["items"].as_array().unwrap().iter().map(|i| i["entity_type"].as_str().unwrap()).collect();
    assert_eq!(types, ["page", "blog"], "newest-deleted first");
    let one: Value =
        app.get(&format!("/sites/{site}/trash?page=2&page_size=1"), &app.admin_key).await.json().await.unwrap();
    assert_eq!((one["items"].as_array().unwrap().len(), one["total"].as_u64()), (1, Some(2)));
    assert_eq!(one["items"][0]["id"], blog_id);
    let count: Value = app.get(&format!("/sites/{site}/trash/count"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(count, json!({"count": 2}));

    let res = app.post(&format!("/trash/{blog_id}/restore?entity_type=page"), &app.admin_key, json!({})).await;
    assert_problem(res, 404, "ENTITY_NOT_FOUND").await;
    let res = app.post(&format!("/trash/{blog_id}/restore?entity_type=widget"), &app.admin_key, json!({})).await;
    assert_problem(res, 400, "CONTENT_UNKNOWN_ENTITY_TYPE").await;
    let res = app.post(&format!("/trash/{blog_id}/restore?entity_type=blog"), &app.admin_key, json!({})).await;
    assert_eq!(res.status(), 200);
    let listed: Value = app.get(&format!("/sites/{site}/blogs"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(listed["data"][0]["id"], blog_id, "the restored post is listed again");
    let res = app.post(&format!("/trash/{blog_id}/restore?entity_type=blog"), &app.admin_key, json!({})).await;
    assert_problem(res, 400, "TRASH_ALREADY_RESTORED").await;
    assert_problem(
        app.delete(&format!("/trash/{blog_id}?entity_type=blog"), &app.admin_key).await,
        400,
        "TRASH_NOT_DELETED",
    )
    .await;

    assert_eq!(app.delete(&format!("/trash/{page_id}?entity_type=page"), &app.admin_key).await.status(), 204);
    let count: Value = app.get(&format!("/sites/{site}/trash/count"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(count, json!({"count": 0}));
    assert_problem(
        app.post(&format!("/trash/{page_id}/restore?entity_type=page"), &app.admin_key, json!({})).await,
        404,
        "ENTITY_NOT_FOUND",
    )
    .await;
    // A freed slug can be used again.
    let again: Value =
        app.post("/pages", &app.admin_key, json!({"site_ids": [site], "title": "Page"})).await.json().await.unwrap();
    assert_eq!(again["slug"], "page");
}

#[actix_web::test]
async fn the_trash_is_for_site_admins_of_that_site() {
    let app = TestApp::spawn().await;
    let (a, b) = (app.create_site_id("bin-a").await, app.create_site_id("bin-b").await);
    let post: Value =
        app.post("/blogs", &app.admin_key, json!({"site_ids": [b], "title": "B"})).await.json().await.unwrap();
    let id = post["id"].as_str().unwrap();
    app.delete(&format!("/blogs/{id}"), &app.admin_key).await;
    let writer = app.create_key("Write", Some(&b)).await;
    let admin_a = app.create_key("Admin", Some(&a)).await;
    assert_problem(app.get(&format!("/sites/{b}/trash"), &writer).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
    assert_problem(app.get(&format!("/sites/{b}/trash"), &admin_a).await, 403, "AUTH_API_KEY_SITE_DENIED").await;
    let res = app.post(&format!("/trash/{id}/restore?entity_type=blog"), &admin_a, json!({})).await;
    assert_problem(res, 403, "AUTH_API_KEY_SITE_DENIED").await;
    let a_trash: Value = app.get(&format!("/sites/{a}/trash"), &admin_a).await.json().await.unwrap();
    assert_eq!(a_trash["total"], 0);
}

/// Issue 19: a page number near i64::MAX used to overflow the query's OFFSET
/// (a panic in the SQLite binder, the connection dropped). Every list answers
/// 200 with an empty page instead.
#[actix_web::test]
async fn a_huge_page_number_is_an_empty_page() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("far").await;
    for title in ["One", "Two"] {
        let blog: Value =
            app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": title})).await.json().await.unwrap();
        if title == "One" {
            app.delete(&format!("/blogs/{}", blog["id"].as_str().unwrap()), &app.admin_key).await;
        }
    }
    let huge = i64::MAX;
    for page in [huge.to_string(), (huge / 100 + 1).to_string(), u64::MAX.to_string()] {
        let res = app.get(&format!("/sites/{site}/trash?page={page}&page_size=100"), &app.admin_key).await;
        assert_eq!(res.status(), 200, "trash page {page}");
        let trash: Value = res.json().await.unwrap();
        assert_eq!(trash, json!({"items": [], "total": 1}), "trash page {page}");

        let res = app.get(&format!("/sites/{site}/blogs?page={page}&per_page=100"), &app.admin_key).await;
        assert_eq!(res.status(), 200, "blogs page {page}");
        let blogs: Value = res.json().await.unwrap();
        assert_eq!(blogs["data"], json!([]), "blogs page {page}");
        let page: u64 = page.parse().unwrap();
        assert_eq!(blogs["meta"], json!({"page": page, "per_page": 100, "total": 1, "total_pages": 1}));
    }
}

/// One item of every source in the trash: one total, and one list merged
/// newest-deleted first across them, each entry with its source's title and
/// slug, cut into pages that cross sources.
#[actix_web::test]
async fn every_source_is_merged_into_one_list_newest_deleted_first() {
    let app = TestApp::spawn().await;
    let site = app.create_site_with_module("all-sources", "documents").await;
    let key = &app.admin_key;
    let created = |res: reqwest::Response| async move {
        let status = res.status();
        let body: Value = res.json().await.unwrap();
        assert!(status.is_success(), "created: {status} {body}");
        body["id"].as_str().unwrap().to_string()
    };
    let blog = created(app.post("/blogs", key, json!({"site_ids": [site], "title": "Old news"})).await).await;
    let page = created(app.post("/pages", key, json!({"site_ids": [site], "title": "About us"})).await).await;
    let form = reqwest::multipart::Form::new()
        .text("site_ids", format!("[\"{site}\"]"))
        .part("file", reqwest::multipart::Part::bytes(crate::media::png(4, 4)).file_name("logo.png"));
    let upload = app.client.post(app.url("/media/upload")).header("X-API-Key", key).multipart(form).send().await;
    let media = created(upload.unwrap()).await;
    let document = json!({"document_type": "pdf", "url": "https://example.org/terms.pdf"});
    let document = created(app.post(&format!("/sites/{site}/documents"), key, document).await).await;
    let social = json!({"platform": "mastodon", "url": "https://social.example/@acme", "label": "Mastodon"});
    let social = created(app.post(&format!("/sites/{site}/social-links"), key, social).await).await;
    let menu = created(app.post(&format!("/sites/{site}/menus"), key, json!({"name": "Footer"})).await).await;
    let item = json!({"label": "Imprint", "url": "/imprint"});
    let item = created(app.post(&format!("/menus/{menu}/items"), key, item).await).await;

    // Deleted a minute apart, in this order.
    let deletions = [
        (format!("/blogs/{blog}"), "blog", &blog, "Old news", "old-news"),
        (format!("/media/{media}"), "media", &media, "logo.png", "logo.png"),
        (format!("/documents/{document}"), "document", &document, "https://example.org/terms.pdf", "pdf"),
        (format!("/social-links/{social}"), "social", &social, "Mastodon", "mastodon"),
        (format!("/menu-items/{item}"), "menu_item", &item, "Imprint", "/imprint"),
        (format!("/menus/{menu}"), "menu", &menu, "Footer", "footer"),
        (format!("/pages/{page}"), "page", &page, "About us", "about-us"),
    ];
    for (path, ..) in &deletions {
        assert_eq!(app.delete(path, key).await.status(), 204, "DELETE {path}");
        app.clock.advance(chrono::Duration::minutes(1));
    }

    let count: Value = app.get(&format!("/sites/{site}/trash/count"), key).await.json().await.unwrap();
    assert_eq!(count, json!({"count": 7}));
    let listed: Value = app.get(&format!("/sites/{site}/trash"), key).await.json().await.unwrap();
    assert_eq!(listed["total"], 7);
    let entries: Vec<(String, String, String, String)> = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let text = |field: &str| i[field].as_str().unwrap_or_default().to_string();
            (text("entity_type"), text("id"), text("title"), text("slug"))
        })
        .collect();
    let newest_first: Vec<(String, String, String, String)> = deletions
        .iter()
        .rev()
        .map(|(_, kind, id, title, slug)| (kind.to_string(), id.to_string(), title.to_string(), slug.to_string()))
        .collect();
    assert_eq!(entries, newest_first);
    let stamps: Vec<&str> =
        listed["items"].as_array().unwrap().iter().map(|i| i["deleted_at"].as_str().unwrap()).collect();
    assert!(stamps.windows(2).all(|pair| pair[0] > pair[1]), "newest-deleted first: {stamps:?}");

    // A page in the middle crosses sources: the 3rd and 4th newest.
    let page: Value = app.get(&format!("/sites/{site}/trash?page=2&page_size=2"), key).await.json().await.unwrap();
    let ids: Vec<&str> = page["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [newest_first[2].1.as_str(), newest_first[3].1.as_str()]);
    assert_eq!(page["total"], 7);
}
