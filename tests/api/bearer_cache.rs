//! Bearer requests are served from memory (verified tokens, moderation records,
//! memberships in the site's state), yet every change takes effect on the very
//! next request on this instance: each test warms the caches first.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};
use crate::idp::{add_member, app_with_idp, create_site_as, jwk, user_token, user_token_at, JwksServer};

async fn warm(app: &TestApp, path: &str, token: &str) {
    for _ in 0..2 {
        let res = app.bearer(Method::GET, path, token, None).await;
        assert_eq!(res.status(), 200, "{path}");
    }
}

#[actix_web::test]
async fn a_removed_membership_is_refused_on_the_next_request() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let (alice, bob) = (user_token("alice"), user_token("bob"));
    let site = create_site_as(&app, &alice, "cached").await;
    add_member(&app, &site, "bob", "editor").await;
    warm(&app, &format!("/sites/{site}"), &bob).await;

    let members: Vec<Value> =
        app.bearer(Method::GET, &format!("/sites/{site}/members"), &alice, None).await.json().await.unwrap();
    let bob_id = members.iter().find(|m| m["idp_user_id"] == "bob").unwrap()["id"].as_str().unwrap().to_string();
    let res = app
        .bearer(Method::PUT, &format!("/sites/{site}/members/{bob_id}"), &alice, Some(json!({"role": "read"})))
        .await;
    assert_eq!(res.status(), 200);
    // Demoted: reading still works, writing no longer does.
    let res = app.bearer(Method::POST, "/blogs", &bob, Some(json!({"site_ids": [site], "title": "x"}))).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;

    let res = app.bearer(Method::DELETE, &format!("/sites/{site}/members/{bob_id}"), &alice, None).await;
    assert_eq!(res.status(), 204);
    assert_problem(
        app.bearer(Method::GET, &format!("/sites/{site}"), &bob, None).await,
        403,
        "AUTH_SITE_ACCESS_DENIED",
    )
    .await;
}

#[actix_web::test]
async fn a_ban_or_suspension_is_refused_on_the_next_request_and_a_lapsed_one_lifts() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &["root"]).await;
    let (root, bob, carol) = (user_token("root"), user_token("bob"), user_token("carol"));
    warm(&app, "/auth/me", &bob).await;
    warm(&app, "/auth/me", &carol).await;

    let res = app.bearer(Method::POST, "/admin/users/bob/ban", &root, Some(json!({"reason": "spam"}))).await;
    assert_eq!(res.status(), 200);
    assert_problem(app.bearer(Method::GET, "/auth/me", &bob, None).await, 403, "ACCOUNT_BANNED").await;

    let suspend = json!({"reason": "cool down", "duration_hours": 1});
    let res = app.bearer(Method::POST, "/admin/users/carol/suspend", &root, Some(suspend)).await;
    assert_eq!(res.status(), 200);
    assert_problem(app.bearer(Method::GET, "/auth/me", &carol, None).await, 403, "ACCOUNT_SUSPENDED").await;
    // The suspension lapses by the app's clock; the token is a fresh one.
    app.clock.advance(chrono::Duration::hours(2));
    let later = user_token_at(&app, "carol");
    assert_eq!(app.bearer(Method::GET, "/auth/me", &later, None).await.status(), 200);
}

#[actix_web::test]
async fn a_remembered_token_is_not_trusted_past_its_expiry() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let bob = user_token("bob");
    warm(&app, "/auth/me", &bob).await;
    app.clock.advance(chrono::Duration::minutes(20));
    assert_problem(app.bearer(Method::GET, "/auth/me", &bob, None).await, 401, "AUTH_TOKEN_INVALID").await;
}
