use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::assert_problem;
use crate::idp::{add_member, app_with_idp, jwk, user_token, JwksServer};

#[actix_web::test]
async fn reviewers_are_notified_when_content_is_submitted() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let site = app.create_site_id("notify").await;
    for (user, role) in [("writer", "author"), ("rev", "reviewer"), ("ed", "editor"), ("reader", "read")] {
        add_member(&app, &site, user, role).await;
    }
    let (writer, rev, ed, reader) = (user_token("writer"), user_token("rev"), user_token("ed"), user_token("reader"));
    let res =
        app.bearer(Method::POST, "/blogs", &writer, Some(json!({"site_ids": [site], "title": "Please look"}))).await;
    let post: Value = res.json().await.unwrap();
    let path = format!("/blogs/{}", post["id"].as_str().unwrap());
    app.bearer(Method::PUT, &path, &writer, Some(json!({"status": "InReview"}))).await;

    for (token, expected) in [(&rev, 1), (&ed, 1), (&writer, 0), (&reader, 0)] {
        let list: Value = app.bearer(Method::GET, "/notifications", token, None).await.json().await.unwrap();
        assert_eq!(list["meta"]["total"], expected, "{list}");
        assert_eq!(list["meta"]["per_page"], 20);
    }
    let list: Value = app.bearer(Method::GET, "/notifications", &rev, None).await.json().await.unwrap();
    let notice = &list["data"][0];
    assert_eq!(
        (notice["kind"].as_str(), notice["entity_type"].as_str(), notice["is_read"].as_bool()),
        (Some("review_requested"), Some("blog"), Some(false))
    );
    assert_eq!(notice["entity_id"], post["id"]);
    assert_eq!(notice["title"], "Review requested: Please look");

    let read_path = format!("/notifications/{}/read", notice["id"].as_str().unwrap());
    assert_problem(app.bearer(Method::POST, &read_path, &ed, None).await, 403, "NOTIFICATION_ACCESS_DENIED").await;
    let read: Value = app.bearer(Method::POST, &read_path, &rev, None).await.json().await.unwrap();
    assert_eq!(read["is_read"], true);
    let unread: Value = app.bearer(Method::GET, "/notifications?unread=true", &rev, None).await.json().await.unwrap();
    assert_eq!(unread["meta"]["total"], 0);
    let all: Value = app.bearer(Method::POST, "/notifications/read-all", &ed, None).await.json().await.unwrap();
    assert_eq!(all, json!({"updated": 1}));

    // Staying in review sends nothing new.
    app.bearer(Method::PUT, &path, &writer, Some(json!({"status": "InReview"}))).await;
    let list: Value = app.bearer(Method::GET, "/notifications", &rev, None).await.json().await.unwrap();
    assert_eq!(list["meta"]["total"], 1);

    assert_problem(app.get("/notifications", &app.admin_key).await, 403, "NOTIFICATION_REQUIRES_IDP").await;
}

/// A post submitted for review on `site` by `writer`: the reviewers of the
/// site get one notification each.
async fn submit_for_review(app: &crate::helpers::TestApp, site: &str, writer: &str, title: &str) {
    let body = json!({"site_ids": [site], "title": title});
    let post: Value = app.bearer(Method::POST, "/blogs", writer, Some(body)).await.json().await.unwrap();
    let path = format!("/blogs/{}", post["id"].as_str().unwrap());
    let res = app.bearer(Method::PUT, &path, writer, Some(json!({"status": "InReview"}))).await;
    assert_eq!(res.status(), 200);
}

/// The origin service's admin reads a user's notifications per site: its
/// bell polls the unread count, its page lists them with `page_size` and
/// `sort_dir`, and it marks them read with PUT.
#[actix_web::test]
async fn the_origin_admin_reads_and_marks_a_users_notifications_per_site() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let (site, other) = (app.create_site_id("bell").await, app.create_site_id("bell-other").await);
    for site in [&site, &other] {
        add_member(&app, site, "writer", "author").await;
        add_member(&app, site, "rev", "reviewer").await;
    }
    let (writer, rev) = (user_token("writer"), user_token("rev"));
    for title in ["First", "Second", "Third"] {
        submit_for_review(&app, &site, &writer, title).await;
    }
    submit_for_review(&app, &other, &writer, "Elsewhere").await;

    let count = |site: &str| format!("/sites/{site}/notifications/unread-count");
    let unread: Value = app.bearer(Method::GET, &count(&site), &rev, None).await.json().await.unwrap();
    assert_eq!(unread, json!({"unread_count": 3}));
    let page = format!("/sites/{site}/notifications?page=1&page_size=2&sort_by=created_at&sort_dir=desc");
    let list: Value = app.bearer(Method::GET, &page, &rev, None).await.json().await.unwrap();
    assert_eq!((list["meta"]["total"].as_u64(), list["meta"]["per_page"].as_u64()), (Some(3), Some(2)), "{list}");
    let newest = &list["data"][0];
    assert_eq!(newest["title"], "Review requested: Third");
    assert_eq!(
        (newest["notification_type"].as_str(), newest["site_id"].as_str()),
        (Some("content_submitted"), Some(site.as_str()))
    );
    assert_eq!(newest["message"], newest["body"]);
    let oldest: Value = app
        .bearer(Method::GET, &format!("/sites/{site}/notifications?sort_dir=asc"), &rev, None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(oldest["data"][0]["title"], "Review requested: First", "{oldest}");

    // One read with PUT, as the admin marks it; the author may not.
    let read_path = format!("/notifications/{}/read", newest["id"].as_str().unwrap());
    assert_problem(app.bearer(Method::PUT, &read_path, &writer, None).await, 403, "NOTIFICATION_ACCESS_DENIED").await;
    let read: Value = app.bearer(Method::PUT, &read_path, &rev, None).await.json().await.unwrap();
    assert_eq!((read["is_read"].as_bool(), read["read_at"].is_string()), (Some(true), true), "{read}");
    let unread: Value = app.bearer(Method::GET, &count(&site), &rev, None).await.json().await.unwrap();
    assert_eq!(unread["unread_count"], 2);
    let unread_list: Value = app
        .bearer(Method::GET, &format!("/sites/{site}/notifications?unread=true"), &rev, None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(unread_list["meta"]["total"], 2);

    // Read-all of one site leaves the other site's unread.
    let all = format!("/sites/{site}/notifications/read-all");
    let marked: Value = app.bearer(Method::PUT, &all, &rev, None).await.json().await.unwrap();
    assert_eq!(marked, json!({"updated": 2}));
    let unread: Value = app.bearer(Method::GET, &count(&site), &rev, None).await.json().await.unwrap();
    assert_eq!(unread["unread_count"], 0);
    let elsewhere: Value = app.bearer(Method::GET, &count(&other), &rev, None).await.json().await.unwrap();
    assert_eq!(elsewhere["unread_count"], 1);
    // Reading all of them, on every site, shows in the count just read (and cached).
    let marked: Value = app.bearer(Method::POST, "/notifications/read-all", &rev, None).await.json().await.unwrap();
    assert_eq!(marked, json!({"updated": 1}));
    let elsewhere: Value = app.bearer(Method::GET, &count(&other), &rev, None).await.json().await.unwrap();
    assert_eq!(elsewhere["unread_count"], 0);

    // An API key has no notifications; a user outside the site reads none of it.
    assert_problem(app.get(&count(&site), &app.admin_key).await, 403, "NOTIFICATION_REQUIRES_IDP").await;
    let stranger = user_token("stranger");
    let res = app.bearer(Method::GET, &format!("/sites/{site}/notifications"), &stranger, None).await;
    assert!(matches!(res.status().as_u16(), 403 | 404), "a stranger gets {}", res.status());
}
