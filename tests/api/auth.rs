use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};
use crate::idp::{app_with_idp, claims, jwk, token, JwksServer};

#[actix_web::test]
async fn missing_and_invalid_api_keys() {
    let app = TestApp::spawn().await;
    let res = app.request(Method::GET, "/sites", None, None).await;
    assert_problem(res, 401, "AUTH_MISSING_CREDENTIALS").await;
    let res = app.get("/sites", "plk_not_a_real_key").await;
    assert_problem(res, 401, "AUTH_API_KEY_INVALID").await;
}

#[actix_web::test]
async fn a_revoked_key_is_refused_at_once() {
    let app = TestApp::spawn().await;
    let res = app.post("/api-keys", &app.admin_key, json!({"name": "temp", "permission": "Read"})).await;
    let created: Value = res.json().await.unwrap();
    let secret = created["key"].as_str().unwrap();
    assert_eq!(app.get("/sites", secret).await.status(), 200);
    let res = app.delete(&format!("/api-keys/{}", created["id"].as_str().unwrap()), &app.admin_key).await;
    assert_eq!(res.status(), 204);
    assert_problem(app.get("/sites", secret).await, 401, "AUTH_API_KEY_INVALID").await;
}

#[actix_web::test]
async fn scoped_keys_stay_in_their_site_for_every_site_resource() {
    let app = TestApp::spawn().await;
    let site_a = app.create_site_id("site-a").await;
    let site_b = app.create_site_id("site-b").await;
    let admin_a = app.create_key("Admin", Some(&site_a)).await;

    assert_eq!(app.get(&format!("/sites/{site_a}"), &admin_a).await.status(), 200);
    for path in [format!("/sites/{site_b}"), format!("/sites/{site_b}/settings"), format!("/sites/{site_b}/locales")] {
        assert_problem(app.get(&path, &admin_a).await, 403, "AUTH_API_KEY_SITE_DENIED").await;
    }
    assert_problem(
        app.put(&format!("/sites/{site_b}"), &admin_a, json!({"name": "pwned"})).await,
        403,
        "AUTH_API_KEY_SITE_DENIED",
    )
    .await;
    assert_problem(
        app.put(&format!("/sites/{site_b}/settings"), &admin_a, json!({"maintenance_mode": true})).await,
        403,
        "AUTH_API_KEY_SITE_DENIED",
    )
    .await;
    assert_problem(app.get("/sites/by-slug/site-b", &admin_a).await, 403, "AUTH_API_KEY_SITE_DENIED").await;

    let listed: Vec<Value> = app.get("/sites", &admin_a).await.json().await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["id"], site_a.as_str());
    let b: Value = app.get(&format!("/sites/{site_b}"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(b["name"], "Site site-b", "site B was not changed");
}

#[actix_web::test]
async fn roles_below_the_requirement_get_insufficient_role() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("roles").await;
    let read = app.create_key("Read", Some(&site)).await;
    let write = app.create_key("Write", None).await;
    assert_eq!(app.get(&format!("/sites/{site}"), &read).await.status(), 200);
    assert_problem(
        app.put(&format!("/sites/{site}"), &read, json!({"name": "x"})).await,
        403,
        "AUTH_INSUFFICIENT_ROLE",
    )
    .await;
    assert_problem(app.get(&format!("/sites/{site}/settings"), &write).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let admin = app.create_key("Admin", None).await;
    assert_problem(app.delete(&format!("/sites/{site}"), &admin).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
}

#[actix_web::test]
async fn bearer_tokens_are_verified_against_the_jwks() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;

    let good = token("rsa_a.pem", "key-a", claims("user_1"));
    let res = app.bearer(Method::GET, "/sites", &good, None).await;
    assert_eq!(res.status(), 200);

    let mut expired = claims("user_1");
    expired["exp"] = json!(chrono::Utc::now().timestamp() - 3600);
    let res = app.bearer(Method::GET, "/sites", &token("rsa_a.pem", "key-a", expired), None).await;
    assert_problem(res, 401, "AUTH_TOKEN_INVALID").await;

    let mut wrong_aud = claims("user_1");
    wrong_aud["aud"] = json!("someone-else");
    let res = app.bearer(Method::GET, "/sites", &token("rsa_a.pem", "key-a", wrong_aud), None).await;
    assert_problem(res, 401, "AUTH_TOKEN_AUDIENCE").await;

    let mut wrong_iss = claims("user_1");
    wrong_iss["iss"] = json!("https://evil.test");
    let res = app.bearer(Method::GET, "/sites", &token("rsa_a.pem", "key-a", wrong_iss), None).await;
    assert_problem(res, 401, "AUTH_TOKEN_ISSUER").await;

    // Signed by a key the provider does not publish, claiming a published kid.
    let forged = token("rsa_b.pem", "key-a", claims("user_1"));
    assert_problem(app.bearer(Method::GET, "/sites", &forged, None).await, 401, "AUTH_TOKEN_INVALID").await;
    assert_problem(app.bearer(Method::GET, "/sites", "not.a.jwt", None).await, 401, "AUTH_TOKEN_INVALID").await;
    let res = app.client.get(app.url("/sites")).header("Authorization", "Basic abc").send().await.unwrap();
    assert_problem(res, 401, "AUTH_TOKEN_INVALID").await;
}

#[actix_web::test]
async fn a_rotated_signing_key_is_picked_up_without_restart() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    assert_eq!(app.bearer(Method::GET, "/sites", &token("rsa_a.pem", "key-a", claims("u")), None).await.status(), 200);
    let rotated = token("rsa_b.pem", "key-b", claims("u"));
    assert_problem(app.bearer(Method::GET, "/sites", &rotated, None).await, 401, "AUTH_TOKEN_INVALID").await;
    jwks.keys.write().unwrap().push(jwk("jwk_b.json"));
    assert_eq!(app.bearer(Method::GET, "/sites", &rotated, None).await.status(), 200);
}

#[actix_web::test]
async fn users_act_through_memberships_and_system_admins_see_all() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &["root_user"]).await;
    let alice = token("rsa_a.pem", "key-a", claims("alice"));
    let bob = token("rsa_a.pem", "key-a", claims("bob"));
    let root = token("rsa_a.pem", "key-a", claims("root_user"));

    let res = app.bearer(Method::POST, "/sites", &alice, Some(json!({"name": "Alice's", "slug": "alice"}))).await;
    assert_eq!(res.status(), 201);
    let site: Value = res.json().await.unwrap();
    let site_id = site["id"].as_str().unwrap();
    let other = app.create_site_id("operator-site").await;

    // Alice owns her site (she may change settings) and sees only it.
    let res = app
        .bearer(Method::PUT, &format!("/sites/{site_id}/settings"), &alice, Some(json!({"analytics_enabled": true})))
        .await;
    assert_eq!(res.status(), 200);
    let mine: Vec<Value> = app.bearer(Method::GET, "/sites", &alice, None).await.json().await.unwrap();
    assert_eq!(mine.iter().map(|s| s["id"].as_str().unwrap()).collect::<Vec<_>>(), [site_id]);
    assert_problem(
        app.bearer(Method::GET, &format!("/sites/{other}"), &alice, None).await,
        403,
        "AUTH_SITE_ACCESS_DENIED",
    )
    .await;

    // Bob is no member anywhere.
    assert_problem(
        app.bearer(Method::GET, &format!("/sites/{site_id}"), &bob, None).await,
        403,
        "AUTH_SITE_ACCESS_DENIED",
    )
    .await;
    let none: Vec<Value> = app.bearer(Method::GET, "/sites", &bob, None).await.json().await.unwrap();
    assert!(none.is_empty());

    // A configured system admin sees and may change every site.
    let all: Vec<Value> = app.bearer(Method::GET, "/sites", &root, None).await.json().await.unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(app.bearer(Method::GET, &format!("/sites/{other}/settings"), &root, None).await.status(), 200);
}

#[actix_web::test]
async fn bearer_tokens_without_an_identity_provider() {
    let app = TestApp::spawn().await;
    let res = app.bearer(Method::GET, "/sites", &token("rsa_a.pem", "key-a", claims("x")), None).await;
    assert_problem(res, 500, "AUTH_IDP_NOT_CONFIGURED").await;
}

#[actix_web::test]
async fn an_api_key_sent_as_a_bearer_token_is_told_where_it_goes() {
    let app = TestApp::spawn().await;
    let res = app.bearer(Method::GET, "/sites", &app.admin_key, None).await;
    let body = assert_problem(res, 401, "AUTH_TOKEN_INVALID").await;
    let detail = body["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("X-API-Key"), "the detail names the header to use: {detail}");
}
