//! A page's sections one by one, as the origin service's admin edits them:
//! ids, positions, settings, per-locale texts and reordering, each change
//! kept in the page's own `sections` and history.

use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

async fn page_with_locale(app: &TestApp, slug: &str) -> (String, String, String) {
    let key = &app.admin_key;
    let site = app.create_site_id(slug).await;
    let de = app.locale_id("de").await;
    app.post(&format!("/sites/{site}/locales"), key, json!({"locale_id": de})).await;
    let page = app.create("/pages", key, json!({"route": "/home", "title": "Home", "site_ids": [site]})).await;
    (site, page["id"].as_str().unwrap().to_string(), de)
}

#[actix_web::test]
async fn the_origin_admin_adds_changes_orders_and_removes_sections() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;
    let (_, page, _) = page_with_locale(&app, "sections").await;
    let sections_path = format!("/pages/{page}/sections");

    // CreatePageSectionRequest as the admin sends it.
    let hero = app
        .create(
            &sections_path,
            key,
            json!({"section_type": "Hero", "display_order": 0, "call_to_action_route": "/contact",
                "settings": {"align": "center", "columns": 2}}),
        )
        .await;
    let hero_id = hero["id"].as_str().unwrap().to_string();
    assert_eq!((hero["page_id"].as_str(), hero["section_type"].as_str()), (Some(page.as_str()), Some("Hero")));
    assert_eq!((hero["display_order"].as_i64(), hero["call_to_action_route"].as_str()), (Some(0), Some("/contact")));
    assert_eq!(hero["settings"], json!({"align": "center", "columns": 2}));
    // Without a position it goes last.
    let faq = app.create(&sections_path, key, json!({"section_type": "Faq"})).await;
    let cta = app.create(&sections_path, key, json!({"section_type": "Cta", "display_order": 5})).await;
    assert_eq!((faq["display_order"].as_i64(), cta["display_order"].as_i64()), (Some(1), Some(5)));

    let listed: Vec<Value> = app.get(&sections_path, key).await.json().await.unwrap();
    let types: Vec<&str> = listed.iter().map(|s| s["section_type"].as_str().unwrap()).collect();
    assert_eq!(types, ["Hero", "Faq", "Cta"]);
    // The page shows the same sections, with their ids.
    let page_read: Value = app.get(&format!("/pages/{page}"), key).await.json().await.unwrap();
    assert_eq!(page_read["sections"][0]["id"], hero["id"]);

    // Update: only what is sent; null clears.
    let res = app
        .put(&format!("/pages/sections/{hero_id}"), key, json!({"display_order": 7, "call_to_action_route": null}))
        .await;
    assert_eq!(res.status(), 200);
    let changed: Value = res.json().await.unwrap();
    assert_eq!((changed["display_order"].as_i64(), changed["call_to_action_route"].is_null()), (Some(7), true));
    assert_eq!(changed["settings"]["align"], "center", "fields not sent stay");
    let listed: Vec<Value> = app.get(&sections_path, key).await.json().await.unwrap();
    assert_eq!(listed.last().unwrap()["id"], hero["id"], "kept in display_order");

    // Reorder: all or nothing.
    let reorder = format!("{sections_path}/reorder");
    let items = json!({"items": [{"id": hero_id, "display_order": 0}, {"id": faq["id"], "display_order": 2}]});
    assert_eq!(app.post(&reorder, key, items).await.status(), 204);
    let listed: Vec<Value> = app.get(&sections_path, key).await.json().await.unwrap();
    let ids: Vec<&Value> = listed.iter().map(|s| &s["id"]).collect();
    assert_eq!(ids, [&hero["id"], &faq["id"], &cta["id"]]);
    let stranger = uuid::Uuid::new_v4();
    let bad = json!({"items": [{"id": hero_id, "display_order": 4}, {"id": stranger, "display_order": 1}]});
    assert_problem(app.post(&reorder, key, bad).await, 404, "ENTITY_NOT_FOUND").await;
    let twice = json!({"items": [{"id": hero_id, "display_order": 4}, {"id": hero_id, "display_order": 1}]});
    assert_problem(app.post(&reorder, key, twice).await, 422, "VALIDATION_ERROR").await;
    let listed: Vec<Value> = app.get(&sections_path, key).await.json().await.unwrap();
    assert_eq!(listed[0]["display_order"], 0, "a refused reordering moves nothing");

    // Bounds: settings must be an object; positions 0-9999.
    let res = app.post(&sections_path, key, json!({"section_type": "Hero", "settings": [1]})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let res = app.put(&format!("/pages/sections/{hero_id}"), key, json!({"display_order": 10000})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;

    // Delete, then it is gone everywhere.
    assert_eq!(app.delete(&format!("/pages/sections/{}", faq["id"].as_str().unwrap()), key).await.status(), 204);
    let res = app.put(&format!("/pages/sections/{}", faq["id"].as_str().unwrap()), key, json!({"title": "x"})).await;
    assert_problem(res, 404, "ENTITY_NOT_FOUND").await;
    let listed: Vec<Value> = app.get(&sections_path, key).await.json().await.unwrap();
    assert_eq!(listed.len(), 2);

    // Each change is an update of the page, in its history.
    let history: Vec<Value> = app.get(&format!("/audit/history/page/{page}"), key).await.json().await.unwrap();
    assert!(history.len() >= 6, "one entry per change: {}", history.len());
}

#[actix_web::test]
async fn section_texts_are_kept_per_locale_of_the_pages_sites() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;
    let (_, page, de) = page_with_locale(&app, "section-texts").await;
    let section = app.create(&format!("/pages/{page}/sections"), key, json!({"section_type": "Hero"})).await;
    let section_id = section["id"].as_str().unwrap();
    let texts = format!("/pages/sections/{section_id}/localizations");

    let res = app.put(&texts, key, json!({"locale_id": de, "title": "Willkommen", "button_text": "Los"})).await;
    assert_eq!(res.status(), 200);
    let text: Value = res.json().await.unwrap();
    let text_id = text["id"].as_str().unwrap().to_string();
    assert_eq!((text["page_section_id"].as_str(), text["locale_id"].as_str()), (Some(section_id), Some(de.as_str())));
    assert_eq!((text["title"].as_str(), text["text"].is_null()), (Some("Willkommen"), true));
    // The same locale again (here by its code) replaces it, keeping its id.
    let res = app.put(&texts, key, json!({"locale_id": "de", "text": "Hallo"})).await;
    let replaced: Value = res.json().await.unwrap();
    assert_eq!((replaced["id"].as_str(), replaced["title"].is_null()), (Some(text_id.as_str()), true));
    assert_eq!(replaced["text"], "Hallo");
    let listed: Vec<Value> = app.get(&texts, key).await.json().await.unwrap();
    assert_eq!(listed.len(), 1);
    let all: Vec<Value> = app.get(&format!("/pages/{page}/sections/localizations"), key).await.json().await.unwrap();
    assert_eq!(all, listed);

    // A locale the page's sites do not have is refused.
    let fr = app
        .create("/locales", key, json!({"code": "fr", "name": "French", "native_name": "Français", "direction": "ltr"}))
        .await;
    let fr = fr["id"].as_str().unwrap();
    assert_problem(app.put(&texts, key, json!({"locale_id": fr, "title": "Bonjour"})).await, 422, "VALIDATION_ERROR")
        .await;

    // A copy of the page has sections and texts of its own.
    let copy = app.create(&format!("/pages/{page}/clone"), key, json!({})).await;
    let copied: Vec<Value> =
        app.get(&format!("/pages/{}/sections", copy["id"].as_str().unwrap()), key).await.json().await.unwrap();
    assert_eq!(copied.len(), 1);
    assert_ne!(copied[0]["id"], section["id"]);
    assert_ne!(copied[0]["localizations"][0]["id"], text["id"]);
    let copied_id = copied[0]["id"].as_str().unwrap();
    let res = app.get(&format!("/pages/sections/{copied_id}/localizations"), key).await;
    assert_eq!(res.json::<Value>().await.unwrap()[0]["page_section_id"], copied[0]["id"]);

    // Deleting the text leaves the section.
    assert_eq!(app.delete(&format!("/pages/sections/localizations/{text_id}"), key).await.status(), 204);
    let listed: Vec<Value> = app.get(&texts, key).await.json().await.unwrap();
    assert!(listed.is_empty());
    let res = app.delete(&format!("/pages/sections/localizations/{text_id}"), key).await;
    assert_problem(res, 404, "ENTITY_NOT_FOUND").await;
    // A section id is not a text id, and the other way round.
    assert_problem(
        app.delete(&format!("/pages/sections/localizations/{section_id}"), key).await,
        404,
        "ENTITY_NOT_FOUND",
    )
    .await;
}

#[actix_web::test]
async fn who_may_edit_the_page_may_edit_its_sections_and_the_role_is_checked_first() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;
    let (site, page, _) = page_with_locale(&app, "section-roles").await;
    let section = app.create(&format!("/pages/{page}/sections"), key, json!({"section_type": "Hero"})).await;
    let reader = app.create_key("Read", Some(&site)).await;
    let listed: Vec<Value> = app.get(&format!("/pages/{page}/sections"), &reader).await.json().await.unwrap();
    assert_eq!(listed.len(), 1, "a reader reads them");
    let path = format!("/pages/sections/{}", section["id"].as_str().unwrap());
    // Refused for the role, even with a body that would fail validation.
    assert_problem(app.put(&path, &reader, json!({"display_order": 10000})).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let res = app.post(&format!("/pages/{page}/sections"), &reader, json!({"settings": [1]})).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let res = app.post(&format!("/pages/{page}/sections/reorder"), &reader, json!({"items": []})).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
}
