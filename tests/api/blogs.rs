use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};
use crate::idp::{add_member, app_with_idp, jwk, user_token, JwksServer};

#[actix_web::test]
async fn a_blog_is_created_with_a_transliterated_unique_slug_and_an_event() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("news").await;
    let mut events = app.state.events.subscribe();
    let first = app
        .create("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Grüße aus Köln!", "author": "Ann"}))
        .await;
    assert_eq!((first["slug"].as_str(), first["status"].as_str()), (Some("grusse-aus-koln"), Some("Draft")));
    assert_eq!(first["site_ids"], json!([site]));
    assert!(first["published_date"].is_null());
    let second = app.create("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Grusse aus Koln"})).await;
    let third = app.create("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "grüsse aus köln"})).await;
    assert_eq!(
        (second["slug"].as_str(), third["slug"].as_str()),
        (Some("grusse-aus-koln-2"), Some("grusse-aus-koln-3"))
    );

    let res =
        app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "x", "slug": "grusse-aus-koln"})).await;
    let body = assert_problem(res, 409, "ENTITY_SLUG_TAKEN").await;
    assert_eq!(body["entity_type"], "blog");

    let event = events.recv().await.unwrap();
    assert_eq!(event.event, "blog.created");
    assert_eq!(event.site_id.to_string(), site);
    assert_eq!(
        event.data,
        json!({"id": first["id"], "title": "Grüße aus Köln!", "slug": "grusse-aus-koln", "status": "Draft"})
    );
}

#[actix_web::test]
async fn blogs_are_read_by_id_slug_detail_and_in_pages() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("read").await;
    let reader = app.create_key("Read", Some(&site)).await;
    for i in 0..12 {
        app.create("/blogs", &app.admin_key, json!({"site_ids": [site], "title": format!("Post {i}")})).await;
    }
    let page: Value = app.get(&format!("/sites/{site}/blogs?page=2&per_page=5"), &reader).await.json().await.unwrap();
    assert_eq!(page["meta"], json!({"page": 2, "per_page": 5, "total": 12, "total_pages": 3}));
    assert_eq!(page["data"].as_array().unwrap().len(), 5);
    assert_eq!(page["data"][0]["site_ids"], json!([site]));
    let first = &page["data"][0];
    let id = first["id"].as_str().unwrap();

    let by_id: Value = app.get(&format!("/blogs/{id}"), &reader).await.json().await.unwrap();
    let by_slug: Value = app
        .get(&format!("/sites/{site}/blogs/by-slug/{}", first["slug"].as_str().unwrap()), &reader)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(by_id, by_slug);
    let detail: Value = app.get(&format!("/blogs/{id}/detail"), &reader).await.json().await.unwrap();
    assert_eq!(detail["id"], id);
    assert_eq!((detail["localizations"].clone(), detail["categories"].clone()), (json!([]), json!([])));

    assert_problem(
        app.post("/blogs", &reader, json!({"site_ids": [site], "title": "no"})).await,
        403,
        "AUTH_INSUFFICIENT_ROLE",
    )
    .await;
    let res = app.get(&format!("/blogs/{}", uuid::Uuid::new_v4()), &reader).await;
    assert_eq!(assert_problem(res, 404, "ENTITY_NOT_FOUND").await["entity_type"], "blog");
}

#[actix_web::test]
async fn blogs_of_one_site_are_invisible_and_untouchable_from_another() {
    let app = TestApp::spawn().await;
    let (a, b) = (app.create_site_id("blog-a").await, app.create_site_id("blog-b").await);
    let writer_a = app.create_key("Write", Some(&a)).await;
    let post_b = app.create("/blogs", &app.admin_key, json!({"site_ids": [b], "title": "B only"})).await;
    let id = post_b["id"].as_str().unwrap();
    assert_problem(app.get(&format!("/sites/{b}/blogs"), &writer_a).await, 403, "AUTH_API_KEY_SITE_DENIED").await;
    assert_problem(app.get(&format!("/blogs/{id}"), &writer_a).await, 403, "AUTH_API_KEY_SITE_DENIED").await;
    assert_problem(
        app.put(&format!("/blogs/{id}"), &writer_a, json!({"title": "mine now"})).await,
        403,
        "AUTH_API_KEY_SITE_DENIED",
    )
    .await;
    assert_problem(app.delete(&format!("/blogs/{id}"), &writer_a).await, 403, "AUTH_API_KEY_SITE_DENIED").await;
    assert_problem(
        app.post("/blogs", &writer_a, json!({"site_ids": [a, b], "title": "both"})).await,
        403,
        "AUTH_API_KEY_SITE_DENIED",
    )
    .await;
    let res = app.post(&format!("/sites/{a}/blogs/bulk"), &writer_a, json!({"action": "Delete", "ids": [id]})).await;
    assert_problem(res, 404, "ENTITY_NOT_FOUND").await;
    let unchanged: Value = app.get(&format!("/blogs/{id}"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(unchanged["title"], "B only");
}

#[actix_web::test]
async fn status_lifecycle_and_publish_window() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("life").await;
    let editor = app.create_key("Write", Some(&site)).await;
    let post = app.create("/blogs", &editor, json!({"site_ids": [site], "title": "Life"})).await;
    let path = format!("/blogs/{}", post["id"].as_str().unwrap());

    let mut events = app.state.events.subscribe();
    let published: Value = app.put(&path, &editor, json!({"status": "Published"})).await.json().await.unwrap();
    assert_eq!(published["status"], "Published");
    assert!(published["published_date"].is_string());
    let names: Vec<String> =
        vec![events.recv().await.unwrap().event.to_string(), events.recv().await.unwrap().event.to_string()];
    assert_eq!(names, ["blog.updated", "blog.published"]);

    let archived: Value = app.put(&path, &editor, json!({"status": "Archived"})).await.json().await.unwrap();
    assert_eq!(archived["status"], "Archived");
    assert_problem(app.put(&path, &editor, json!({"status": "Published"})).await, 400, "CONTENT_INVALID_STATUS").await;
    assert_problem(app.put(&path, &editor, json!({"status": "Bogus"})).await, 422, "VALIDATION_ERROR").await;

    let start = chrono::Utc::now() + chrono::Duration::days(2);
    let end = start - chrono::Duration::days(1);
    let res = app.put(&path, &editor, json!({"publish_start": start, "publish_end": end})).await;
    assert_problem(res, 400, "CONTENT_PUBLISH_DATE_INVALID").await;
    app.put(&path, &editor, json!({"status": "Draft"})).await;
    assert_problem(app.put(&path, &editor, json!({"status": "Scheduled"})).await, 400, "CONTENT_INVALID_STATUS").await;
    let scheduled: Value =
        app.put(&path, &editor, json!({"status": "Scheduled", "publish_start": start})).await.json().await.unwrap();
    assert_eq!(scheduled["status"], "Scheduled");
}

#[actix_web::test]
async fn the_editorial_workflow_goes_through_review() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let site = app.create_site_id("flow").await;
    app.put(&format!("/sites/{site}/settings"), &app.admin_key, json!({"editorial_workflow_enabled": true})).await;
    add_member(&app, &site, "author_1", "author").await;
    add_member(&app, &site, "reviewer_1", "reviewer").await;
    add_member(&app, &site, "reader_1", "read").await;
    let (author, reviewer, reader) = (user_token("author_1"), user_token("reviewer_1"), user_token("reader_1"));

    let res = app.bearer(Method::POST, "/blogs", &author, Some(json!({"site_ids": [site], "title": "Flow"}))).await;
    assert_eq!(res.status(), 201);
    let post: Value = res.json().await.unwrap();
    let id = post["id"].as_str().unwrap();
    let path = format!("/blogs/{id}");
    let review = format!("/blogs/{id}/review");

    // Nobody publishes past the review; reviewers only move content in review.
    let editor = app.create_key("Write", Some(&site)).await;
    assert_problem(app.put(&path, &editor, json!({"status": "Published"})).await, 403, "WORKFLOW_REVIEW_REQUIRED")
        .await;
    let res = app.bearer(Method::PUT, &path, &reviewer, Some(json!({"status": "Archived"}))).await;
    assert_problem(res, 403, "WORKFLOW_INVALID_STATUS").await;
    let res = app.bearer(Method::POST, &review, &reviewer, Some(json!({"action": "Approve"}))).await;
    assert_problem(res, 400, "CONTENT_REVIEW_INVALID_STATUS").await;

    // The author submits; a reader cannot review; the reviewer asks for changes.
    let res = app.bearer(Method::PUT, &path, &author, Some(json!({"status": "InReview"}))).await;
    assert_eq!(res.json::<Value>().await.unwrap()["status"], "InReview");
    let res = app.bearer(Method::POST, &review, &reader, Some(json!({"action": "Approve"}))).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let res = app
        .bearer(Method::POST, &review, &reviewer, Some(json!({"action": "RequestChanges", "comment": "more detail"})))
        .await;
    let changes: Value = res.json().await.unwrap();
    // The origin admin reads `{status, message}`.
    assert_eq!(
        (changes["status"].as_str(), changes["message"].as_str()),
        (Some("Draft"), Some("returned to draft for changes"))
    );

    // Resubmitted and approved: published.
    app.bearer(Method::PUT, &path, &author, Some(json!({"status": "InReview"}))).await;
    let res = app.bearer(Method::POST, &review, &reviewer, Some(json!({"action": "Approve"}))).await;
    let approved: Value = res.json().await.unwrap();
    assert_eq!((approved["status"].as_str(), approved["message"].as_str()), (Some("Published"), Some("published")));
    // Authors no longer change a published post.
    let res = app.bearer(Method::PUT, &path, &author, Some(json!({"title": "sneaky"}))).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
}

#[actix_web::test]
async fn without_the_workflow_authors_still_cannot_publish() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let site = app.create_site_id("noflow").await;
    add_member(&app, &site, "author_2", "author").await;
    let author = user_token("author_2");
    let res = app
        .bearer(
            Method::POST,
            "/blogs",
            &author,
            Some(json!({"site_ids": [site], "title": "Mine", "status": "Published"})),
        )
        .await;
    assert_problem(res, 403, "WORKFLOW_NO_PERMISSION").await;
    let theirs = app.create("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Theirs"})).await;
    let res = app
        .bearer(
            Method::PUT,
            &format!("/blogs/{}", theirs["id"].as_str().unwrap()),
            &author,
            Some(json!({"title": "x"})),
        )
        .await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
}

#[actix_web::test]
async fn a_disabled_blog_module_answers_module_not_enabled() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("nomod").await;
    let post = app.create("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Before"})).await;
    app.put(&format!("/sites/{site}/settings"), &app.admin_key, json!({"module_blog_enabled": false})).await;
    assert_problem(app.get(&format!("/sites/{site}/blogs"), &app.admin_key).await, 403, "MODULE_NOT_ENABLED").await;
    let counts = app.get(&format!("/sites/{site}/categories/blog-counts"), &app.admin_key).await;
    assert_problem(counts, 403, "MODULE_NOT_ENABLED").await;
    let res = app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "After"})).await;
    assert_problem(res, 403, "MODULE_NOT_ENABLED").await;
    let res = app.put(&format!("/blogs/{}", post["id"].as_str().unwrap()), &app.admin_key, json!({"title": "x"})).await;
    assert_problem(res, 403, "MODULE_NOT_ENABLED").await;
    for path in ["", "/detail", "/localizations"] {
        let res = app.get(&format!("/blogs/{}{path}", post["id"].as_str().unwrap()), &app.admin_key).await;
        assert_problem(res, 403, "MODULE_NOT_ENABLED").await;
    }
}

#[actix_web::test]
async fn localizations_and_the_published_locale_filter() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("i18n").await;
    let de = app.locale_id("de").await;
    let post = app
        .create("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Hello", "status": "Published"}))
        .await;
    app.create("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Other", "status": "Published"})).await;
    let id = post["id"].as_str().unwrap();
    let path = format!("/blogs/{id}/localizations");

    // German is not assigned to the site yet.
    let res = app.post(&path, &app.admin_key, json!({"locale_id": de, "title": "Hallo"})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    app.post(&format!("/sites/{site}/locales"), &app.admin_key, json!({"locale_id": de})).await;
    let res = app.post(&path, &app.admin_key, json!({"locale_id": de, "title": "Hallo", "body": "Welt"})).await;
    assert_eq!(res.status(), 201);
    let loc: Value = res.json().await.unwrap();
    let res = app.post(&path, &app.admin_key, json!({"locale_id": de, "title": "Nochmal"})).await;
    assert_eq!(assert_problem(res, 400, "ENTITY_LOCALIZATION_EXISTS").await["entity_type"], "blog");

    let all: Value = app.get(&format!("/sites/{site}/blogs/published"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(all["meta"]["total"], 2);
    let german: Value =
        app.get(&format!("/sites/{site}/blogs/published?locale_id={de}"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(german["meta"], json!({"page": 1, "per_page": 10, "total": 1, "total_pages": 1}));
    assert_eq!(german["data"][0]["id"], id);

    let loc_path = format!("/blogs/localizations/{}", loc["id"].as_str().unwrap());
    let updated: Value = app.put(&loc_path, &app.admin_key, json!({"title": "Hallo!"})).await.json().await.unwrap();
    assert_eq!((updated["title"].as_str(), updated["body"].as_str()), (Some("Hallo!"), Some("Welt")));
    let detail: Value = app.get(&format!("/blogs/{id}/detail"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(detail["localizations"][0]["title"], "Hallo!");
    assert_eq!(app.delete(&loc_path, &app.admin_key).await.status(), 204);
    assert_problem(app.delete(&loc_path, &app.admin_key).await, 404, "ENTITY_LOCALIZATION_NOT_FOUND").await;
}

#[actix_web::test]
async fn clone_bulk_and_samples() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("bulk").await;
    let post = app
        .create("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Original", "status": "Published"}))
        .await;
    let clone_path = format!("/blogs/{}/clone", post["id"].as_str().unwrap());
    let copy: Value = app.post(&clone_path, &app.admin_key, json!({})).await.json().await.unwrap();
    assert_eq!((copy["slug"].as_str(), copy["status"].as_str()), (Some("original-copy"), Some("Draft")));
    let again: Value = app.post(&clone_path, &app.admin_key, json!({})).await.json().await.unwrap();
    assert_eq!(again["slug"], "original-copy-2");

    let bulk = format!("/sites/{site}/blogs/bulk");
    let ids = json!([copy["id"], again["id"]]);
    assert_problem(
        app.post(&bulk, &app.admin_key, json!({"action": "UpdateStatus", "ids": ids})).await,
        400,
        "BLOG_BULK_STATUS_REQUIRED",
    )
    .await;
    let result: Value = app
        .post(&bulk, &app.admin_key, json!({"action": "UpdateStatus", "ids": ids, "status": "Published"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(result["affected"], 2);
    // All or nothing, in the fields the origin service's admin reads too.
    let outcomes = json!([{"id": ids[0], "success": true}, {"id": ids[1], "success": true}]);
    assert_eq!(
        (&result["total"], &result["succeeded"], &result["failed"], &result["results"]),
        (&json!(2), &json!(2), &json!(0), &outcomes)
    );
    let published: Value =
        app.get(&format!("/sites/{site}/blogs/published"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(published["meta"]["total"], 3);
    let reader = app.create_key("Read", Some(&site)).await;
    assert_problem(
        app.post(&bulk, &reader, json!({"action": "Delete", "ids": ids})).await,
        403,
        "AUTH_INSUFFICIENT_ROLE",
    )
    .await;
    let result: Value =
        app.post(&bulk, &app.admin_key, json!({"action": "Delete", "ids": ids})).await.json().await.unwrap();
    assert_eq!(result["affected"], 2);
    let all: Value = app.get(&format!("/sites/{site}/blogs"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(all["meta"]["total"], 1);

    let seed = format!("/sites/{site}/blogs/seed");
    let res = app.post(&seed, &app.admin_key, json!({})).await;
    assert_eq!(res.status(), 201);
    let samples: Vec<Value> = res.json().await.unwrap();
    assert_eq!(samples.len(), 3);
    assert!(samples.iter().all(|s| s["status"] == "Draft" && s["is_sample"] == true));
    let detail: Value = app
        .get(&format!("/blogs/{}/detail", samples[0]["id"].as_str().unwrap()), &app.admin_key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(detail["localizations"].as_array().unwrap().len(), 1, "written in the default locale");
    assert_problem(app.post(&seed, &app.admin_key, json!({})).await, 400, "BLOG_SAMPLE_EXISTS").await;
    let deleted: Value =
        app.delete(&format!("/sites/{site}/blogs/samples"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(deleted, json!({"deleted": 3}));
    assert_eq!(app.post(&seed, &app.admin_key, json!({})).await.status(), 201);
}

#[actix_web::test]
async fn deleted_blogs_leave_listings() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("del").await;
    let post = app.create("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Gone soon"})).await;
    let path = format!("/blogs/{}", post["id"].as_str().unwrap());
    let mut events = app.state.events.subscribe();
    assert_eq!(app.delete(&path, &app.admin_key).await.status(), 204);
    assert_eq!(events.recv().await.unwrap().event, "blog.deleted");
    assert_problem(app.get(&path, &app.admin_key).await, 404, "ENTITY_NOT_FOUND").await;
    let all: Value = app.get(&format!("/sites/{site}/blogs"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(all["meta"]["total"], 0);
}

#[actix_web::test]
async fn a_scheduled_post_publishes_itself_and_expires() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("sched").await;
    let start = chrono::Utc::now() + chrono::Duration::hours(1);
    let end = start + chrono::Duration::days(1);
    let post = app.create("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Later", "status": "Scheduled", "publish_start": start, "publish_end": end})).await;
    let path = format!("/blogs/{}", post["id"].as_str().unwrap());
    let mut events = app.state.events.subscribe();

    // Not yet due: nothing moves.
    app.advance_and_run_janitor(chrono::Duration::minutes(30)).await;
    assert_eq!(app.get(&path, &app.admin_key).await.json::<Value>().await.unwrap()["status"], "Scheduled");
    let listed: Value = app.get(&format!("/sites/{site}/blogs/published"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(listed["meta"]["total"], 0);

    app.advance_and_run_janitor(chrono::Duration::minutes(45)).await;
    let live: Value = app.get(&path, &app.admin_key).await.json().await.unwrap();
    assert_eq!(live["status"], "Published");
    assert!(live["published_date"].is_string());
    let names = [events.recv().await.unwrap().event, events.recv().await.unwrap().event];
    assert_eq!(names, ["blog.updated", "blog.published"]);
    let listed: Value = app.get(&format!("/sites/{site}/blogs/published"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(listed["meta"]["total"], 1);

    // Past publish_end it is archived.
    app.advance_and_run_janitor(chrono::Duration::days(2)).await;
    assert_eq!(app.get(&path, &app.admin_key).await.json::<Value>().await.unwrap()["status"], "Archived");
}

/// A bulk request names at most 500 ids: more is refused as a whole, before
/// any query, instead of binding one value per id.
#[actix_web::test]
async fn a_bulk_request_names_at_most_500_ids() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("bulk-cap").await;
    let post = app.create_post(&site, "Kept").await;
    let mut ids: Vec<String> = (0..500).map(|_| uuid::Uuid::new_v4().to_string()).collect();
    ids.push(post["id"].as_str().unwrap().to_string());
    let bulk = format!("/sites/{site}/blogs/bulk");
    let problem = assert_problem(
        app.post(&bulk, &app.admin_key, json!({"action": "Delete", "ids": ids})).await,
        422,
        "VALIDATION_ERROR",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "ids", "{problem}");
    let listed: Value = app.get(&format!("/sites/{site}/blogs"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(listed["meta"]["total"], 1, "nothing was deleted");
}

#[actix_web::test]
async fn an_approved_post_with_a_future_start_is_scheduled() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("approve-later").await;
    let start = chrono::Utc::now() + chrono::Duration::days(3);
    let post = app
        .create(
            "/blogs",
            &app.admin_key,
            json!({"site_ids": [site], "title": "Soon", "publish_start": start, "status": "InReview"}),
        )
        .await;
    let res = app
        .post(&format!("/blogs/{}/review", post["id"].as_str().unwrap()), &app.admin_key, json!({"action": "Approve"}))
        .await;
    assert_eq!(res.json::<Value>().await.unwrap()["status"], "Scheduled");
}

#[actix_web::test]
async fn the_rss_feed_lists_published_posts_and_follows_changes() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("feed").await;
    app.put(&format!("/sites/{site}"), &app.admin_key, json!({"base_url": "https://feed.example.org"})).await;
    app.create("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "First & <best>", "status": "Published", "author": "Ann", "excerpt": "one"})).await;
    app.create("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Hidden draft"})).await;

    let res = app.get(&format!("/sites/{site}/feed.rss"), &app.admin_key).await;
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-type"].to_str().unwrap().starts_with("application/rss+xml"));
    assert_eq!(res.headers()["cache-control"], "public, max-age=3600");
    let xml = res.text().await.unwrap();
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?><rss version=\"2.0\""));
    assert!(xml.contains("<title>First &amp; &lt;best&gt;</title>"), "{xml}");
    assert!(xml.contains("<link>https://feed.example.org/blog/first-best</link>"));
    assert!(!xml.contains("Hidden draft"));
    assert_eq!(xml.matches("<item>").count(), 1);

    // Publishing invalidates the cached feed at once.
    app.create("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Second", "status": "Published"})).await;
    let xml = app.get(&format!("/sites/{site}/feed.rss"), &app.admin_key).await.text().await.unwrap();
    assert_eq!(xml.matches("<item>").count(), 2);
    assert!(xml.find("Second").unwrap() < xml.find("First").unwrap(), "newest first");

    let other = app.create_site_id("feed-other").await;
    let reader = app.create_key("Read", Some(&other)).await;
    assert_problem(app.get(&format!("/sites/{site}/feed.rss"), &reader).await, 403, "AUTH_API_KEY_SITE_DENIED").await;
}

#[actix_web::test]
async fn concurrent_creates_with_one_title_take_the_next_suffix_instead_of_failing() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("race").await;
    let writers = (0..16).map(|_| {
        let body = json!({"site_ids": [site], "title": "Same title"});
        let app = &app;
        async move { app.post("/blogs", &app.admin_key, body).await }
    });
    let mut slugs = Vec::new();
    for res in futures_util::future::join_all(writers).await {
        assert_eq!(res.status(), 201, "a generated slug never answers 409");
        slugs.push(res.json::<Value>().await.unwrap()["slug"].as_str().unwrap().to_string());
    }
    slugs.sort();
    let mut expected: Vec<String> =
        std::iter::once("same-title".to_string()).chain((2..=16).map(|n| format!("same-title-{n}"))).collect();
    expected.sort();
    assert_eq!(slugs, expected);

    // An explicit slug is the caller's choice: taken answers 409.
    let res = app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "slug": "same-title"})).await;
    assert_problem(res, 409, "ENTITY_SLUG_TAKEN").await;
}

#[actix_web::test]
async fn a_blog_needs_no_title() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("untitled").await;
    for expected in ["untitled", "untitled-2"] {
        let res =
            app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "author": "Ann", "status": "Draft"})).await;
        assert_eq!(res.status(), 201);
        let blog: Value = res.json().await.unwrap();
        assert_eq!((blog["slug"].as_str(), blog["title"].as_str()), (Some(expected), Some("")));
    }
}

/// A create answers with what a read of the item returns (the answer is built
/// from what was stored, not read back).
#[actix_web::test]
async fn a_created_item_answers_exactly_as_it_reads_back() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("as-stored").await;
    let key = &app.admin_key;
    let mut ids = Vec::new();
    for (path, name) in [("categories", "Zeta"), ("categories", "Alpha"), ("tags", "rust"), ("tags", "actix")] {
        let res: Value =
            app.post(&format!("/sites/{site}/{path}"), key, json!({"name": name})).await.json().await.unwrap();
        ids.push(res["id"].as_str().unwrap().to_string());
    }
    let body = json!({"site_ids": [site], "title": "Stored", "status": "Published", "category_ids": [ids[0], ids[1]],
        "primary_category_id": ids[0], "tag_ids": [ids[3], ids[2]], "excerpt": "e", "body": "b"});
    let res = app.post("/blogs", key, body).await;
    assert_eq!(res.status(), 201);
    let created: Value = res.json().await.unwrap();
    let read: Value = app.get(&format!("/blogs/{}", created["id"].as_str().unwrap()), key).await.json().await.unwrap();
    assert_eq!(created, read);
    for page in [json!({"site_ids": [site], "title": "A page", "route": "/about/us"}), json!({"site_ids": [site]})] {
        let created: Value = app.post("/pages", key, page).await.json().await.unwrap();
        let read: Value =
            app.get(&format!("/pages/{}", created["id"].as_str().unwrap()), key).await.json().await.unwrap();
        assert_eq!(created, read);
    }
}

/// Issue 19: NUL, bidi overrides and invisible spaces were stored as sent.
/// Titles, names and labels (one line) refuse every control character, the bidi
/// overrides and isolates, ZERO WIDTH SPACE and the BOM; bodies refuse control
/// characters but tab and line breaks. ZWJ (emoji sequences) stays.
#[actix_web::test]
async fn hostile_characters_in_titles_and_texts_are_refused() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("hostile").await;
    let refused = |field: &'static str, body: Value| {
        let app = &app;
        async move {
            let problem = assert_problem(app.post("/blogs", &app.admin_key, body).await, 422, "VALIDATION_ERROR").await;
            assert_eq!(problem["errors"][0]["field"], field, "{problem}");
            assert_eq!(problem["errors"][0]["code"], "VALIDATION_INVALID_FORMAT", "{problem}");
        }
    };
    for title in
        ["Nul\u{0}byte", "evil\u{202E}gpj.exe", "in\u{2066}vis", "zero\u{200B}width", "two\nlines", "\u{1B}[31mred"]
    {
        refused("title", json!({"site_ids": [site], "title": title})).await;
    }
    refused("body", json!({"site_ids": [site], "title": "Fine", "body": "a\u{0}b"})).await;
    refused("excerpt", json!({"site_ids": [site], "title": "Fine", "excerpt": "bell\u{7}"})).await;

    for title in ["Ada \u{2764}\u{FE0F}\u{200D}\u{1F525}", "\u{645}\u{6CC}\u{200C}\u{62E}\u{648}\u{627}\u{647}\u{645}"]
    {
        let body = json!({"site_ids": [site], "title": title, "body": "line one\n\tline two\r\n"});
        let blog = app.create("/blogs", &app.admin_key, body).await;
        assert_eq!(blog["title"], title);
        assert_eq!(blog["body"], "line one\n\tline two\r\n");
    }
    let id = app.create("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Plain"})).await["id"].clone();
    let res =
        app.put(&format!("/blogs/{}", id.as_str().unwrap()), &app.admin_key, json!({"title": "a\u{202E}b"})).await;
    let problem = assert_problem(res, 422, "VALIDATION_ERROR").await;
    assert_eq!(problem["errors"][0]["field"], "title");
    // Names elsewhere follow the same rule.
    let res = app.post("/sites", &app.admin_key, json!({"name": "Site\u{0}", "slug": "nul-site"})).await;
    let problem = assert_problem(res, 422, "VALIDATION_ERROR").await;
    assert_eq!(problem["errors"][0]["field"], "name");
}
