use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn legal_documents_publish_only_with_title_and_body_and_have_versions() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("legal").await;
    let res = app
        .post("/legal", &app.admin_key, json!({"site_ids": [site], "title": "Privacy", "document_type": "privacy"}))
        .await;
    assert_problem(res, 403, "MODULE_NOT_ENABLED").await;
    app.put(&format!("/sites/{site}/settings"), &app.admin_key, json!({"module_legal_enabled": true})).await;

    // No document_type: an `Other` document (the spec lists no legal body);
    // types are answered in the origin service's spelling.
    let res = app.post("/legal", &app.admin_key, json!({"site_ids": [site], "title": ""})).await;
    assert_eq!(res.json::<Value>().await.unwrap()["document_type"], "Other");
    let res =
        app.post("/legal", &app.admin_key, json!({"site_ids": [site], "title": "", "document_type": "privacy"})).await;
    assert_eq!(res.status(), 201);
    let doc: Value = res.json().await.unwrap();
    assert_eq!(
        (doc["slug"].as_str(), doc["document_type"].as_str(), doc["version"].as_i64()),
        (Some("privacy"), Some("PrivacyPolicy"), Some(1))
    );
    let path = format!("/legal/{}", doc["id"].as_str().unwrap());

    assert_problem(
        app.put(&path, &app.admin_key, json!({"status": "Published"})).await,
        400,
        "LEGAL_PUBLISH_MISSING_TITLE",
    )
    .await;
    assert_problem(
        app.put(&path, &app.admin_key, json!({"status": "Published", "title": "Privacy policy"})).await,
        400,
        "LEGAL_PUBLISH_MISSING_BODY",
    )
    .await;
    let res = app
        .post(
            "/legal",
            &app.admin_key,
            json!({"site_ids": [site], "title": "Terms", "document_type": "terms", "status": "Published"}),
        )
        .await;
    assert_problem(res, 400, "LEGAL_PUBLISH_MISSING_BODY").await;

    let mut events = app.state.events.subscribe();
    let published: Value = app
        .put(
            &path,
            &app.admin_key,
            json!({"status": "Published", "title": "Privacy policy", "body": "We keep nothing."}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(published["status"], "Published");
    assert_eq!(
        [events.recv().await.unwrap().event, events.recv().await.unwrap().event],
        ["legal.updated", "legal.published"]
    );
    assert_problem(app.put(&path, &app.admin_key, json!({"body": " "})).await, 400, "LEGAL_PUBLISH_MISSING_BODY").await;

    // Versions: drafts of the next version, chained to the previous one.
    let v2: Value = app.post(&format!("{path}/versions"), &app.admin_key, json!({})).await.json().await.unwrap();
    assert_eq!(
        (v2["slug"].as_str(), v2["version"].as_i64(), v2["status"].as_str(), v2["title"].as_str()),
        (Some("privacy-v2"), Some(2), Some("Draft"), Some("Privacy policy"))
    );
    assert_eq!(v2["previous_version_id"], doc["id"]);
    let v3: Value = app
        .post(&format!("/legal/{}/versions", v2["id"].as_str().unwrap()), &app.admin_key, json!({}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!((v3["slug"].as_str(), v3["version"].as_i64()), (Some("privacy-v3"), Some(3)));

    assert_eq!(app.delete(&path, &app.admin_key).await.status(), 204);
    assert_problem(
        app.post(&format!("{path}/versions"), &app.admin_key, json!({})).await,
        404,
        "LEGAL_VERSION_SOURCE_DELETED",
    )
    .await;
    let trash: Value = app.get(&format!("/sites/{site}/trash"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(trash["items"][0]["entity_type"], "legal");
    let res = app
        .post(&format!("/trash/{}/restore?entity_type=legal", doc["id"].as_str().unwrap()), &app.admin_key, json!({}))
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(app.delete(&path, &app.admin_key).await.status(), 204);
    let blog: Value =
        app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "A post"})).await.json().await.unwrap();
    assert_problem(
        app.post(&format!("/legal/{}/versions", blog["id"].as_str().unwrap()), &app.admin_key, json!({})).await,
        404,
        "ENTITY_NOT_FOUND",
    )
    .await;
}

/// The origin service's admin creates a legal document under its site, with
/// `cookie_name` for the title, and reads `cookie_name` back.
#[actix_web::test]
async fn the_origin_admin_creates_legal_documents_under_the_site() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;
    let site = app.create_site_with_module("origin-legal", "legal").await;
    let other = app.create_site_with_module("origin-legal-other", "legal").await;
    let path = format!("/sites/{site}/legal");
    let body = json!({"cookie_name": "cookie_consent", "document_type": "CookieConsent", "status": "Draft", "site_ids": [site]});
    let res = app.post(&path, key, body).await;
    assert_eq!(res.status(), 201);
    let created: Value = res.json().await.unwrap();
    assert_eq!(
        (created["cookie_name"].as_str(), created["title"].as_str()),
        (Some("cookie_consent"), Some("cookie_consent"))
    );
    assert_eq!(
        (created["document_type"].as_str(), created["site_ids"].clone()),
        (Some("CookieConsent"), json!([site]))
    );
    // The site from the path when the body names none; another site alone is refused.
    let bare: Value = app.post(&path, key, json!({"title": "Imprint"})).await.json().await.unwrap();
    assert_eq!(bare["site_ids"], json!([site]));
    let elsewhere = json!({"title": "Terms", "site_ids": [other]});
    assert_problem(app.post(&path, key, elsewhere).await, 422, "VALIDATION_ERROR").await;
    let reader = app.create_key("Read", Some(&site)).await;
    assert_problem(app.post(&path, &reader, json!({"title": "Nope"})).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let renamed: Value = app
        .put(&format!("/legal/{}", created["id"].as_str().unwrap()), key, json!({"cookie_name": "consent"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(renamed["cookie_name"], "consent");
}
