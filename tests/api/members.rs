use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::assert_problem;
use crate::idp::{app_with_idp, create_site_as, jwk, user_token, JwksServer};

#[actix_web::test]
async fn a_user_creates_a_site_invites_changes_roles_transfers_and_leaves() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let (alice, carol, dave, eve) = (user_token("alice"), user_token("carol"), user_token("dave"), user_token("eve"));
    let site_id = &create_site_as(&app, &alice, "team").await;
    let members = format!("/sites/{site_id}/members");
    let add = |who: &str, role: &str| json!({"idp_user_id": who, "role": role});

    assert_eq!(app.bearer(Method::POST, &members, &alice, Some(add("bob", "editor"))).await.status(), 201);
    assert_eq!(app.bearer(Method::POST, &members, &alice, Some(add("carol", "Admin"))).await.status(), 201);
    // Carol administers the site, but only the owner hands out admin.
    assert_problem(
        app.bearer(Method::POST, &members, &carol, Some(add("dave", "admin"))).await,
        403,
        "MEMBER_ROLE_OWNER_REQUIRED",
    )
    .await;
    let res = app.bearer(Method::POST, &members, &carol, Some(add("dave", "author"))).await;
    let dave_member: Value = res.json().await.unwrap();
    assert_problem(
        app.bearer(Method::POST, &members, &carol, Some(add("dave", "read"))).await,
        409,
        "MEMBER_ALREADY_EXISTS",
    )
    .await;
    assert_problem(app.bearer(Method::POST, &members, &carol, Some(add("x", "boss"))).await, 422, "VALIDATION_ERROR")
        .await;

    let listed: Vec<Value> = app.bearer(Method::GET, &members, &alice, None).await.json().await.unwrap();
    let roles: Vec<(&str, &str)> =
        listed.iter().map(|m| (m["idp_user_id"].as_str().unwrap(), m["role"].as_str().unwrap())).collect();
    assert_eq!(roles, [("alice", "owner"), ("bob", "editor"), ("carol", "admin"), ("dave", "author")]);
    let member_id =
        |who: &str| listed.iter().find(|m| m["idp_user_id"] == who).unwrap()["id"].as_str().unwrap().to_string();

    let res = app
        .bearer(Method::PUT, &format!("{members}/{}", member_id("bob")), &carol, Some(json!({"role": "admin"})))
        .await;
    assert_problem(res, 403, "MEMBER_ROLE_OWNER_REQUIRED").await;
    let res = app
        .bearer(
            Method::PUT,
            &format!("{members}/{}", dave_member["id"].as_str().unwrap()),
            &carol,
            Some(json!({"role": "reviewer"})),
        )
        .await;
    assert_eq!(res.json::<Value>().await.unwrap()["role"], "reviewer");
    assert_problem(
        app.bearer(Method::DELETE, &format!("{members}/{}", member_id("alice")), &carol, None).await,
        403,
        "MEMBER_CANNOT_REMOVE_OWNER",
    )
    .await;
    assert_problem(
        app.bearer(Method::DELETE, &format!("{members}/{}", member_id("alice")), &alice, None).await,
        403,
        "SITE_OWNER_CANNOT_LEAVE",
    )
    .await;
    assert_problem(app.bearer(Method::GET, &members, &eve, None).await, 403, "AUTH_SITE_ACCESS_DENIED").await;

    // Dave leaves by himself; Alice hands the site to Bob and stays as admin.
    assert_eq!(
        app.bearer(Method::DELETE, &format!("{members}/{}", dave_member["id"].as_str().unwrap()), &dave, None)
            .await
            .status(),
        204
    );
    let res = app
        .bearer(Method::POST, &format!("{members}/transfer-ownership"), &carol, Some(json!({"idp_user_id": "bob"})))
        .await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let res = app
        .bearer(Method::POST, &format!("{members}/transfer-ownership"), &alice, Some(json!({"idp_user_id": "bob"})))
        .await;
    assert_eq!(res.status(), 200);
    let mine: Vec<Value> = app.bearer(Method::GET, "/my/memberships", &alice, None).await.json().await.unwrap();
    assert_eq!(mine, [json!({"site_id": site_id, "site_name": "team", "site_slug": "team", "role": "admin"})]);
    assert_eq!(
        app.bearer(Method::DELETE, &format!("{members}/{}", member_id("alice")), &alice, None).await.status(),
        204,
        "no longer owner, Alice may leave"
    );
    assert_problem(app.get("/my/memberships", &app.admin_key).await, 400, "MEMBER_REQUIRES_IDP_AUTH").await;
    let bob = user_token("bob");
    assert_eq!(
        app.bearer(Method::DELETE, &format!("/sites/{site_id}"), &bob, None).await.status(),
        204,
        "the new owner may delete the site"
    );
}

#[actix_web::test]
async fn auth_me_describes_keys_and_users() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &["root"]).await;
    let site = app.create_site_id("me").await;
    let key = app.create_key("Write", Some(&site)).await;
    let me: Value = app.get("/auth/me", &key).await.json().await.unwrap();
    assert_eq!(
        me,
        json!({"permission": "Write", "site_id": site, "auth_method": "api_key", "idp_user_id": null, "memberships": null, "is_system_admin": null})
    );
    let alice = user_token("alice");
    let created: Value = app
        .bearer(Method::POST, "/sites", &alice, Some(json!({"name": "Mine", "slug": "mine"})))
        .await
        .json()
        .await
        .unwrap();
    let me: Value = app.bearer(Method::GET, "/auth/me", &alice, None).await.json().await.unwrap();
    assert_eq!(
        (me["auth_method"].as_str(), me["idp_user_id"].as_str(), me["is_system_admin"].as_bool()),
        (Some("jwt"), Some("alice"), Some(false))
    );
    // A user's permission is a string, as the spec types it: the baseline
    // `Read` (an owner's rights are in `memberships`), `Master` for a system admin.
    assert_eq!(me["permission"], "Read");
    assert_eq!(
        me["memberships"],
        json!([{"site_id": created["id"], "site_name": "Mine", "site_slug": "mine", "role": "owner"}])
    );
    let root: Value = app.bearer(Method::GET, "/auth/me", &user_token("root"), None).await.json().await.unwrap();
    assert_eq!((&root["is_system_admin"], &root["permission"]), (&json!(true), &json!("Master")));
}

#[actix_web::test]
async fn a_deleted_site_is_restorable_for_thirty_days_with_its_content() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let alice = user_token("alice");
    let id = &create_site_as(&app, &alice, "keep").await;
    app.bearer(Method::POST, "/blogs", &alice, Some(json!({"site_ids": [id], "title": "Still here"}))).await;
    app.bearer(
        Method::POST,
        &format!("/sites/{id}/members"),
        &alice,
        Some(json!({"idp_user_id": "bob", "role": "editor"})),
    )
    .await;
    let context: Value =
        app.bearer(Method::GET, &format!("/sites/{id}/context"), &alice, None).await.json().await.unwrap();
    assert_eq!((context["member_count"].as_u64(), context["current_user_role"].as_str()), (Some(2), Some("owner")));
    assert_eq!(context["suggestions"]["show_team_workflow_prompt"], true);
    assert_eq!(
        context["modules"],
        json!({"blog": true, "pages": true, "portfolio": false, "legal": false, "documents": false, "ai": false})
    );

    assert_eq!(app.bearer(Method::DELETE, &format!("/sites/{id}"), &alice, None).await.status(), 204);
    let admin = app.create_key("Admin", None).await;
    assert_problem(app.post(&format!("/sites/{id}/restore"), &admin, json!({})).await, 403, "AUTH_INSUFFICIENT_ROLE")
        .await;
    app.clock.advance(chrono::Duration::days(29));
    let alice = crate::idp::user_token_at(&app, "alice");
    let restored = app.bearer(Method::POST, &format!("/sites/{id}/restore"), &alice, Some(json!({}))).await;
    assert_eq!(restored.status(), 200);
    let posts: Value = app.bearer(Method::GET, &format!("/sites/{id}/blogs"), &alice, None).await.json().await.unwrap();
    assert_eq!(posts["data"][0]["title"], "Still here");
    let members: Vec<Value> =
        app.bearer(Method::GET, &format!("/sites/{id}/members"), &alice, None).await.json().await.unwrap();
    assert_eq!(members.len(), 2);

    assert_eq!(app.bearer(Method::DELETE, &format!("/sites/{id}"), &alice, None).await.status(), 204);
    app.clock.advance(chrono::Duration::days(31));
    let alice = crate::idp::user_token_at(&app, "alice");
    assert_problem(
        app.bearer(Method::POST, &format!("/sites/{id}/restore"), &alice, Some(json!({}))).await,
        410,
        "SITE_RESTORE_EXPIRED",
    )
    .await;
    let unknown = uuid::Uuid::new_v4();
    assert_problem(
        app.post(&format!("/sites/{unknown}/restore"), &app.admin_key, json!({})).await,
        404,
        "ENTITY_NOT_FOUND",
    )
    .await;
}

#[actix_web::test]
async fn the_origin_admin_changes_roles_and_hands_over_a_site_at_its_paths() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let (alice, bob) = (user_token("alice"), user_token("bob"));
    let site_id = &create_site_as(&app, &alice, "origin-team").await;
    let members = format!("/sites/{site_id}/members");
    let res = app.bearer(Method::POST, &members, &alice, Some(json!({"idp_user_id": "bob", "role": "author"}))).await;
    let bob_member: Value = res.json().await.unwrap();
    let bob_id = bob_member["id"].as_str().unwrap();

    // UpdateMemberRoleRequest at /members/{id}/role: the same rules as the spec's path.
    let role_path = format!("{members}/{bob_id}/role");
    let res = app.bearer(Method::PUT, &role_path, &alice, Some(json!({"role": "Editor"}))).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap()["role"], "editor");
    let res = app.bearer(Method::PUT, &role_path, &bob, Some(json!({"role": "admin"}))).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;

    // TransferOwnershipRequest names the new owner `new_owner_clerk_user_id`.
    let transfer = format!("/sites/{site_id}/transfer-ownership");
    let res = app.bearer(Method::POST, &transfer, &alice, Some(json!({"new_owner_clerk_user_id": "bob"}))).await;
    assert_eq!(res.status(), 200);
    let listed: Vec<Value> = app.bearer(Method::GET, &members, &bob, None).await.json().await.unwrap();
    let roles: Vec<(&str, &str)> =
        listed.iter().map(|m| (m["idp_user_id"].as_str().unwrap(), m["role"].as_str().unwrap())).collect();
    assert_eq!(roles, [("alice", "admin"), ("bob", "owner")]);
}
