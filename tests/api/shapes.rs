//! The wire shape of each family's main answers, snapshotted (`insta`,
//! `tests/api/snapshots/`): a change of a field's name, type, nesting or
//! presence shows in review as a diff of its snapshot, on both backends.
//! What differs from run to run is redacted first: ids, times, dates, secrets
//! and the local receiver's port.
//!
//! After a change meant to reshape an answer: `INSTA_UPDATE=always cargo test
//! --test api -- shapes`, then read the `.snap` diff before committing it.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::TestApp;

/// `value` with what differs between runs replaced by a placeholder.
fn redacted(value: Value) -> Value {
    match value {
        Value::String(text) => Value::String(redacted_text(&text)),
        Value::Array(items) => Value::Array(items.into_iter().map(redacted).collect()),
        Value::Object(fields) => Value::Object(fields.into_iter().map(|(k, v)| (k, redacted(v))).collect()),
        other => other,
    }
}

fn redacted_text(text: &str) -> String {
    if text.starts_with("plk_") {
        return "[api key]".into();
    }
    if text.starts_with("whsec_") {
        return "[signing secret]".into();
    }
    if chrono::DateTime::parse_from_rfc3339(text).is_ok() {
        return "[time]".into();
    }
    if chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok() {
        return "[date]".into();
    }
    let text = without_uuids(text);
    match text.split_once("127.0.0.1:") {
        Some((before, after)) => {
            let path = after.trim_start_matches(|c: char| c.is_ascii_digit());
            format!("{before}127.0.0.1:[port]{path}")
        }
        None => text,
    }
}

/// Every UUID inside `text` (an id, or an actor such as `api_key:<id>`) as `[uuid]`.
fn without_uuids(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if rest.len() >= 36 && rest.is_char_boundary(36) && uuid::Uuid::try_parse(&rest[..36]).is_ok() {
            out.push_str("[uuid]");
            rest = &rest[36..];
        } else {
            let c = rest.chars().next().unwrap_or_default();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// The JSON answer of `GET path`, which must be 200.
async fn read(app: &TestApp, path: &str) -> Value {
    let res = app.get(path, &app.admin_key).await;
    assert_eq!(res.status(), 200, "GET {path}");
    res.json().await.unwrap()
}

fn id_of(item: &Value) -> String {
    item["id"].as_str().unwrap().to_string()
}

#[actix_web::test]
async fn each_familys_answers_keep_their_shape() {
    let receiver = crate::receiver::Receiver::start();
    let allowed = receiver.host_port.clone();
    let app = TestApp::spawn_with(move |c| c.ssrf_allowlist = vec![allowed]).await;
    let site =
        app.create_site_with("shapes", json!({"module_documents_enabled": true, "module_forms_enabled": true})).await;
    let admin = app.admin_key.clone();
    let mut shapes: Vec<(&str, Value)> = Vec::new();

    shapes.push(("site", read(&app, &format!("/sites/{site}")).await));
    shapes.push(("site_settings", read(&app, &format!("/sites/{site}/settings")).await));
    let key = json!({"name": "Editors", "permission": "Write", "site_id": site});
    shapes.push(("api_key_created", app.create("/api-keys", &admin, key).await));

    let post = app.create_post(&site, "Shaped").await;
    shapes.push(("blog", read(&app, &format!("/blogs/{}", id_of(&post))).await));
    shapes.push(("blog_list", read(&app, &format!("/sites/{site}/blogs?per_page=1")).await));
    let lease = app.request(Method::POST, &format!("/blogs/{}/lease", id_of(&post)), Some(&admin), None).await;
    assert_eq!(lease.status(), 200);
    shapes.push(("lease", lease.json().await.unwrap()));
    let page = json!({"site_ids": [site], "title": "About", "route": "/about"});
    let page = app.create("/pages", &admin, page).await;
    shapes.push(("page", read(&app, &format!("/pages/{}", id_of(&page))).await));

    let file = json!({"filename": "talk.mp4", "public_url": "https://cdn.example.org/talk.mp4", "file_size": 1000,
        "site_ids": [site]});
    let file = app.create("/media", &admin, file).await;
    shapes.push(("media", read(&app, &format!("/media/{}", id_of(&file))).await));
    let form = app.create(&format!("/sites/{site}/forms"), &admin, crate::forms::contact_form("contact")).await;
    shapes.push(("form", read(&app, &format!("/forms/{}", id_of(&form))).await));
    let doc = json!({"url": "https://example.org/terms.pdf", "document_type": "pdf"});
    let doc = app.create(&format!("/sites/{site}/documents"), &admin, doc).await;
    shapes.push(("document", read(&app, &format!("/documents/{}", id_of(&doc))).await));

    let hook = json!({"url": receiver.url, "events": ["blog.created"]});
    let hook = app.create(&format!("/sites/{site}/webhooks"), &admin, hook).await;
    shapes.push(("webhook", read(&app, &format!("/webhooks/{}", id_of(&hook))).await));
    let menu = app.create(&format!("/sites/{site}/menus"), &admin, json!({"name": "Main"})).await;
    shapes.push(("menu", read(&app, &format!("/menus/{}", id_of(&menu))).await));
    let item = json!({"label": "Home", "url": "/"});
    shapes.push(("menu_item", app.create(&format!("/menus/{}/items", id_of(&menu)), &admin, item).await));
    let redirect = json!({"source_path": "/old", "destination": "/new"});
    let redirect = app.create(&format!("/sites/{site}/redirects"), &admin, redirect).await;
    shapes.push(("redirect", read(&app, &format!("/redirects/{}", id_of(&redirect))).await));
    let link = json!({"url": "https://example.org/acme", "label": "Acme"});
    shapes.push(("social_link", app.create(&format!("/sites/{site}/social-links"), &admin, link).await));

    let missing = app.get(&format!("/blogs/{}", uuid::Uuid::new_v4()), &admin).await;
    assert_eq!(missing.status(), 404);
    shapes.push(("problem_not_found", missing.json().await.unwrap()));
    let invalid = app.post("/blogs", &admin, json!({"site_ids": [site], "title": 5})).await;
    assert_eq!(invalid.status(), 422);
    shapes.push(("problem_invalid_body", invalid.json().await.unwrap()));

    for (name, shape) in shapes {
        insta::assert_json_snapshot!(name, redacted(shape));
    }
}

#[test]
fn redaction_replaces_what_differs_between_runs_and_keeps_the_rest() {
    let shape = json!({
        "id": "0b5e3a34-93a5-4d6c-8a8e-1f2d3c4b5a69",
        "author": "api_key:0b5e3a34-93a5-4d6c-8a8e-1f2d3c4b5a69",
        "created_at": "2026-12-07T21:40:00.123456Z",
        "published_date": "2026-12-07",
        "url": "http://127.0.0.1:43117/hook",
        "key": "plk_abc",
        "title": "Shaped",
        "count": 3
    });
    assert_eq!(
        redacted(shape),
        json!({
            "id": "[uuid]",
            "author": "api_key:[uuid]",
            "created_at": "[time]",
            "published_date": "[date]",
            "url": "http://127.0.0.1:[port]/hook",
            "key": "[api key]",
            "title": "Shaped",
            "count": 3
        })
    );
}
