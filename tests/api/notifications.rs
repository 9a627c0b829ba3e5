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
