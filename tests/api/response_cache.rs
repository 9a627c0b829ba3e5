//! Authenticated reads are answered from built responses, with ETags and 304s,
//! yet no stale answer survives a write: each test warms the cache first.

use reqwest::header::{ETAG, IF_NONE_MATCH};
use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};
use crate::receiver::Receiver;

/// Reads `path` twice (the second from the cache when it is on) and returns the body.
async fn warm(app: &TestApp, path: &str, key: &str) -> String {
    let first = app.get(path, key).await;
    assert_eq!(first.status(), 200, "{path}");
    let first = first.text().await.unwrap();
    let second = app.get(path, key).await.text().await.unwrap();
    assert_eq!(first, second, "{path}: two reads without a write differ");
    second
}

async fn id_of(res: reqwest::Response) -> String {
    assert!(res.status().is_success(), "{}", res.status());
    res.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string()
}

/// For every family an admin UI polls: a warm read, then a write by another
/// caller, then the same read shows the write.
#[actix_web::test]
async fn every_family_shows_a_write_on_the_next_read() {
    let receiver = Receiver::start();
    let allowed = receiver.host_port.clone();
    let app = TestApp::spawn_with(move |c| c.ssrf_allowlist = vec![allowed]).await;
    let site = app.create_site_id("polled").await;
    let reader = app.create_key("Admin", Some(&site)).await;
    let writer = &app.admin_key;
    let locales: Vec<Value> = app.get("/locales", writer).await.json().await.unwrap();
    let de = locales.iter().find(|l| l["code"] == "de").unwrap()["id"].as_str().unwrap().to_string();
    // The site's default locale (`de` is assigned by a row below).
    let en = locales.iter().find(|l| l["code"] == "en").unwrap()["id"].as_str().unwrap().to_string();
    let blog = id_of(app.post("/blogs", writer, json!({"site_ids": [site], "title": "First"})).await).await;
    let link = json!({"platform": "github", "url": "https://github.com/ann"});
    let link = id_of(app.post(&format!("/sites/{site}/social-links"), writer, link).await).await;
    let menu = id_of(app.post(&format!("/sites/{site}/menus"), writer, json!({"slug": "main"})).await).await;
    let hook = json!({"url": receiver.url, "events": ["blog.updated"]});
    let hook = id_of(app.post(&format!("/sites/{site}/webhooks"), writer, hook).await).await;
    let topic = id_of(app.post(&format!("/sites/{site}/categories"), writer, json!({"name": "Topic"})).await).await;
    let page = json!({"site_ids": [site], "title": "Home", "route": "/home"});
    let page = id_of(app.post("/pages", writer, page).await).await;
    app.put(&format!("/sites/{site}/settings"), writer, json!({"module_legal_enabled": true})).await;
    let legal = json!({"site_ids": [site], "cookie_name": "Cookies", "document_type": "CookieConsent"});
    let legal = id_of(app.post(&format!("/sites/{site}/legal"), writer, legal).await).await;

    let s = |path: &str| format!("/sites/{site}{path}");
    let rows: Vec<(String, Method, String, Value)> = vec![
        (s("/blogs"), Method::POST, "/blogs".into(), json!({"site_ids": [site], "title": "Second"})),
        (format!("/blogs/{blog}"), Method::PUT, format!("/blogs/{blog}"), json!({"title": "Renamed"})),
        (s("/categories"), Method::POST, s("/categories"), json!({"name": "Travel"})),
        (s("/tags"), Method::POST, s("/tags"), json!({"name": "rust"})),
        (s("/tags"), Method::POST, "/tags".into(), json!({"slug": "web", "is_global": false, "site_id": site})),
        (
            s("/categories/blog-counts"),
            Method::POST,
            format!("/content/{blog}/categories"),
            json!({"category_id": topic, "is_primary": true}),
        ),
        (s("/menus"), Method::PUT, format!("/menus/{menu}"), json!({"name": "Main menu"})),
        (
            format!("/menus/{menu}"),
            Method::POST,
            format!("/menus/{menu}/items"),
            json!({"external_url": "https://example.org", "localizations": [{"locale_id": en, "title": "Home"}]}),
        ),
        (s("/social-links"), Method::PUT, format!("/social-links/{link}"), json!({"label": "Code"})),
        (
            format!("/menus/{menu}/tree"),
            Method::POST,
            s("/navigation"),
            json!({"menu_id": menu, "external_url": "https://example.org/docs", "open_in_new_tab": true}),
        ),
        (s("/social"), Method::POST, s("/social/reorder"), json!({"items": [{"id": link, "display_order": 7}]})),
        (s("/redirects"), Method::POST, s("/redirects"), json!({"source_path": "/old", "destination_path": "/new"})),
        (s("/webhooks"), Method::PUT, format!("/webhooks/{hook}"), json!({"description": "CI"})),
        (s("/members"), Method::POST, s("/members"), json!({"idp_user_id": "bob", "role": "editor"})),
        (s("/settings"), Method::PUT, s("/settings"), json!({"maintenance_mode": true})),
        (s("/locales"), Method::POST, s("/locales"), json!({"locale_id": de})),
        (s(""), Method::PUT, s(""), json!({"description": "Changed"})),
        (
            s("/environments"),
            Method::POST,
            s("/environments"),
            json!({"name": "qa", "base_url": "https://qa.example.org"}),
        ),
        (s("/trash"), Method::DELETE, format!("/social-links/{link}"), Value::Null),
        // The origin admin's parts of an item, one by one.
        (
            format!("/pages/{page}/sections"),
            Method::POST,
            format!("/pages/{page}/sections"),
            json!({"section_type": "Hero"}),
        ),
        (
            format!("/legal/{legal}/groups"),
            Method::POST,
            format!("/legal/{legal}/groups"),
            json!({"cookie_name": "stats"}),
        ),
        (s("/legal/cookie-consent"), Method::POST, format!("/legal/{legal}/groups"), json!({"cookie_name": "ads"})),
        (s("/content-templates"), Method::POST, s("/content-templates"), json!({"name": "Recipe"})),
        ("/environments".into(), Method::POST, s("/environments"), json!({"name": "preview"})),
    ];
    for (read, method, write, body) in rows {
        let before = warm(&app, &read, &reader).await;
        let body = (!body.is_null()).then_some(body);
        let res = app.request(method.clone(), &write, Some(writer), body).await;
        assert!(res.status().is_success(), "{method} {write}: {}", res.status());
        let after = app.get(&read, &reader).await.text().await.unwrap();
        assert_ne!(before, after, "{read} still answers as before {method} {write}");
    }
    app.settle().await;
}

#[actix_web::test]
async fn a_conditional_read_is_answered_304_until_the_site_is_written() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("etags").await;
    let key = &app.admin_key;
    let list = format!("/sites/{site}/blogs");
    app.post("/blogs", key, json!({"site_ids": [site], "title": "One"})).await;

    let res = app.get(&list, key).await;
    let etag = res.headers().get(ETAG).expect("an ETag on a list").to_str().unwrap().to_string();
    assert_eq!(res.headers()["cache-control"], "private, no-cache");
    let conditional = |tag: String| {
        app.client.get(app.url(&list)).header("x-api-key", key.as_str()).header(IF_NONE_MATCH, tag).send()
    };
    for _ in 0..2 {
        let res = conditional(etag.clone()).await.unwrap();
        assert_eq!(res.status(), 304);
        assert_eq!(res.headers()[ETAG], etag.as_str());
        assert!(res.text().await.unwrap().is_empty());
    }

    app.post("/blogs", key, json!({"site_ids": [site], "title": "Two"})).await;
    let res = conditional(etag.clone()).await.unwrap();
    assert_eq!(res.status(), 200, "the list changed");
    assert_ne!(res.headers()[ETAG], etag.as_str());
    assert_eq!(res.json::<Value>().await.unwrap()["data"].as_array().map(Vec::len), Some(2));
}

#[actix_web::test]
async fn a_write_to_one_site_leaves_another_sites_answers_cached_and_callers_apart() {
    let app = TestApp::spawn().await;
    let (a, b) = (app.create_site_id("tenant-a").await, app.create_site_id("tenant-b").await);
    let key = &app.admin_key;
    app.post("/blogs", key, json!({"site_ids": [a], "title": "Only in a"})).await;
    let reader_a = app.create_key("Read", Some(&a)).await;
    let reader_b = app.create_key("Read", Some(&b)).await;
    let list_a = format!("/sites/{a}/blogs");
    warm(&app, &list_a, &reader_a).await;
    // The same URL for another site's key: refused, not served from a's entry.
    assert_problem(app.get(&list_a, &reader_b).await, 403, "AUTH_API_KEY_SITE_DENIED").await;
    let held = app.state.responses.weight();
    app.post("/blogs", key, json!({"site_ids": [b], "title": "Only in b"})).await;
    let res = app.get(&list_a, &reader_a).await;
    assert_eq!(res.json::<Value>().await.unwrap()["data"].as_array().map(Vec::len), Some(1));
    assert!(held > 0 && app.state.responses.weight() >= held, "a's entry stays");
}

#[actix_web::test]
async fn a_revoked_key_is_refused_though_its_answer_is_cached() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("revoked").await;
    let res = app.post("/api-keys", &app.admin_key, json!({"name": "reader", "site_id": site})).await;
    let created: Value = res.json().await.unwrap();
    let secret = created["key"].as_str().or(created["secret"].as_str()).unwrap().to_string();
    let path = format!("/sites/{site}/blogs");
    warm(&app, &path, &secret).await;
    let res = app.delete(&format!("/api-keys/{}", created["id"].as_str().unwrap()), &app.admin_key).await;
    assert!(res.status().is_success());
    assert_problem(app.get(&path, &secret).await, 401, "AUTH_API_KEY_INVALID").await;
}

#[actix_web::test]
async fn a_webhook_attempt_in_the_background_shows_in_the_delivery_list() {
    let receiver = Receiver::start();
    let allowed = receiver.host_port.clone();
    let app = TestApp::spawn_with(move |c| c.ssrf_allowlist = vec![allowed]).await;
    let site = app.create_site_id("deliveries").await;
    let key = &app.admin_key;
    let hook = json!({"url": receiver.url, "events": ["blog.created"]});
    let hook = id_of(app.post(&format!("/sites/{site}/webhooks"), key, hook).await).await;
    let deliveries = format!("/webhooks/{hook}/deliveries");
    let empty = warm(&app, &deliveries, key).await;
    app.post("/blogs", key, json!({"site_ids": [site], "title": "Announced"})).await;
    app.wait_for_logged_attempts(&hook, "blog.created", 1).await;
    let listed: Value = app.get(&deliveries, key).await.json().await.unwrap();
    assert_ne!(listed.to_string(), empty);
    assert_eq!(listed["data"][0]["success"], true, "{listed}");
    app.settle().await;
}

#[actix_web::test]
async fn with_the_cache_off_reads_still_carry_etags() {
    let app = TestApp::spawn_with(|c| c.sites.response_cache_bytes = 0).await;
    let site = app.create_site_id("uncached").await;
    let path = format!("/sites/{site}");
    let res = app.get(&path, &app.admin_key).await;
    let etag = res.headers()[ETAG].clone();
    let res = app
        .client
        .get(app.url(&path))
        .header("x-api-key", app.admin_key.as_str())
        .header(IF_NONE_MATCH, etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 304);
    assert_eq!(app.state.responses.weight(), 0);
}
