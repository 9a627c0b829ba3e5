use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn a_created_key_shows_its_secret_once() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("keys").await;
    let res = app
        .post(
            "/api-keys",
            &app.admin_key,
            json!({"name": "ci", "permission": "write", "site_id": site, "rate_limit_per_minute": 60}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let created: Value = res.json().await.unwrap();
    let secret = created["key"].as_str().unwrap();
    assert!(secret.starts_with("plk_") && secret.len() > 40);
    assert_eq!((created["permission"].as_str(), created["status"].as_str()), (Some("Write"), Some("active")));
    assert_eq!(created["rate_limit_per_minute"], 60);
    assert!(secret.starts_with(created["key_prefix"].as_str().unwrap()));

    let listed: Value = app.get(&format!("/api-keys?site_id={site}"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(listed["meta"]["total"], 1);
    let text = listed.to_string();
    assert!(!text.contains(secret) && !text.contains("key_hash"));
}

#[actix_web::test]
async fn key_permissions_are_bounded_by_the_creator() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("bounded").await;
    let other = app.create_site_id("elsewhere").await;
    let site_admin = app.create_key("Admin", Some(&site)).await;
    let writer = app.create_key("Write", Some(&site)).await;

    let ok = app.post("/api-keys", &site_admin, json!({"name": "r", "permission": "Read", "site_id": site})).await;
    assert_eq!(ok.status(), 201);
    let res = app.post("/api-keys", &site_admin, json!({"name": "m", "permission": "Master"})).await;
    assert_problem(res, 403, "API_KEY_PERMISSION_EXCEEDED").await;
    let res = app.post("/api-keys", &site_admin, json!({"name": "u", "permission": "Read"})).await;
    assert_problem(res, 403, "API_KEY_PERMISSION_EXCEEDED").await;
    let res = app.post("/api-keys", &site_admin, json!({"name": "o", "permission": "Read", "site_id": other})).await;
    assert_problem(res, 403, "AUTH_API_KEY_SITE_DENIED").await;
    let res = app.post("/api-keys", &writer, json!({"name": "w", "permission": "Read", "site_id": site})).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let res = app.post("/api-keys", &app.admin_key, json!({"name": "x", "permission": "Superuser"})).await;
    assert_problem(res, 422, "API_KEY_INVALID_PERMISSION").await;
    let res =
        app.post("/api-keys", &app.admin_key, json!({"name": "x", "permission": "Master", "site_id": site})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let res = app
        .post("/api-keys", &app.admin_key, json!({"name": "x", "permission": "Read", "rate_limit_per_second": 0}))
        .await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let res = app
        .post("/api-keys", &app.admin_key, json!({"name": "x", "permission": "Read", "site_id": uuid::Uuid::new_v4()}))
        .await;
    assert_problem(res, 404, "ENTITY_NOT_FOUND").await;
}

#[actix_web::test]
async fn site_admins_must_filter_key_listings_by_site() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("filter").await;
    let other = app.create_site_id("filter-other").await;
    let site_admin = app.create_key("Admin", Some(&site)).await;
    app.create_key("Read", Some(&other)).await;
    assert_problem(app.get("/api-keys", &site_admin).await, 403, "API_KEY_SITE_FILTER_REQUIRED").await;
    assert_problem(app.get(&format!("/api-keys?site_id={other}"), &site_admin).await, 403, "AUTH_API_KEY_SITE_DENIED")
        .await;
    let mine: Value = app.get(&format!("/api-keys?site_id={site}"), &site_admin).await.json().await.unwrap();
    assert_eq!(mine["meta"]["total"], 1);
    assert_problem(app.get("/api-keys?status=expired", &app.admin_key).await, 422, "API_KEY_INVALID_STATUS").await;
}

#[actix_web::test]
async fn revoked_keys_move_from_active_to_revoked_listings() {
    let app = TestApp::spawn().await;
    let res = app.post("/api-keys", &app.admin_key, json!({"name": "gone", "permission": "Read"})).await;
    let id = res.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    assert_eq!(app.delete(&format!("/api-keys/{id}"), &app.admin_key).await.status(), 204);
    assert_eq!(app.delete(&format!("/api-keys/{id}"), &app.admin_key).await.status(), 204, "revoking is idempotent");
    let revoked: Value = app.get("/api-keys?status=revoked", &app.admin_key).await.json().await.unwrap();
    assert_eq!(revoked["data"][0]["id"], id.as_str());
    assert_eq!(revoked["data"][0]["status"], "revoked");
    let active: Value = app.get("/api-keys", &app.admin_key).await.json().await.unwrap();
    assert!(active["data"].as_array().unwrap().iter().all(|k| k["id"] != id.as_str()));
    assert_problem(
        app.delete(&format!("/api-keys/{}", uuid::Uuid::new_v4()), &app.admin_key).await,
        404,
        "ENTITY_NOT_FOUND",
    )
    .await;
}

#[actix_web::test]
async fn key_listing_paginates_with_the_shared_envelope() {
    let app = TestApp::spawn().await;
    for i in 0..12 {
        app.create_key_with(json!({"name": format!("k{i}"), "permission": "Read"})).await;
    }
    // 12 keys plus the bootstrap Master key.
    let page: Value = app.get("/api-keys?page=3&per_page=5", &app.admin_key).await.json().await.unwrap();
    assert_eq!(page["meta"], json!({"page": 3, "per_page": 5, "total": 13, "total_pages": 3}));
    assert_eq!(page["data"].as_array().unwrap().len(), 3);
    let past: Value = app.get("/api-keys?page=9&per_page=5", &app.admin_key).await.json().await.unwrap();
    assert_eq!(past["data"], json!([]));
    assert_eq!(past["meta"]["total"], 13);
    let defaults: Value = app.get("/api-keys", &app.admin_key).await.json().await.unwrap();
    assert_eq!(defaults["meta"], json!({"page": 1, "per_page": 10, "total": 13, "total_pages": 2}));
    let clamped: Value = app.get("/api-keys?page=0&per_page=1000", &app.admin_key).await.json().await.unwrap();
    assert_eq!((clamped["meta"]["page"].as_u64(), clamped["meta"]["per_page"].as_u64()), (Some(1), Some(100)));
    assert_eq!(clamped["data"].as_array().unwrap().len(), 13);
}
