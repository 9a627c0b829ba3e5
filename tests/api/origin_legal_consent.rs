//! A legal document's consent groups and items, as the origin service's
//! admin edits them one by one, and the site's cookie consent document as a
//! front end reads it whole.

use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

async fn consent_document(app: &TestApp, slug: &str) -> (String, String) {
    let site = app.create_site_with_module(slug, "legal").await;
    // CreateLegalDocumentRequest as the admin sends it.
    let body = json!({"cookie_name": "cookie_consent", "document_type": "CookieConsent", "status": "Draft", "site_ids": [site]});
    let document = app.create(&format!("/sites/{site}/legal"), &app.admin_key, body).await;
    assert_eq!(document["groups"], json!([]), "a new document has no groups");
    (site, document["id"].as_str().unwrap().to_string())
}

#[actix_web::test]
async fn the_origin_admin_adds_changes_and_removes_groups_and_items() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;
    let (site, document) = consent_document(&app, "consent").await;
    let groups_path = format!("/legal/{document}/groups");

    // CreateLegalGroupRequest as the admin sends it.
    let body = json!({"cookie_name": "analytics", "display_order": 2, "is_required": false, "default_enabled": true});
    let analytics = app.create(&groups_path, key, body).await;
    let analytics_id = analytics["id"].as_str().unwrap().to_string();
    assert_eq!(analytics["legal_document_id"].as_str(), Some(document.as_str()));
    assert_eq!((analytics["cookie_name"].as_str(), analytics["display_order"].as_i64()), (Some("analytics"), Some(2)));
    assert_eq!((analytics["is_required"].as_bool(), analytics["default_enabled"].as_bool()), (Some(false), Some(true)));
    let necessary = app
        .create(&groups_path, key, json!({"cookie_name": "necessary", "display_order": 0, "is_required": true}))
        .await;
    // Without a position a group goes last.
    let marketing = app.create(&groups_path, key, json!({"cookie_name": "marketing"})).await;
    assert_eq!(marketing["display_order"], 3);
    let listed: Vec<Value> = app.get(&groups_path, key).await.json().await.unwrap();
    let names: Vec<&str> = listed.iter().map(|g| g["cookie_name"].as_str().unwrap()).collect();
    assert_eq!(names, ["necessary", "analytics", "marketing"]);

    // Items of a group (CreateLegalItemRequest).
    let items_path = format!("/legal/groups/{analytics_id}/items");
    let ga =
        app.create(&items_path, key, json!({"cookie_name": "_ga", "display_order": 1, "is_required": false})).await;
    let gid = app.create(&items_path, key, json!({"cookie_name": "_gid", "display_order": 0})).await;
    assert_eq!(ga["legal_group_id"].as_str(), Some(analytics_id.as_str()));
    let items: Vec<Value> = app.get(&items_path, key).await.json().await.unwrap();
    assert_eq!(items.iter().map(|i| &i["id"]).collect::<Vec<_>>(), [&gid["id"], &ga["id"]], "in display_order");

    // Updates change only what is sent.
    let ga_path = format!("/legal/items/{}", ga["id"].as_str().unwrap());
    let changed: Value = app.put(&ga_path, key, json!({"is_required": true})).await.json().await.unwrap();
    assert_eq!((changed["cookie_name"].as_str(), changed["is_required"].as_bool()), (Some("_ga"), Some(true)));
    let group_path = format!("/legal/groups/{analytics_id}");
    let res = app.put(&group_path, key, json!({"cookie_name": "statistics", "display_order": 9})).await;
    assert_eq!(res.status(), 200);
    let renamed: Value = res.json().await.unwrap();
    assert_eq!(
        (renamed["cookie_name"].as_str(), renamed["default_enabled"].as_bool()),
        (Some("statistics"), Some(true))
    );
    assert_eq!(renamed["items"].as_array().map(Vec::len), Some(2), "its items stay");

    // Bounds: a name of 1 to 100 characters, positions 0 to 9999.
    assert_problem(app.post(&groups_path, key, json!({"cookie_name": " "})).await, 422, "VALIDATION_ERROR").await;
    let long = "x".repeat(101);
    assert_problem(app.post(&items_path, key, json!({"cookie_name": long})).await, 422, "VALIDATION_ERROR").await;
    assert_problem(app.put(&group_path, key, json!({"display_order": 10000})).await, 422, "VALIDATION_ERROR").await;

    // The document carries them, and the site's cookie consent answers them whole.
    let read: Value = app.get(&format!("/legal/{document}"), key).await.json().await.unwrap();
    assert_eq!(read["document_type"], "CookieConsent");
    assert_eq!(read["groups"].as_array().map(Vec::len), Some(3));
    let consent: Value = app.get(&format!("/sites/{site}/legal/cookie-consent"), key).await.json().await.unwrap();
    assert_eq!(
        (consent["id"].as_str(), consent["cookie_name"].as_str()),
        (Some(document.as_str()), Some("cookie_consent"))
    );
    let names: Vec<&str> =
        consent["groups"].as_array().unwrap().iter().map(|g| g["cookie_name"].as_str().unwrap()).collect();
    assert_eq!(names, ["necessary", "marketing", "statistics"]);
    assert_eq!(consent["groups"][2]["items"][1]["cookie_name"], "_ga");

    // Deletes: an item, then a group with its items.
    assert_eq!(app.delete(&ga_path, key).await.status(), 204);
    assert_problem(app.put(&ga_path, key, json!({"is_required": false})).await, 404, "ENTITY_NOT_FOUND").await;
    assert_eq!(app.delete(&group_path, key).await.status(), 204);
    let gid_path = format!("/legal/items/{}", gid["id"].as_str().unwrap());
    assert_problem(app.delete(&gid_path, key).await, 404, "ENTITY_NOT_FOUND").await;
    assert_problem(app.get(&items_path, key).await, 404, "ENTITY_NOT_FOUND").await;
    let listed: Vec<Value> = app.get(&groups_path, key).await.json().await.unwrap();
    assert_eq!(listed.iter().map(|g| &g["id"]).collect::<Vec<_>>(), [&necessary["id"], &marketing["id"]]);

    // Each change is an update of the document, in its history.
    let history: Vec<Value> = app.get(&format!("/audit/history/legal/{document}"), key).await.json().await.unwrap();
    assert!(history.len() >= 8, "one entry per change: {}", history.len());
}

#[actix_web::test]
async fn consent_groups_need_the_documents_edit_rights_and_move_with_new_versions() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;
    let (site, document) = consent_document(&app, "consent-rights").await;
    let group = app
        .create(
            &format!("/legal/{document}/groups"),
            key,
            json!({"cookie_name": "analytics", "items": [{"cookie_name": "_ga"}]}),
        )
        .await;
    let group_id = group["id"].as_str().unwrap();

    // A reader reads them and changes nothing; a key of another site reaches nothing.
    let reader = app.create_key("Read", Some(&site)).await;
    assert_eq!(app.get(&format!("/legal/{document}/groups"), &reader).await.status(), 200);
    let res = app.post(&format!("/legal/{document}/groups"), &reader, json!({"cookie_name": "x"})).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let res = app.delete(&format!("/legal/groups/{group_id}"), &reader).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let other = app.create_site_with_module("consent-other", "legal").await;
    let stranger = app.create_key("Admin", Some(&other)).await;
    let res = app.get(&format!("/legal/groups/{group_id}/items"), &stranger).await;
    assert_problem(res, 403, "AUTH_API_KEY_SITE_DENIED").await;
    // A site without a cookie consent document answers 404.
    let res = app.get(&format!("/sites/{other}/legal/cookie-consent"), key).await;
    assert_problem(res, 404, "ENTITY_NOT_FOUND").await;
    // An id of no group is 404.
    let res = app.put(&format!("/legal/groups/{}", uuid::Uuid::new_v4()), key, json!({"cookie_name": "x"})).await;
    assert_problem(res, 404, "ENTITY_NOT_FOUND").await;

    // A new version carries the groups under ids of its own.
    let version = app.create(&format!("/legal/{document}/versions"), key, json!({})).await;
    let copied: Vec<Value> =
        app.get(&format!("/legal/{}/groups", version["id"].as_str().unwrap()), key).await.json().await.unwrap();
    assert_eq!((copied.len(), copied[0]["cookie_name"].as_str()), (1, Some("analytics")));
    assert_ne!(copied[0]["id"], group["id"]);
    assert_ne!(copied[0]["items"][0]["id"], group["items"][0]["id"]);
    let copied_items = format!("/legal/groups/{}/items", copied[0]["id"].as_str().unwrap());
    let items: Vec<Value> = app.get(&copied_items, key).await.json().await.unwrap();
    assert_eq!(items[0]["legal_group_id"], copied[0]["id"]);
}
