use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn global_locales_are_seeded_and_managed_by_operators() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("loc").await;
    let reader = app.create_key("Read", Some(&site)).await;
    let site_admin = app.create_key("Admin", Some(&site)).await;

    let seeded: Vec<Value> = app.get("/locales", &reader).await.json().await.unwrap();
    let codes: Vec<&str> = seeded.iter().map(|l| l["code"].as_str().unwrap()).collect();
    assert!(codes.contains(&"en") && codes.contains(&"de"));

    let body = json!({"code": "ar", "name": "Arabic", "native_name": "العربية", "direction": "rtl"});
    assert_problem(app.post("/locales", &site_admin, body.clone()).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let res = app.post("/locales", &app.admin_key, body.clone()).await;
    assert_eq!(res.status(), 201);
    let arabic: Value = res.json().await.unwrap();
    assert_eq!(arabic["direction"], "rtl");
    assert_problem(app.post("/locales", &app.admin_key, body).await, 409, "LOCALE_CODE_TAKEN").await;
    let res = app
        .post("/locales", &app.admin_key, json!({"code": "x", "name": "", "native_name": "n", "direction": "up"}))
        .await;
    let problem = assert_problem(res, 422, "VALIDATION_ERROR").await;
    assert_eq!(problem["errors"].as_array().unwrap().len(), 3);

    let id = arabic["id"].as_str().unwrap();
    let res = app.put(&format!("/locales/{id}"), &app.admin_key, json!({"name": "Arabic (MSA)"})).await;
    assert_eq!(res.json::<Value>().await.unwrap()["name"], "Arabic (MSA)");
    assert_eq!(app.delete(&format!("/locales/{id}"), &app.admin_key).await.status(), 204);
}

#[actix_web::test]
async fn a_locale_in_use_cannot_be_deleted_and_renames_reach_site_listings() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("inuse").await;
    let locales: Vec<Value> = app.get(&format!("/sites/{site}/locales"), &app.admin_key).await.json().await.unwrap();
    let en = locales[0]["locale_id"].as_str().unwrap().to_string();
    assert_problem(app.delete(&format!("/locales/{en}"), &app.admin_key).await, 409, "LOCALE_DELETE_IN_USE").await;
    app.put(&format!("/locales/{en}"), &app.admin_key, json!({"native_name": "English (intl)"})).await;
    let locales: Vec<Value> = app.get(&format!("/sites/{site}/locales"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(locales[0]["native_name"], "English (intl)");
}

/// The fuzzer's 500: a locale no site has any more, but content still has a
/// localization in, broke a RESTRICT foreign key. SQLite raises that from an
/// internal trigger (code 1811) and PostgreSQL as restrict_violation (23001),
/// neither of which was taken for a foreign-key violation.
#[actix_web::test]
async fn a_locale_only_content_still_uses_cannot_be_deleted() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("leftover").await;
    let created = app
        .post("/locales", &app.admin_key, json!({"code": "eo", "name": "Esperanto", "native_name": "Esperanto"}))
        .await;
    let eo = created.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    app.post(&format!("/sites/{site}/locales"), &app.admin_key, json!({"locale_id": eo})).await;
    let blog: Value =
        app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Saluton"})).await.json().await.unwrap();
    let res = app
        .post(
            &format!("/blogs/{}/localizations", blog["id"].as_str().unwrap()),
            &app.admin_key,
            json!({"locale_id": eo, "title": "Saluton"}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let res = app.delete(&format!("/sites/{site}/locales/{eo}"), &app.admin_key).await;
    assert_eq!(res.status(), 204);

    let problem =
        assert_problem(app.delete(&format!("/locales/{eo}"), &app.admin_key).await, 409, "LOCALE_DELETE_IN_USE").await;
    assert!(problem["detail"].as_str().unwrap().contains("translations"), "{problem}");
    let locales: Vec<Value> = app.get("/locales", &app.admin_key).await.json().await.unwrap();
    assert!(locales.iter().any(|l| l["id"] == eo.as_str()), "the locale is still there");
}
