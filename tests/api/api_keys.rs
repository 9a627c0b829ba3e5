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
    assert_eq!((created["permission"].as_str(), created["status"].as_str()), (Some("Write"), Some("Active")));
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
    assert_problem(app.get("/api-keys?status=paused", &app.admin_key).await, 422, "API_KEY_INVALID_STATUS").await;
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
    assert_eq!(revoked["data"][0]["status"], "Revoked");
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

/// Creates a key as the origin service's admin does, answering its id and secret.
async fn key_for(app: &TestApp, body: Value) -> (String, String) {
    let res = app.post("/api-keys", &app.admin_key, body).await;
    assert_eq!(res.status(), 201);
    let created: Value = res.json().await.unwrap();
    (created["id"].as_str().unwrap().to_string(), created["key"].as_str().unwrap().to_string())
}

#[actix_web::test]
async fn a_key_is_read_and_changed_with_the_origin_admins_bodies() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("key-admin").await;
    let other = app.create_site_id("key-admin-other").await;
    let expires_at = (chrono::Utc::now() + chrono::Duration::days(30)).to_rfc3339();
    // CreateApiKeyRequest of the origin admin: user_id is sent and ignored.
    let (id, _) = key_for(
        &app,
        json!({"name": "deploys", "description": "CI pipeline", "permission": "Write", "site_id": site,
               "user_id": "user_1", "rate_limit_per_minute": 60, "expires_at": expires_at}),
    )
    .await;
    let path = format!("/api-keys/{id}");
    let key: Value = app.get(&path, &app.admin_key).await.json().await.unwrap();
    assert_eq!(
        (&key["name"], &key["description"], &key["status"], &key["total_requests"], &key["site_id"]),
        (&json!("deploys"), &json!("CI pipeline"), &json!("Active"), &json!(0), &json!(site))
    );
    assert!(key["expires_at"].as_str().is_some() && key["updated_at"] == key["created_at"]);
    assert!(key.get("key").is_none() && key.get("key_hash").is_none(), "never the secret: {key}");

    // Partial<CreateApiKeyRequest>: what is sent changes, null clears, the rest stays.
    let changed = app
        .put(
            &path,
            &app.admin_key,
            json!({"name": "deploys v2", "description": null, "permission": "Read", "site_id": site,
                   "rate_limit_per_minute": null, "rate_limit_per_hour": 500}),
        )
        .await;
    assert_eq!(changed.status(), 200);
    let changed: Value = changed.json().await.unwrap();
    assert_eq!(
        (&changed["name"], &changed["description"], &changed["permission"]),
        (&json!("deploys v2"), &Value::Null, &json!("Read"))
    );
    assert_eq!((&changed["rate_limit_per_minute"], &changed["rate_limit_per_hour"]), (&Value::Null, &json!(500)));
    assert_eq!(changed["expires_at"], key["expires_at"]);
    assert_ne!(changed["updated_at"], key["updated_at"]);
    assert_eq!(app.get(&path, &app.admin_key).await.json::<Value>().await.unwrap()["name"], "deploys v2");
    // The origin admin's list filters: status and permission, in its spelling.
    let ids = |listed: Value| listed["data"].as_array().unwrap().iter().map(|k| k["id"].clone()).collect::<Vec<_>>();
    let readers = app.get(&format!("/api-keys?site_id={site}&status=Active&permission=read"), &app.admin_key).await;
    assert_eq!(ids(readers.json().await.unwrap()), [json!(id)]);
    let writers = app.get(&format!("/api-keys?site_id={site}&permission=Write"), &app.admin_key).await;
    assert_eq!(ids(writers.json().await.unwrap()), Vec::<Value>::new());
    let unknown = app.get("/api-keys?permission=Superuser", &app.admin_key).await;
    assert_problem(unknown, 422, "API_KEY_INVALID_PERMISSION").await;

    let moved = app.put(&path, &app.admin_key, json!({"site_id": other})).await;
    assert_problem(moved, 422, "VALIDATION_ERROR").await;
    let past = app.put(&path, &app.admin_key, json!({"expires_at": "2001-01-01T00:00:00Z"})).await;
    assert_problem(past, 422, "VALIDATION_ERROR").await;
    let bad = app.put(&path, &app.admin_key, json!({"permission": "Superuser"})).await;
    assert_problem(bad, 422, "API_KEY_INVALID_PERMISSION").await;
    let made_expired = app
        .post(
            "/api-keys",
            &app.admin_key,
            json!({"name": "late", "permission": "Read", "expires_at": "2001-01-01T00:00:00Z"}),
        )
        .await;
    assert_problem(made_expired, 422, "VALIDATION_ERROR").await;
}

#[actix_web::test]
async fn a_blocked_key_is_refused_until_unblocked_and_a_revoked_one_for_good() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("blocking").await;
    let (id, secret) = key_for(&app, json!({"name": "reader", "permission": "Read", "site_id": site})).await;
    let site_path = format!("/sites/{site}");
    assert_eq!(app.get(&site_path, &secret).await.status(), 200);

    let blocked =
        app.post(&format!("/api-keys/{id}/block"), &app.admin_key, json!({"reason": "leaked in a log"})).await;
    assert_eq!(blocked.status(), 200);
    let blocked: Value = blocked.json().await.unwrap();
    assert_eq!((&blocked["status"], &blocked["blocked_reason"]), (&json!("Blocked"), &json!("leaked in a log")));
    assert!(blocked["blocked_at"].is_string());
    assert_problem(app.get(&site_path, &secret).await, 401, "AUTH_API_KEY_INVALID").await;
    // The origin admin filters by its own spelling of the status.
    let listed: Value = app.get("/api-keys?status=Blocked", &app.admin_key).await.json().await.unwrap();
    assert_eq!(listed["data"].as_array().unwrap().iter().map(|k| k["id"].clone()).collect::<Vec<_>>(), [json!(id)]);
    let active: Value = app.get("/api-keys", &app.admin_key).await.json().await.unwrap();
    assert!(active["data"].as_array().unwrap().iter().all(|k| k["id"] != id.as_str()));

    let unblocked = app.post(&format!("/api-keys/{id}/unblock"), &app.admin_key, json!({})).await;
    assert_eq!(unblocked.status(), 200);
    let unblocked: Value = unblocked.json().await.unwrap();
    assert_eq!((&unblocked["status"], &unblocked["blocked_reason"]), (&json!("Active"), &Value::Null));
    assert_eq!(app.get(&site_path, &secret).await.status(), 200);

    let revoked = app.post(&format!("/api-keys/{id}/revoke"), &app.admin_key, json!({})).await;
    assert_eq!(revoked.status(), 200);
    assert_eq!(revoked.json::<Value>().await.unwrap()["status"], "Revoked");
    assert_problem(app.get(&site_path, &secret).await, 401, "AUTH_API_KEY_INVALID").await;
    let again = app.post(&format!("/api-keys/{id}/block"), &app.admin_key, json!({"reason": "x"})).await;
    assert_problem(again, 422, "API_KEY_INVALID_STATUS").await;
    assert_problem(
        app.post(&format!("/api-keys/{id}/unblock"), &app.admin_key, json!({})).await,
        422,
        "API_KEY_INVALID_STATUS",
    )
    .await;
}

#[actix_web::test]
async fn a_key_stops_authenticating_when_its_expiry_passes() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("expiring").await;
    let expires_at = (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    let (id, secret) =
        key_for(&app, json!({"name": "temp", "permission": "Read", "site_id": site, "expires_at": expires_at})).await;
    let site_path = format!("/sites/{site}");
    // Used (and so cached) before its expiry…
    assert_eq!(app.get(&site_path, &secret).await.status(), 200);
    app.clock.advance(chrono::Duration::hours(2));
    // …refused after it, from the cache too.
    assert_problem(app.get(&site_path, &secret).await, 401, "AUTH_API_KEY_INVALID").await;
    let key: Value = app.get(&format!("/api-keys/{id}"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(key["status"], "Expired");
    let expired: Value = app.get("/api-keys?status=expired", &app.admin_key).await.json().await.unwrap();
    assert_eq!(expired["data"][0]["id"], id.as_str());
    // A new expiry brings it back.
    let later = (chrono::Utc::now() + chrono::Duration::days(2)).to_rfc3339();
    let renewed = app.put(&format!("/api-keys/{id}"), &app.admin_key, json!({"expires_at": later})).await;
    assert_eq!(renewed.json::<Value>().await.unwrap()["status"], "Active");
    assert_eq!(app.get(&site_path, &secret).await.status(), 200);
}

#[actix_web::test]
async fn managing_a_key_needs_rights_over_its_site_and_its_permission() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("managed").await;
    let other = app.create_site_id("managed-other").await;
    let site_admin = app.create_key("Admin", Some(&site)).await;
    let writer = app.create_key("Write", Some(&site)).await;
    let (own, _) = key_for(&app, json!({"name": "own", "permission": "Read", "site_id": site})).await;
    let (foreign, _) = key_for(&app, json!({"name": "foreign", "permission": "Read", "site_id": other})).await;
    let (master, _) = key_for(&app, json!({"name": "root", "permission": "Master"})).await;

    assert_eq!(app.get(&format!("/api-keys/{own}"), &site_admin).await.status(), 200);
    let raised = app.put(&format!("/api-keys/{own}"), &site_admin, json!({"permission": "Master"})).await;
    assert_problem(raised, 422, "VALIDATION_ERROR").await;
    let unscoped = app.post("/api-keys", &app.admin_key, json!({"name": "wide", "permission": "Write"})).await;
    let unscoped = unscoped.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    for (path, body) in
        [(format!("/api-keys/{foreign}/block"), Some(json!({"reason": "x"}))), (format!("/api-keys/{foreign}"), None)]
    {
        let res = match body {
            Some(body) => app.post(&path, &site_admin, body).await,
            None => app.get(&path, &site_admin).await,
        };
        assert_problem(res, 403, "AUTH_API_KEY_SITE_DENIED").await;
    }
    assert_problem(app.get(&format!("/api-keys/{unscoped}"), &site_admin).await, 403, "API_KEY_PERMISSION_EXCEEDED")
        .await;
    assert_problem(app.get(&format!("/api-keys/{master}"), &site_admin).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
    assert_problem(app.get(&format!("/api-keys/{own}"), &writer).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let unknown = uuid::Uuid::new_v4();
    assert_problem(
        app.post(&format!("/api-keys/{unknown}/unblock"), &app.admin_key, json!({})).await,
        404,
        "ENTITY_NOT_FOUND",
    )
    .await;
}
