//! AI settings and content assist at the origin admin's paths, against the
//! real provider on 127.0.0.1.

use serde_json::{json, Value};

use super::{ai_site, start, API_KEY, ARTICLE};
use crate::helpers::assert_problem;

#[actix_web::test]
async fn the_origin_admin_saves_tests_and_deletes_the_ai_config() {
    let (provider, app) = start().await;
    let key = &app.admin_key;
    let site = ai_site(&app, "origin-ai").await;
    let config = format!("/sites/{site}/ai/config");
    assert_problem(app.get(&config, key).await, 404, "ENTITY_NOT_FOUND").await;

    // CreateAiConfigRequest as the admin sends it.
    let body = json!({"provider_name": "openai", "base_url": provider.base_url("v1"), "api_key": API_KEY,
        "model": "gpt-test", "temperature": 0.3, "max_tokens": 800,
        "system_prompts": {"seo": "Write like a pirate.", "excerpt": "  "}});
    let res = app.put(&config, key, body).await;
    assert_eq!(res.status(), 200);
    let saved: Value = res.json().await.unwrap();
    assert_eq!((saved["id"].as_str(), saved["provider_name"].as_str()), (Some(site.as_str()), Some("openai")));
    assert_eq!((saved["api_key_masked"].as_str(), saved["max_tokens"].as_i64()), (Some("********"), Some(800)));
    assert_eq!(saved["system_prompts"], json!({"seo": "Write like a pirate."}), "blank instructions are the defaults");
    assert!(!saved.to_string().contains(API_KEY), "the key is never answered");
    // The same settings under Plinth's names.
    let plinth: Value = app.get(&format!("/sites/{site}/ai/settings"), key).await.json().await.unwrap();
    assert_eq!((plinth["provider"].as_str(), plinth["api_key_set"].as_bool()), (Some("openai"), Some(true)));
    // A blank key keeps the stored one; an unknown action is refused.
    let res = app.put(&config, key, json!({"api_key": "", "model": "gpt-test-2"})).await;
    assert_eq!(res.json::<Value>().await.unwrap()["api_key_masked"], "********");
    let res = app.put(&config, key, json!({"system_prompts": {"poem": "…"}})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;

    // Test: one short call with the stored key.
    let res = app.post(&format!("/sites/{site}/ai/test"), key, json!({})).await;
    let tested: Value = res.json().await.unwrap();
    assert_eq!(tested["success"], true, "{tested}");
    assert_eq!(provider.last().authorization.as_deref(), Some(format!("Bearer {API_KEY}").as_str()));
    // A provider that fails is a failed test, not an error.
    app.put(&config, key, json!({"base_url": provider.base_url("broken/v1")})).await;
    let tested: Value = app.post(&format!("/sites/{site}/ai/test"), key, json!({})).await.json().await.unwrap();
    assert_eq!(tested["success"], false);
    assert!(!tested["message"].as_str().unwrap().contains(&provider.host_port), "{tested}");

    // Models of a provider, with the key sent.
    let res = app
        .post(
            &format!("/sites/{site}/ai/models"),
            key,
            json!({"base_url": provider.base_url("v1"), "api_key": "sk-other", "provider_name": "openai"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap()["models"], json!(["gpt-test", "gpt-test-vision"]));
    assert_eq!(provider.last().authorization.as_deref(), Some("Bearer sk-other"));
    let res = app.post(&format!("/sites/{site}/ai/models"), key, json!({"base_url": "http://10.0.0.1/v1"})).await;
    assert_problem(res, 400, "AI_URL_SSRF").await;

    // Delete: actions are then not configured.
    assert_eq!(app.delete(&config, key).await.status(), 204);
    assert_problem(app.get(&config, key).await, 404, "ENTITY_NOT_FOUND").await;
    let res = app.post(&format!("/sites/{site}/ai/test"), key, json!({})).await;
    assert_problem(res, 400, "AI_NOT_CONFIGURED").await;
}

#[actix_web::test]
async fn content_assist_writes_each_actions_fields_with_the_sites_instructions() {
    let (provider, app) = start().await;
    let key = &app.admin_key;
    let site = ai_site(&app, "origin-assist").await;
    let body = json!({"provider_name": "openai", "base_url": provider.base_url("v1"), "model": "gpt-test",
        "system_prompts": {"seo": "Write like a pirate."}});
    assert_eq!(app.put(&format!("/sites/{site}/ai/config"), key, body).await.status(), 200);
    let generate = format!("/sites/{site}/ai/generate");

    let seo: Value = app.post(&generate, key, json!({"action": "seo", "content": ARTICLE})).await.json().await.unwrap();
    assert_eq!(seo, json!({"meta_title": "Pages, modelled", "meta_description": "How editors model pages in Plinth."}));
    assert!(provider.last().system().starts_with("Write like a pirate."), "the site's own instructions");
    let excerpt: Value =
        app.post(&generate, key, json!({"action": "excerpt", "content": ARTICLE})).await.json().await.unwrap();
    assert_eq!(excerpt["excerpt"], "Plinth models pages for many sites.");
    let outline: Value = app
        .post(&generate, key, json!({"action": "draft_outline", "content": "modelling pages"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(outline["outline"], json!(["Sites", "Pages", "Media"]));
    let post: Value = app
        .post(&generate, key, json!({"action": "draft_post", "content": "Title\n- Sites"}))
        .await
        .json()
        .await
        .unwrap();
    assert!(post["body"].as_str().unwrap().starts_with("## Sites"));
    let translated: Value = app
        .post(&generate, key, json!({"action": "translate", "content": ARTICLE, "target_locale": "de"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(translated["title"], "[de] title");
    assert!(provider.last().system().contains("(de)"), "the target language is named");

    // Bounds and roles.
    let res = app.post(&generate, key, json!({"action": "translate", "content": ARTICLE})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    assert_eq!(
        app.post(&generate, key, json!({"action": "poem", "content": ARTICLE})).await.status().as_u16() / 100,
        4
    );
    let reader = app.create_key("Read", Some(&site)).await;
    let res = app.post(&generate, &reader, json!({"action": "seo", "content": ARTICLE})).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
}
