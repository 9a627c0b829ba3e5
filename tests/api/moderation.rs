//! System admins suspend, ban, unsuspend and delete users.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::assert_problem;
use crate::idp::{app_with_idp, create_site_as, jwk, user_token, JwksServer};

#[actix_web::test]
async fn suspension_blocks_every_call_until_lifted_or_expired_and_bans_stick() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &["root"]).await;
    let (root, alice, bob) = (user_token("root"), user_token("alice"), user_token("bob"));
    let suspend = |hours: i64| Some(json!({"reason": "spam", "duration_hours": hours}));

    // Only system admins (or Master keys) moderate.
    let res = app.bearer(Method::POST, "/admin/users/alice/suspend", &bob, suspend(24)).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
    for bad in [json!({"reason": "spam", "duration_hours": 0}), json!({"reason": " ", "duration_hours": 1})] {
        let res = app.bearer(Method::POST, "/admin/users/alice/suspend", &root, Some(bad)).await;
        assert_problem(res, 422, "VALIDATION_ERROR").await;
    }

    let res = app.bearer(Method::POST, "/admin/users/alice/suspend", &root, suspend(24)).await;
    assert_eq!(res.status(), 200);
    let result: Value = res.json().await.unwrap();
    assert_eq!((result["idp_user_id"].as_str(), result["status"].as_str()), (Some("alice"), Some("suspended")));
    assert_eq!(result["reason"], "spam");
    assert!(result["expires_at"].is_string());
    assert_problem(app.bearer(Method::GET, "/auth/me", &alice, None).await, 403, "ACCOUNT_SUSPENDED").await;
    assert_eq!(app.bearer(Method::GET, "/auth/me", &bob, None).await.status(), 200, "others are unaffected");

    // A suspension lapses by itself on the next request after it ends.
    app.clock.advance(chrono::Duration::hours(25));
    let root = crate::idp::user_token_at(&app, "root");
    let alice = crate::idp::user_token_at(&app, "alice");
    assert_eq!(app.bearer(Method::GET, "/auth/me", &alice, None).await.status(), 200);

    // Lifted early by unsuspend.
    app.bearer(Method::POST, "/admin/users/alice/suspend", &root, suspend(2)).await;
    let res = app.bearer(Method::POST, "/admin/users/alice/unsuspend", &root, None).await;
    assert_eq!(res.json::<Value>().await.unwrap()["status"], "active");
    assert_eq!(app.bearer(Method::GET, "/auth/me", &alice, None).await.status(), 200);

    // Bans have no end; unsuspend cannot lift them; a Master key may ban too.
    let master = app.create_key("Master", None).await;
    let res = app.post("/admin/users/alice/ban", &master, json!({"reason": "fraud"})).await;
    let banned: Value = res.json().await.unwrap();
    assert_eq!((banned["status"].as_str(), banned["expires_at"].as_str()), (Some("banned"), None));
    assert_problem(app.bearer(Method::GET, "/auth/me", &alice, None).await, 403, "ACCOUNT_BANNED").await;
    let res = app.bearer(Method::POST, "/admin/users/alice/unsuspend", &root, None).await;
    assert_problem(res, 400, "BAD_REQUEST").await;
    app.clock.advance(chrono::Duration::days(400));
    let alice = crate::idp::user_token_at(&app, "alice");
    assert_problem(app.bearer(Method::GET, "/auth/me", &alice, None).await, 403, "ACCOUNT_BANNED").await;
}

#[actix_web::test]
async fn only_banned_users_can_be_deleted_and_deletion_removes_their_traces() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &["root"]).await;
    let (root, alice) = (user_token("root"), user_token("alice"));
    let site_id = create_site_as(&app, &root, "shared").await;
    let add = Some(json!({"idp_user_id": "alice", "role": "author"}));
    assert_eq!(app.bearer(Method::POST, &format!("/sites/{site_id}/members"), &root, add).await.status(), 201);
    let blog: Value = app
        .bearer(Method::POST, "/blogs", &alice, Some(json!({"site_ids": [site_id], "title": "Hers"})))
        .await
        .json()
        .await
        .unwrap();

    let res = app.bearer(Method::DELETE, "/admin/users/alice", &root, None).await;
    assert_problem(res, 400, "BAD_REQUEST").await;
    app.bearer(Method::POST, "/admin/users/alice/ban", &root, Some(json!({"reason": "fraud"}))).await;
    let res = app.bearer(Method::DELETE, "/admin/users/alice", &root, None).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap()["status"], "deleted");

    let members: Vec<Value> =
        app.bearer(Method::GET, &format!("/sites/{site_id}/members"), &root, None).await.json().await.unwrap();
    assert!(members.iter().all(|m| m["idp_user_id"] != "alice"), "{members:?}");
    let id: uuid::Uuid = blog["id"].as_str().unwrap().parse().unwrap();
    use sea_orm::EntityTrait;
    let kept =
        plinth_entities::content::Entity::find_by_id(id).one(&app.state.db).await.unwrap().expect("content stays");
    assert_eq!(kept.created_by, None, "no longer attributed");
    assert!(plinth_entities::user_moderation::Entity::find_by_id("alice".to_string())
        .one(&app.state.db)
        .await
        .unwrap()
        .is_none());
}
