//! Settings: the module gate, admins only, the key sealed and never shown,
//! usage counted, the SSRF guard on the base URL.

use plinth_entities::{ai_settings, audit_log};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};

use super::{act, ai_site, configure, ready_site, start, API_KEY, ARTICLE};
use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn the_module_gate_comes_after_the_role_and_before_the_settings() {
    let (provider, app) = start().await;
    let site = app.create_site_id("plain").await;
    let writer = app.create_key("Write", Some(&site)).await;
    // A Write key acts as Editor: not enough for the settings, whatever the module.
    let res = app.get(&format!("/sites/{site}/ai/settings"), &writer).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let res = app.get(&format!("/sites/{site}/ai/settings"), &app.admin_key).await;
    assert_problem(res, 403, "MODULE_NOT_ENABLED").await;
    let res = act(&app, &site, "suggest", &writer, json!({"field": "title", "content": ARTICLE})).await;
    assert_problem(res, 403, "MODULE_NOT_ENABLED").await;

    let site = ai_site(&app, "gated").await;
    let writer = app.create_key("Write", Some(&site)).await;
    let shown: Value = app.get(&format!("/sites/{site}/ai/settings"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(shown["configured"], false);
    assert_eq!(shown["api_key_set"], false);
    assert_eq!(shown["timeout_secs"], 30);
    assert_eq!(shown["usage"], json!({"requests": 0, "total_tokens": 0}));
    for (action, body) in [
        ("suggest", json!({"field": "title", "content": ARTICLE})),
        ("translate", json!({"text": "Hello", "target_locale": "de"})),
        ("alt_text", json!({"image_url": "https://cdn.example.org/cat.jpg"})),
        ("auto_tag", json!({"image_url": "https://cdn.example.org/cat.jpg"})),
        ("section_content", json!({"section_type": "hero", "section_context": "A sailing school on the Baltic coast"})),
    ] {
        assert_problem(act(&app, &site, action, &writer, body).await, 400, "AI_NOT_CONFIGURED").await;
    }
    let res = app.put(&format!("/sites/{site}/ai/settings"), &writer, json!({"model": "x"})).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
    assert!(provider.requests().is_empty());
    provider.stop().await;
}

#[actix_web::test]
async fn the_api_key_is_sealed_never_shown_and_sent_as_a_bearer_token() {
    let (provider, app) = start().await;
    let site = ai_site(&app, "keyed").await;
    let saved = configure(&app, &site, &format!("{}/", provider.base_url("v1")), json!({"timeout_secs": 10})).await;
    assert_eq!(saved["configured"], true);
    assert_eq!(saved["api_key_set"], true);
    assert_eq!(saved["base_url"], provider.base_url("v1"), "the trailing slash is dropped");
    assert_eq!((saved["model"].as_str(), saved["vision_model"].as_str()), (Some("gpt-test"), Some("gpt-test-vision")));
    assert_eq!(saved["timeout_secs"], 10);
    assert!(saved.get("api_key").is_none() && saved.get("api_key_sealed").is_none());
    assert!(!saved.to_string().contains(API_KEY));
    let shown = app.get(&format!("/sites/{site}/ai/settings"), &app.admin_key).await.text().await.unwrap();
    assert!(!shown.contains(API_KEY) && shown.contains("\"api_key_set\":true"), "{shown}");
    let row = ai_settings::Entity::find().one(&app.state.db).await.unwrap().unwrap();
    assert!(!row.api_key_sealed.unwrap().contains(API_KEY));
    let audit =
        audit_log::Entity::find().filter(audit_log::Column::EntityType.eq("ai_settings")).all(&app.state.db).await;
    let audit = audit.unwrap();
    assert_eq!(audit.len(), 1);
    assert!(!audit[0].changes.to_string().contains(API_KEY), "{:?}", audit[0].changes);

    let res = act(&app, &site, "suggest", &app.admin_key, json!({"field": "title", "content": ARTICLE})).await;
    assert_eq!(res.status(), 200);
    let call = provider.last();
    assert_eq!(call.authorization.as_deref(), Some(format!("Bearer {API_KEY}").as_str()));
    assert_eq!(call.body["model"], "gpt-test");
    assert_eq!(call.body["temperature"], 0.2);
    assert_eq!(call.body["max_tokens"], 500);
    assert_eq!(call.body["response_format"], json!({"type": "json_object"}));
    assert_eq!(call.body["messages"][0]["role"], "system");
    assert_eq!(call.body["messages"][1]["role"], "user");
    let shown: Value = app.get(&format!("/sites/{site}/ai/settings"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(shown["usage"], json!({"requests": 1, "total_tokens": 42}));
    act(&app, &site, "suggest", &app.admin_key, json!({"field": "excerpt", "content": ARTICLE})).await;
    let shown: Value = app.get(&format!("/sites/{site}/ai/settings"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(shown["usage"], json!({"requests": 2, "total_tokens": 84}));

    // Omitted fields stay; `api_key: null` removes the key.
    let res = app.put(&format!("/sites/{site}/ai/settings"), &app.admin_key, json!({"api_key": null})).await;
    let changed: Value = res.json().await.unwrap();
    assert_eq!((changed["api_key_set"].as_bool(), changed["model"].as_str()), (Some(false), Some("gpt-test")));
    assert_eq!(changed["usage"]["requests"], 2);
    act(&app, &site, "suggest", &app.admin_key, json!({"field": "title", "content": ARTICLE})).await;
    assert_eq!(provider.last().authorization, None);
    provider.stop().await;
}

#[actix_web::test]
async fn private_base_urls_are_refused_without_the_allowlist() {
    let app = TestApp::spawn().await;
    let site = ai_site(&app, "guarded").await;
    let path = format!("/sites/{site}/ai/settings");
    for url in ["http://10.0.0.1/v1", "http://127.0.0.1:11434/v1", "http://[::1]/v1", "http://169.254.169.254/v1"] {
        let res = app.put(&path, &app.admin_key, json!({"base_url": url, "model": "m"})).await;
        assert_problem(res, 400, "AI_URL_SSRF").await;
    }
    let res = app.put(&path, &app.admin_key, json!({"base_url": "ftp://example.org/v1", "model": "m"})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let res = app.put(&path, &app.admin_key, json!({"base_url": "https://user:pw@example.org/v1", "model": "m"})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    // The first save needs a base URL and a model; bounds are checked.
    let res = app.put(&path, &app.admin_key, json!({"model": "m"})).await;
    let body = assert_problem(res, 422, "VALIDATION_ERROR").await;
    assert_eq!(body["errors"][0]["field"], "base_url");
    for bad in [
        json!({"timeout_secs": 0}),
        json!({"timeout_secs": 121}),
        json!({"temperature": 2.5}),
        json!({"max_tokens": 0}),
    ] {
        let mut body = json!({"base_url": "https://api.example.org/v1", "model": "m"});
        body.as_object_mut().unwrap().extend(bad.as_object().unwrap().clone());
        assert_problem(app.put(&path, &app.admin_key, body).await, 422, "VALIDATION_ERROR").await;
    }
    let shown: Value = app.get(&path, &app.admin_key).await.json().await.unwrap();
    assert_eq!(shown["configured"], false);
}

#[actix_web::test]
async fn a_read_key_and_a_key_of_another_site_are_refused() {
    let (provider, app) = start().await;
    let site = ready_site(&app, &provider, "mine").await;
    let other = app.create_site_id("theirs").await;
    let reader = app.create_key("Read", Some(&site)).await;
    let stranger = app.create_key("Write", Some(&other)).await;
    let body = json!({"field": "title", "content": ARTICLE});
    assert_problem(act(&app, &site, "suggest", &reader, body.clone()).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
    assert_problem(act(&app, &site, "suggest", &stranger, body.clone()).await, 403, "AUTH_API_KEY_SITE_DENIED").await;
    let res = app.get(&format!("/sites/{site}/ai/settings"), &stranger).await;
    assert_problem(res, 403, "AUTH_API_KEY_SITE_DENIED").await;
    assert!(provider.requests().is_empty());
    let writer = app.create_key("Write", Some(&site)).await;
    assert_eq!(act(&app, &site, "suggest", &writer, body).await.status(), 200);
    provider.stop().await;
}
