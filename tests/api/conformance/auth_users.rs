//! Spec "Endpoints › Auth and users" (auth, members, moderation, identity-provider
//! users), "States › User moderation" and "Authentication".

use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use reqwest::Method;
use serde_json::{json, Value};

use super::{expect_json, expect_status, s};
use crate::helpers::{assert_problem, TestApp};
use crate::idp::{app_with_idp, claims, create_site_as, jwk, token, user_token, JwksServer, AUDIENCE, ISSUER};

#[actix_web::test]
async fn auth_rows_and_every_credential_error() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &["root"]).await;
    let alice = user_token("alice");
    let site = create_site_as(&app, &alice, "mine").await;
    let other = app.create_site_id("theirs").await;
    let key = app.create_key("Write", Some(&site)).await;

    // GET /auth/me: auth info; the user fields are null for API keys.
    let me = expect_json(app.get("/auth/me", &key).await, 200).await;
    assert_eq!(
        me,
        json!({"permission": "Write", "site_id": site, "auth_method": "api_key", "idp_user_id": null,
               "memberships": null, "is_system_admin": null})
    );
    let me = expect_json(app.bearer(Method::GET, "/auth/me", &alice, None).await, 200).await;
    assert_eq!((me["idp_user_id"].as_str(), me["is_system_admin"].as_bool()), (Some("alice"), Some(false)));
    assert_eq!(me["memberships"][0]["role"], "owner");
    let root = expect_json(app.bearer(Method::GET, "/auth/me", &user_token("root"), None).await, 200).await;
    assert_eq!(root["is_system_admin"], true);

    // GET /auth/profile (email, …) and GET /auth/export (the caller's data).
    let profile = expect_json(app.bearer(Method::GET, "/auth/profile", &alice, None).await, 200).await;
    assert_eq!(profile["email"], "alice@example.org");
    let export = expect_json(app.bearer(Method::GET, "/auth/export", &alice, None).await, 200).await;
    for part in ["profile", "audit_logs", "api_keys", "change_history", "memberships"] {
        assert!(export.get(part).is_some(), "export has {part}: {export}");
    }
    assert_eq!(export["memberships"][0]["site_slug"], "mine");

    // Authentication rule 3: missing, invalid key, invalid/expired token, audience, issuer.
    let res = app.request(Method::GET, "/auth/me", None, None).await;
    assert_problem(res, 401, "AUTH_MISSING_CREDENTIALS").await;
    assert_problem(app.get("/auth/me", "plk_nope").await, 401, "AUTH_API_KEY_INVALID").await;
    let mut expired = claims("alice");
    expired["exp"] = json!(chrono::Utc::now().timestamp() - 3600);
    let res = app.bearer(Method::GET, "/auth/me", &token("rsa_a.pem", "key-a", expired), None).await;
    assert_problem(res, 401, "AUTH_TOKEN_INVALID").await;
    let mut wrong_aud = claims("alice");
    wrong_aud["aud"] = json!("another-app");
    let res = app.bearer(Method::GET, "/auth/me", &token("rsa_a.pem", "key-a", wrong_aud), None).await;
    assert_problem(res, 401, "AUTH_TOKEN_AUDIENCE").await;
    let mut wrong_iss = claims("alice");
    wrong_iss["iss"] = json!("https://elsewhere.test");
    let res = app.bearer(Method::GET, "/auth/me", &token("rsa_a.pem", "key-a", wrong_iss), None).await;
    assert_problem(res, 401, "AUTH_TOKEN_ISSUER").await;

    // Rules 4 and 5: site scope and roles.
    assert_problem(app.get(&format!("/sites/{other}"), &key).await, 403, "AUTH_API_KEY_SITE_DENIED").await;
    let res = app.bearer(Method::GET, &format!("/sites/{other}"), &alice, None).await;
    assert_problem(res, 403, "AUTH_SITE_ACCESS_DENIED").await;
    assert_problem(app.get(&format!("/sites/{site}/members"), &key).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
}

#[actix_web::test]
async fn many_failed_authentications_give_auth_rate_limited() {
    let app = TestApp::spawn_with(|c| c.rate_limits.auth_failures_per_minute = 3).await;
    for _ in 0..4 {
        assert_problem(app.get("/auth/me", "plk_wrong").await, 401, "AUTH_API_KEY_INVALID").await;
    }
    // A valid credential is still accepted; further failures get 429.
    assert_ne!(app.get("/auth/me", &app.admin_key).await.status(), 429);
    assert_problem(app.get("/auth/me", "plk_wrong").await, 429, "AUTH_RATE_LIMITED").await;
}

#[actix_web::test]
async fn a_users_own_settings_rows_and_account_deletion() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let (alice, bob) = (user_token("alice"), user_token("bob"));

    // GET, PUT /auth/preferences (PUT partial, returns full).
    let prefs = expect_json(app.bearer(Method::GET, "/auth/preferences", &alice, None).await, 200).await;
    for field in ["autosave_enabled", "autosave_debounce_seconds", "language", "theme_id", "page_size"] {
        assert!(prefs.get(field).is_some(), "preferences have {field}: {prefs}");
    }
    let res = app.bearer(Method::PUT, "/auth/preferences", &alice, Some(json!({"page_size": 25}))).await;
    let updated = expect_json(res, 200).await;
    let mut expected = prefs.clone();
    expected["page_size"] = json!(25);
    assert_eq!(updated, expected);

    // GET, PUT, DELETE /auth/help-state (DELETE resets to defaults, 200).
    let help = expect_json(app.bearer(Method::GET, "/auth/help-state", &alice, None).await, 200).await;
    assert_eq!(help, json!({"tour_completed": false, "hotspots_seen": [], "field_help_seen": []}));
    let res =
        app.bearer(Method::PUT, "/auth/help-state", &alice, Some(json!({"dismiss_hotspot": "editor.toolbar"}))).await;
    assert_eq!(expect_json(res, 200).await["hotspots_seen"], json!(["editor.toolbar"]));
    let reset = expect_json(app.bearer(Method::DELETE, "/auth/help-state", &alice, None).await, 200).await;
    assert_eq!(reset, help);

    // GET /auth/onboarding; POST /auth/onboarding/complete body {user_type, intents}.
    let onboarding = expect_json(app.bearer(Method::GET, "/auth/onboarding", &alice, None).await, 200).await;
    assert_eq!(onboarding, json!({"completed": false, "user_type": null, "intents": [], "completed_at": null}));
    let body = json!({"user_type": "solo", "intents": ["blog", "portfolio"]});
    let done = expect_json(app.bearer(Method::POST, "/auth/onboarding/complete", &alice, Some(body)).await, 200).await;
    assert_eq!(
        (done["completed"].as_bool(), done["user_type"].as_str(), done["intents"].clone()),
        (Some(true), Some("solo"), json!(["blog", "portfolio"]))
    );
    assert!(done["completed_at"].is_string());

    // DELETE /auth/account: 204; 409 AUTH_ACCOUNT_SOLE_OWNER for a site's only owner.
    create_site_as(&app, &alice, "solo").await;
    let res = app.bearer(Method::DELETE, "/auth/account", &alice, None).await;
    assert_problem(res, 409, "AUTH_ACCOUNT_SOLE_OWNER").await;
    expect_status(&app.bearer(Method::DELETE, "/auth/account", &bob, None).await, 204);
}

#[actix_web::test]
async fn member_rows_and_their_error_codes() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let (alice, carol) = (user_token("alice"), user_token("carol"));
    let site = create_site_as(&app, &alice, "team").await;
    let members = format!("/sites/{site}/members");
    let add = |who: &str, role: &str| Some(json!({"idp_user_id": who, "role": role}));

    // POST /sites/{site_id}/members {idp_user_id, role}.
    let res = app.bearer(Method::POST, &members, &alice, add("bob", "editor")).await;
    assert!(res.status().is_success(), "{}", res.status());
    let bob_member: Value = res.json().await.unwrap();
    assert_eq!((bob_member["idp_user_id"].as_str(), bob_member["role"].as_str()), (Some("bob"), Some("editor")));
    assert!(app.bearer(Method::POST, &members, &alice, add("carol", "admin")).await.status().is_success());
    let res = app.bearer(Method::POST, &members, &alice, add("bob", "read")).await;
    assert_problem(res, 409, "MEMBER_ALREADY_EXISTS").await;
    let res = app.bearer(Method::POST, &members, &carol, add("dave", "admin")).await;
    assert_problem(res, 403, "MEMBER_ROLE_OWNER_REQUIRED").await;

    // GET /sites/{site_id}/members.
    let listed = expect_json(app.bearer(Method::GET, &members, &alice, None).await, 200).await;
    let roles: Vec<(&str, &str)> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["idp_user_id"].as_str().unwrap(), m["role"].as_str().unwrap()))
        .collect();
    assert_eq!(roles, [("alice", "owner"), ("bob", "editor"), ("carol", "admin")]);
    let alice_member = listed.as_array().unwrap().iter().find(|m| m["idp_user_id"] == "alice").unwrap().clone();

    // PUT /sites/{site_id}/members/{id} {role}.
    let bob_path = format!("{members}/{}", s(&bob_member, "id"));
    let res = app.bearer(Method::PUT, &bob_path, &carol, Some(json!({"role": "author"}))).await;
    assert_eq!(expect_json(res, 200).await["role"], "author");

    // DELETE /sites/{site_id}/members/{id}: never the owner.
    let alice_path = format!("{members}/{}", s(&alice_member, "id"));
    let res = app.bearer(Method::DELETE, &alice_path, &carol, None).await;
    assert_problem(res, 403, "MEMBER_CANNOT_REMOVE_OWNER").await;
    let res = app.bearer(Method::DELETE, &alice_path, &alice, None).await;
    assert_problem(res, 403, "SITE_OWNER_CANNOT_LEAVE").await;
    let res = app.bearer(Method::DELETE, &bob_path, &carol, None).await;
    assert!(res.status().is_success(), "{}", res.status());

    // POST …/members/transfer-ownership {idp_user_id}: Owner only.
    let transfer = format!("{members}/transfer-ownership");
    let res = app.bearer(Method::POST, &transfer, &carol, Some(json!({"idp_user_id": "carol"}))).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let res = app.bearer(Method::POST, &transfer, &alice, Some(json!({"idp_user_id": "carol"}))).await;
    expect_status(&res, 200);
    let carols = expect_json(app.bearer(Method::GET, "/my/memberships", &carol, None).await, 200).await;
    assert_eq!(carols, json!([{"site_id": site, "site_name": "team", "site_slug": "team", "role": "owner"}]));

    // GET /my/memberships is JWT only.
    assert_problem(app.get("/my/memberships", &app.admin_key).await, 400, "MEMBER_REQUIRES_IDP_AUTH").await;
}

#[actix_web::test]
async fn moderation_rows_and_transitions() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &["root"]).await;
    let (root, alice, bob) = (user_token("root"), user_token("alice"), user_token("bob"));

    // POST …/suspend {reason, duration_hours}: 200 moderation result; calls get ACCOUNT_SUSPENDED.
    let body = json!({"reason": "spam", "duration_hours": 24});
    let res = app.bearer(Method::POST, "/admin/users/alice/suspend", &bob, Some(body.clone())).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let result =
        expect_json(app.bearer(Method::POST, "/admin/users/alice/suspend", &root, Some(body)).await, 200).await;
    assert_eq!(
        (result["idp_user_id"].as_str(), result["status"].as_str(), result["reason"].as_str()),
        (Some("alice"), Some("suspended"), Some("spam"))
    );
    assert!(result["expires_at"].is_string(), "a suspension has an end: {result}");
    assert_problem(app.bearer(Method::GET, "/auth/me", &alice, None).await, 403, "ACCOUNT_SUSPENDED").await;

    // POST …/unsuspend: 200, active again.
    let res = app.bearer(Method::POST, "/admin/users/alice/unsuspend", &root, None).await;
    assert_eq!(expect_json(res, 200).await["status"], "active");
    expect_status(&app.bearer(Method::GET, "/auth/me", &alice, None).await, 200);

    // suspended --time--> active on the user's next request.
    let body = json!({"reason": "cool off", "duration_hours": 1});
    expect_json(app.bearer(Method::POST, "/admin/users/alice/suspend", &root, Some(body)).await, 200).await;
    app.clock.advance(chrono::Duration::hours(2));
    let (root, alice) = (crate::idp::user_token_at(&app, "root"), crate::idp::user_token_at(&app, "alice"));
    expect_status(&app.bearer(Method::GET, "/auth/me", &alice, None).await, 200);

    // DELETE /admin/users/{id}: 400 unless banned.
    let res = app.bearer(Method::DELETE, "/admin/users/alice", &root, None).await;
    assert_problem(res, 400, "BAD_REQUEST").await;

    // POST …/ban {reason}: 200, expires_at null; calls get ACCOUNT_BANNED; unsuspend gives 400.
    let res = app.bearer(Method::POST, "/admin/users/alice/ban", &root, Some(json!({"reason": "fraud"}))).await;
    let banned = expect_json(res, 200).await;
    assert_eq!((banned["status"].as_str(), banned["expires_at"].clone()), (Some("banned"), Value::Null));
    assert_problem(app.bearer(Method::GET, "/auth/me", &alice, None).await, 403, "ACCOUNT_BANNED").await;
    let res = app.bearer(Method::POST, "/admin/users/alice/unsuspend", &root, None).await;
    assert_problem(res, 400, "BAD_REQUEST").await;

    // banned --DELETE--> deleted: 200 with status deleted.
    let res = app.bearer(Method::DELETE, "/admin/users/alice", &root, None).await;
    assert_eq!(expect_json(res, 200).await["status"], "deleted");
}

// --- Identity-provider users: a local stand-in for the provider's user API. ---

type Users = web::Data<Arc<Mutex<Vec<Value>>>>;

fn provider_user(id: &str, created_ms: i64) -> Value {
    json!({
        "id": id, "first_name": "Test", "last_name": id, "image_url": format!("https://img.example/{id}.png"),
        "email_addresses": [{"id": format!("em_{id}"), "email_address": format!("{id}@example.org")}],
        "primary_email_address_id": format!("em_{id}"), "public_metadata": {},
        "created_at": created_ms, "updated_at": created_ms, "last_sign_in_at": created_ms
    })
}

fn start_provider(users: Vec<Value>) -> String {
    let users = Arc::new(Mutex::new(users));
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let server = HttpServer::new(move || {
        App::new().app_data(web::Data::new(Arc::clone(&users))).service(
            web::scope("/v1")
                .route("/users", web::get().to(list_users))
                .route("/users/count", web::get().to(count_users))
                .route("/users/{id}", web::get().to(get_user))
                .route("/users/{id}/metadata", web::patch().to(patch_metadata)),
        )
    })
    .workers(1)
    .disable_signals()
    .listen(listener)
    .unwrap()
    .run();
    actix_web::rt::spawn(server);
    url
}

async fn list_users(users: Users, query: web::Query<std::collections::HashMap<String, String>>) -> HttpResponse {
    let limit = query.get("limit").and_then(|v| v.parse().ok()).unwrap_or(10);
    let offset = query.get("offset").and_then(|v| v.parse().ok()).unwrap_or(0);
    HttpResponse::Ok().json(users.lock().unwrap().iter().skip(offset).take(limit).cloned().collect::<Vec<_>>())
}

async fn count_users(users: Users) -> HttpResponse {
    HttpResponse::Ok().json(json!({"object": "total_count", "total_count": users.lock().unwrap().len()}))
}

async fn get_user(users: Users, id: web::Path<String>) -> HttpResponse {
    match users.lock().unwrap().iter().find(|u| u["id"] == *id) {
        Some(user) => HttpResponse::Ok().json(user),
        None => HttpResponse::NotFound().json(json!({"errors": [{"code": "resource_not_found"}]})),
    }
}

async fn patch_metadata(
    _req: HttpRequest,
    users: Users,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> HttpResponse {
    let mut users = users.lock().unwrap();
    match users.iter_mut().find(|u| u["id"] == *id) {
        Some(user) => {
            user["public_metadata"] = body["public_metadata"].clone();
            HttpResponse::Ok().json(user.clone())
        }
        None => HttpResponse::NotFound().finish(),
    }
}

async fn app_with_provider(jwks: &JwksServer, api_url: Option<String>) -> TestApp {
    let jwks_url = jwks.url.clone();
    TestApp::spawn_with(move |c| {
        c.idp.jwks_url = Some(jwks_url);
        c.idp.issuer = Some(ISSUER.into());
        c.idp.audience = Some(AUDIENCE.into());
        c.idp.secret_key = api_url.as_ref().map(|_| "sk_test_conformance".to_string());
        c.idp.api_url = api_url;
        c.system_admins = vec!["root".into()];
    })
    .await
}

#[actix_web::test]
async fn identity_provider_user_rows_and_codes() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let provider = start_provider(vec![
        provider_user("user_a", 1_700_000_000_000),
        provider_user("user_b", 1_700_000_100_000),
        provider_user("user_c", 1_700_000_200_000),
    ]);
    let app = app_with_provider(&jwks, Some(provider)).await;
    let site = app.create_site_id("idp").await;
    crate::idp::add_member(&app, &site, "site_admin", "admin").await;
    crate::idp::add_member(&app, &site, "site_editor", "editor").await;
    let admin = user_token("site_admin");

    // GET /idp/users?limit&offset: {data, total_count}; epoch-second timestamps.
    let page = expect_json(app.bearer(Method::GET, "/idp/users?limit=2&offset=1", &admin, None).await, 200).await;
    assert_eq!(page["total_count"], 3);
    let ids: Vec<&str> = page["data"].as_array().unwrap().iter().map(|u| u["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["user_b", "user_c"]);
    let user = &page["data"][0];
    for field in ["id", "email", "name", "image_url", "role", "created_at", "updated_at", "last_sign_in_at"] {
        assert!(user.get(field).is_some(), "identity-provider user has {field}: {user}");
    }
    assert_eq!(
        (user["last_sign_in_at"].as_i64(), user["moderation_status"].as_str()),
        (Some(1_700_000_100), Some("active"))
    );
    assert!(user["moderation_reason"].is_null());

    // GET /idp/users/{id}: one user; unknown and malformed ids.
    let one = expect_json(app.bearer(Method::GET, "/idp/users/user_a", &admin, None).await, 200).await;
    assert_eq!(one["email"], "user_a@example.org");
    assert_problem(app.bearer(Method::GET, "/idp/users/user_zz", &admin, None).await, 404, "IDP_USER_NOT_FOUND").await;
    let res = app.bearer(Method::GET, "/idp/users/a%2Fb", &admin, None).await;
    assert_problem(res, 400, "IDP_INVALID_IDENTIFIER").await;

    // PUT /idp/users/{id}/role: update CMS role; invalid gives IDP_INVALID_ROLE.
    let res = app.bearer(Method::PUT, "/idp/users/user_c/role", &admin, Some(json!({"role": "editor"}))).await;
    assert_eq!(expect_json(res, 200).await["role"], "editor");
    let res = app.bearer(Method::PUT, "/idp/users/user_c/role", &admin, Some(json!({"role": "emperor"}))).await;
    assert_problem(res, 422, "IDP_INVALID_ROLE").await;

    // Not an admin anywhere.
    let res = app.bearer(Method::GET, "/idp/users", &user_token("site_editor"), None).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;

    // No provider API configured: IDP_NOT_CONFIGURED.
    let unconfigured = app_with_provider(&jwks, None).await;
    let res = unconfigured.bearer(Method::GET, "/idp/users", &user_token("root"), None).await;
    assert_problem(res, 500, "IDP_NOT_CONFIGURED").await;

    // A provider that fails every call (404 on this path): IDP_API_FAILED.
    let broken_url = format!("{}/nowhere", jwks.url.trim_end_matches("/.well-known/jwks.json"));
    let broken = app_with_provider(&jwks, Some(broken_url)).await;
    let res = broken.bearer(Method::GET, "/idp/users", &user_token("root"), None).await;
    assert_problem(res, 500, "IDP_API_FAILED").await;
}
