//! Each action's answer, and the request errors each one has.

use serde_json::{json, Value};

use super::{act, ready_site, start, ARTICLE};
use crate::helpers::assert_problem;

#[actix_web::test]
async fn suggest_answers_suggestions_from_enough_content() {
    let (provider, app) = start().await;
    let site = ready_site(&app, &provider, "suggest").await;
    let key = app.create_key("Write", Some(&site)).await;
    let res =
        act(&app, &site, "suggest", &key, json!({"field": "meta_title", "content": ARTICLE, "locale": "de"})).await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    // The fenced answer is read; duplicates (any case) are dropped.
    assert_eq!(body, json!({"field": "meta_title", "suggestions": ["First idea", "Second idea"]}));
    let call = provider.last();
    assert!(call.system().contains(r#"{"suggestions": ["…"]}"#), "{}", call.system());
    assert!(call.system().contains("Deutsch") || call.system().contains("German") || call.system().contains("(de)"));
    assert_eq!(call.user(), &json!(ARTICLE));

    let res = act(&app, &site, "suggest", &key, json!({"field": "slug", "content": ARTICLE})).await;
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["suggestions"], json!(["first-idea", "second-idea"]));

    let short = "  A short note about sailing.  ".trim();
    assert!(short.chars().count() < 50);
    let res = act(&app, &site, "suggest", &key, json!({"field": "title", "content": format!("   {short}   ")})).await;
    assert_problem(res, 400, "AI_CONTEXT_INSUFFICIENT").await;
    assert_problem(act(&app, &site, "suggest", &key, json!({"field": "title"})).await, 400, "AI_CONTEXT_INSUFFICIENT")
        .await;
    let res = act(&app, &site, "suggest", &key, json!({"field": "headline", "content": ARTICLE})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let res = act(&app, &site, "suggest", &key, json!({"field": "title", "content": "x".repeat(50_001)})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let res = act(&app, &site, "suggest", &key, json!({"field": "title", "content": ARTICLE, "locale": "xx"})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    assert_eq!(provider.requests().len(), 2, "refused requests never reach the provider");
    provider.stop().await;
}

#[actix_web::test]
async fn translate_answers_the_text_in_the_target_locale() {
    let (provider, app) = start().await;
    let site = ready_site(&app, &provider, "translate").await;
    let key = app.create_key("Write", Some(&site)).await;
    let res = act(
        &app,
        &site,
        "translate",
        &key,
        json!({"text": "Hello world", "source_locale": "en", "target_locale": "DE"}),
    )
    .await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body, json!({"target_locale": "de", "translations": {"text": "[de] Hello world"}}));
    let call = provider.last();
    assert!(call.system().contains(r#"{"translations""#));
    assert_eq!(call.user(), &json!(r#"{"text":"Hello world"}"#));

    for (body, why) in [
        (json!({"text": "Hello", "target_locale": "tlh"}), "unknown target"),
        (json!({"text": "Hello", "target_locale": ""}), "empty target"),
        (json!({"text": "Hello"}), "no target"),
        (json!({"text": "Hello", "source_locale": "xx", "target_locale": "de"}), "unknown source"),
        (json!({"text": "Hello", "source_locale": "de", "target_locale": "de"}), "same locales"),
        (json!({"text": "   ", "target_locale": "de"}), "empty text"),
        (json!({"target_locale": "de"}), "nothing to translate"),
        (json!({"text": "Hello", "target_locale": "de", "save": true}), "save without an item"),
    ] {
        let res = act(&app, &site, "translate", &key, body).await;
        let status = res.status();
        let problem: Value = res.json().await.unwrap();
        assert_eq!(
            (status.as_u16(), problem["code"].as_str()),
            (400, Some("AI_TRANSLATE_INVALID")),
            "{why}: {problem}"
        );
    }
    let res = act(&app, &site, "translate", &key, json!({"text": "x".repeat(50_001), "target_locale": "de"})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let res =
        act(&app, &site, "translate", &key, json!({"content_id": uuid::Uuid::new_v4(), "target_locale": "de"})).await;
    assert_problem(res, 404, "ENTITY_NOT_FOUND").await;
    assert_eq!(provider.requests().len(), 1);
    provider.stop().await;
}

#[actix_web::test]
async fn image_actions_send_the_image_to_the_vision_model() {
    let (provider, app) = start().await;
    let site = ready_site(&app, &provider, "vision").await;
    let key = app.create_key("Write", Some(&site)).await;
    let image = "https://cdn.example.org/cat.jpg";
    let res = act(&app, &site, "alt_text", &key, json!({"image_url": image})).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap(), json!({"alt_text": "A black cat asleep on a red sofa"}));
    let call = provider.last();
    assert_eq!(call.body["model"], "gpt-test-vision");
    assert!(call.system().contains(r#"{"alt_text": "…"}"#));
    assert_eq!(call.user()[1], json!({"type": "image_url", "image_url": {"url": image}}));
    assert_eq!(call.user()[0]["type"], "text");

    let res = act(&app, &site, "auto_tag", &key, json!({"image_url": image, "locale": "en"})).await;
    assert_eq!(res.status(), 200);
    // Cleaned as the media library takes tags; duplicates (any case) dropped.
    assert_eq!(res.json::<Value>().await.unwrap(), json!({"tags": ["cat", "sofa", "black cat"]}));
    assert!(provider.last().system().contains(r#"{"tags": ["…"]}"#));

    for action in ["alt_text", "auto_tag"] {
        assert_problem(act(&app, &site, action, &key, json!({})).await, 400, "AI_VISION_MISSING_IMAGE").await;
        assert_problem(
            act(&app, &site, action, &key, json!({"image_url": "  "})).await,
            400,
            "AI_VISION_MISSING_IMAGE",
        )
        .await;
    }
    let res = act(&app, &site, "alt_text", &key, json!({"image_url": "file:///etc/passwd"})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let res = act(&app, &site, "alt_text", &key, json!({"image_url": image, "save": true})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let res = act(&app, &site, "alt_text", &key, json!({"media_id": uuid::Uuid::new_v4()})).await;
    assert_problem(res, 404, "ENTITY_NOT_FOUND").await;
    assert_eq!(provider.requests().len(), 2);
    provider.stop().await;
}

#[actix_web::test]
async fn section_content_writes_a_known_section_type() {
    let (provider, app) = start().await;
    let site = ready_site(&app, &provider, "sections").await;
    let key = app.create_key("Write", Some(&site)).await;
    let context = "A sailing school on the Baltic coast, for beginners";
    let res =
        act(&app, &site, "section_content", &key, json!({"section_type": "Hero", "section_context": context})).await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["section_type"], "hero");
    assert_eq!(
        body["content"],
        json!({"title": "Welcome aboard", "subtitle": "Sail with us", "cta_label": "Book now"})
    );
    let call = provider.last();
    assert!(call.system().contains("hero") && call.system().contains(r#"{"content": {"title""#), "{}", call.system());
    assert_eq!(call.user(), &json!(context));

    let res =
        act(&app, &site, "section_content", &key, json!({"section_type": "carousel", "section_context": context}))
            .await;
    assert_problem(res, 400, "AI_SECTION_TYPE_UNKNOWN").await;
    for body in [
        json!({"section_context": context}),
        json!({"section_type": "", "section_context": context}),
        json!({"section_type": "faq"}),
        json!({"section_type": "faq", "section_context": "   too short   "}),
    ] {
        let res = act(&app, &site, "section_content", &key, body).await;
        assert_problem(res, 400, "AI_SECTION_CONTEXT_INSUFFICIENT").await;
    }
    assert_eq!(provider.requests().len(), 1);
    provider.stop().await;
}
