//! A signed-in user's own settings: preferences, help state, onboarding.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::assert_problem;
use crate::idp::{add_member, app_with_idp, create_site_as, jwk, user_token, JwksServer};

#[actix_web::test]
async fn preferences_start_at_defaults_and_update_partially_per_user() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let (alice, bob) = (user_token("alice"), user_token("bob"));
    let defaults = json!({"autosave_enabled": true, "autosave_debounce_seconds": 3, "language": "en", "theme_id": "default", "page_size": 10});
    let read: Value = app.bearer(Method::GET, "/auth/preferences", &alice, None).await.json().await.unwrap();
    assert_eq!(read, defaults);

    let res =
        app.bearer(Method::PUT, "/auth/preferences", &alice, Some(json!({"page_size": 50, "language": "pt-BR"}))).await;
    assert_eq!(res.status(), 200);
    let updated: Value = res.json().await.unwrap();
    assert_eq!(updated["page_size"], 50);
    assert_eq!(updated["language"], "pt-BR");
    assert_eq!(updated["autosave_debounce_seconds"], 3, "fields not sent keep their value");

    // A second partial update keeps the first one.
    let res = app.bearer(Method::PUT, "/auth/preferences", &alice, Some(json!({"autosave_enabled": false}))).await;
    let updated: Value = res.json().await.unwrap();
    assert_eq!((updated["page_size"].as_i64(), updated["autosave_enabled"].as_bool()), (Some(50), Some(false)));

    // One invalid field refuses the whole update.
    let res =
        app.bearer(Method::PUT, "/auth/preferences", &alice, Some(json!({"page_size": 0, "theme_id": "dark"}))).await;
    let problem = assert_problem(res, 422, "VALIDATION_ERROR").await;
    assert!(problem.to_string().contains("page_size"), "{problem}");
    let read: Value = app.bearer(Method::GET, "/auth/preferences", &alice, None).await.json().await.unwrap();
    assert_eq!((read["page_size"].as_i64(), read["theme_id"].as_str()), (Some(50), Some("default")));

    // Fields the API does not define are ignored and change nothing.
    let res = app.bearer(Method::PUT, "/auth/preferences", &alice, Some(json!({"pagesize": 20}))).await;
    assert_eq!(res.json::<Value>().await.unwrap()["page_size"], 50);

    // Bob's preferences are his own.
    let read: Value = app.bearer(Method::GET, "/auth/preferences", &bob, None).await.json().await.unwrap();
    assert_eq!(read, defaults);

    // API keys have no user to keep preferences for.
    let key = app.create_key("Write", None).await;
    assert_problem(app.get("/auth/preferences", &key).await, 403, "FORBIDDEN").await;
}

#[actix_web::test]
async fn help_state_records_what_was_seen_and_resets() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let alice = user_token("alice");
    let empty = json!({"tour_completed": false, "hotspots_seen": [], "field_help_seen": []});
    let read: Value = app.bearer(Method::GET, "/auth/help-state", &alice, None).await.json().await.unwrap();
    assert_eq!(read, empty);
    for body in [
        json!({"dismiss_hotspot": "editor.toolbar"}),
        json!({"dismiss_hotspot": "editor.toolbar"}),
        json!({"dismiss_hotspot": "sites.switcher", "dismiss_field_help": "blog.slug"}),
        json!({"complete_tour": true}),
    ] {
        assert_eq!(app.bearer(Method::PUT, "/auth/help-state", &alice, Some(body)).await.status(), 200);
    }
    let read: Value = app.bearer(Method::GET, "/auth/help-state", &alice, None).await.json().await.unwrap();
    assert_eq!(
        read,
        json!({"tour_completed": true, "hotspots_seen": ["editor.toolbar", "sites.switcher"], "field_help_seen": ["blog.slug"]})
    );
    let res = app.bearer(Method::DELETE, "/auth/help-state", &alice, None).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap(), empty);
    let read: Value = app.bearer(Method::GET, "/auth/help-state", &alice, None).await.json().await.unwrap();
    assert_eq!(read, empty);
}

#[actix_web::test]
async fn onboarding_completes_once_with_type_and_intents() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let alice = user_token("alice");
    let read: Value = app.bearer(Method::GET, "/auth/onboarding", &alice, None).await.json().await.unwrap();
    assert_eq!(read, json!({"completed": false, "user_type": null, "intents": [], "completed_at": null}));

    let bad = app
        .bearer(
            Method::POST,
            "/auth/onboarding/complete",
            &alice,
            Some(json!({"user_type": "enterprise", "intents": []})),
        )
        .await;
    assert!(bad.status().is_client_error(), "{}", bad.status());

    let body = json!({"user_type": "team", "intents": ["blog", "docs", "blog"]});
    let res = app.bearer(Method::POST, "/auth/onboarding/complete", &alice, Some(body)).await;
    assert_eq!(res.status(), 200);
    let done: Value = res.json().await.unwrap();
    assert_eq!((done["completed"].as_bool(), done["user_type"].as_str()), (Some(true), Some("team")));
    assert_eq!(done["intents"], json!(["blog", "docs"]));
    assert!(done["completed_at"].is_string());
    let read: Value = app.bearer(Method::GET, "/auth/onboarding", &alice, None).await.json().await.unwrap();
    assert_eq!(read, done);

    let key = app.create_key("Write", None).await;
    assert_problem(app.get("/auth/onboarding", &key).await, 400, "ONBOARDING_REQUIRES_IDP").await;
}

#[actix_web::test]
async fn site_onboarding_tracks_each_members_steps() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let (alice, bob, carol) = (user_token("alice"), user_token("bob"), user_token("carol"));
    let site_id = create_site_as(&app, &alice, "onboard").await;
    add_member(&app, &site_id, "bob", "author").await;
    add_member(&app, &site_id, "carol", "read").await;
    let path = format!("/sites/{site_id}/onboarding");

    let fresh: Value = app.bearer(Method::GET, &path, &alice, None).await.json().await.unwrap();
    assert_eq!(fresh, json!({"completed_steps": [], "total_steps": 6, "completed_count": 0, "progress_percent": 0}));

    let res = app.bearer(Method::POST, &format!("{path}/publish_first_content"), &alice, None).await;
    assert_eq!(res.status(), 200);
    let res = app
        .bearer(Method::POST, &format!("{path}/configure_site"), &alice, Some(json!({"step_key": "configure_site"})))
        .await;
    assert_eq!(res.status(), 200);
    let after: Value = res.json().await.unwrap();
    assert_eq!((after["completed_count"].as_u64(), after["progress_percent"].as_u64()), (Some(2), Some(33)));
    let keys: Vec<&str> =
        after["completed_steps"].as_array().unwrap().iter().map(|s| s["step_key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["configure_site", "publish_first_content"], "checklist order");

    // Repeating a completed step is a no-op: same timestamp, same count.
    let again: Value =
        app.bearer(Method::POST, &format!("{path}/configure_site"), &alice, None).await.json().await.unwrap();
    assert_eq!(again, after);

    // Each member has their own progress.
    let bobs: Value = app.bearer(Method::GET, &path, &bob, None).await.json().await.unwrap();
    assert_eq!(bobs["completed_count"], 0);
    assert_eq!(app.bearer(Method::POST, &format!("{path}/configure_site"), &bob, None).await.status(), 200);

    // Errors: unknown step, mismatched body, readers, API keys, outsiders.
    assert_problem(
        app.bearer(Method::POST, &format!("{path}/fly_to_moon"), &alice, None).await,
        404,
        "ENTITY_NOT_FOUND",
    )
    .await;
    let body = json!({"step_key": "set_up_navigation"});
    let mismatch = app.bearer(Method::POST, &format!("{path}/configure_site"), &alice, Some(body)).await;
    assert_problem(mismatch, 422, "VALIDATION_ERROR").await;
    assert_problem(
        app.bearer(Method::POST, &format!("{path}/configure_site"), &carol, None).await,
        403,
        "AUTH_INSUFFICIENT_ROLE",
    )
    .await;
    let key = app.create_key("Write", Some(&site_id)).await;
    assert_problem(app.post(&format!("{path}/configure_site"), &key, json!({})).await, 400, "ONBOARDING_REQUIRES_IDP")
        .await;
    let outsider = user_token("mallory");
    assert_problem(app.bearer(Method::GET, &path, &outsider, None).await, 403, "AUTH_SITE_ACCESS_DENIED").await;

    // An API key sees the site's combined progress.
    let combined: Value = app.get(&path, &key).await.json().await.unwrap();
    assert_eq!(combined["completed_count"], 2);
    assert_eq!(combined["completed_steps"], after["completed_steps"], "earliest completion per step");
}

#[actix_web::test]
async fn deleting_an_account_removes_memberships_and_settings_unless_sole_owner() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let (alice, bob) = (user_token("alice"), user_token("bob"));
    let site_id = create_site_as(&app, &alice, "team").await;
    add_member(&app, &site_id, "bob", "editor").await;
    let prefs = Some(json!({"page_size": 25}));
    assert_eq!(app.bearer(Method::PUT, "/auth/preferences", &bob, prefs).await.status(), 200);
    let step = format!("/sites/{site_id}/onboarding/configure_site");
    assert_eq!(app.bearer(Method::POST, &step, &bob, None).await.status(), 200);

    // The only owner cannot leave; nothing changes.
    let refused =
        assert_problem(app.bearer(Method::DELETE, "/auth/account", &alice, None).await, 409, "AUTH_ACCOUNT_SOLE_OWNER")
            .await;
    assert!(refused["detail"].as_str().unwrap().contains("team"), "{refused}");
    let members = format!("/sites/{site_id}/members");
    let listed: Vec<Value> = app.bearer(Method::GET, &members, &alice, None).await.json().await.unwrap();
    assert_eq!(listed.len(), 2);

    // Bob can: his membership and settings go, the site and Alice stay.
    assert_eq!(app.bearer(Method::DELETE, "/auth/account", &bob, None).await.status(), 204);
    let listed: Vec<Value> = app.bearer(Method::GET, &members, &alice, None).await.json().await.unwrap();
    assert_eq!(listed.len(), 1);
    let memberships: Value = app.bearer(Method::GET, "/my/memberships", &bob, None).await.json().await.unwrap();
    assert_eq!(memberships, json!([]));
    let prefs: Value = app.bearer(Method::GET, "/auth/preferences", &bob, None).await.json().await.unwrap();
    assert_eq!(prefs["page_size"], 10, "back to the defaults");
    let site_progress = format!("/sites/{site_id}/onboarding");
    let combined: Value = app.get(&site_progress, &app.admin_key).await.json().await.unwrap();
    assert_eq!(combined["completed_count"], 0, "his onboarding progress is gone");

    // Once ownership is handed over, Alice can go too.
    add_member(&app, &site_id, "carol", "admin").await;
    let transfer = Some(json!({"idp_user_id": "carol"}));
    let handed = app.bearer(Method::POST, &format!("{members}/transfer-ownership"), &alice, transfer).await;
    assert_eq!(handed.status(), 200);
    assert_eq!(app.bearer(Method::DELETE, "/auth/account", &alice, None).await.status(), 204);

    // API keys are not accounts.
    assert_problem(app.delete("/auth/account", &app.admin_key).await, 403, "FORBIDDEN").await;
}

#[actix_web::test]
async fn profile_and_export_hold_the_callers_own_data_only() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let (alice, bob) = (user_token("alice"), user_token("bob"));
    let profile: Value = app.bearer(Method::GET, "/auth/profile", &alice, None).await.json().await.unwrap();
    assert_eq!((profile["id"].as_str(), profile["auth_method"].as_str()), (Some("alice"), Some("jwt")));
    assert_eq!(profile["email"], "alice@example.org");
    assert!(profile["signed_in_at"].is_string() && profile["session_expires_at"].is_string(), "{profile}");
    // The permission `GET /auth/me` answers, and a user's role beside the sites'.
    assert_eq!((profile["permission"].as_str(), profile["role"].as_str()), (Some("Read"), Some("user")));

    let site_id = create_site_as(&app, &alice, "export").await;
    let blog: Value = app
        .bearer(Method::POST, "/blogs", &alice, Some(json!({"site_ids": [site_id], "title": "First"})))
        .await
        .json()
        .await
        .unwrap();
    let blog_id = blog["id"].as_str().unwrap();
    let renamed = Some(json!({"title": "Second"}));
    assert_eq!(app.bearer(Method::PUT, &format!("/blogs/{blog_id}"), &alice, renamed).await.status(), 200);
    let key_body = Some(json!({"name": "deploy", "permission": "Read", "site_id": site_id}));
    let created: Value = app.bearer(Method::POST, "/api-keys", &alice, key_body).await.json().await.unwrap();
    let secret = created["key"].as_str().expect("the secret is shown once").to_string();
    let prefs = Some(json!({"theme_id": "dark"}));
    assert_eq!(app.bearer(Method::PUT, "/auth/preferences", &alice, prefs).await.status(), 200);

    let res = app.bearer(Method::GET, "/auth/export", &alice, None).await;
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-disposition"].to_str().unwrap().starts_with("attachment"));
    let export: Value = res.json().await.unwrap();
    assert_eq!(export["profile"]["id"], "alice");
    assert_eq!(export["memberships"][0]["site_slug"], "export");
    assert_eq!(export["preferences"]["theme_id"], "dark");
    let keys = export["api_keys"].as_array().unwrap();
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0]["name"], "deploy");
    assert!(!export.to_string().contains(&secret), "no secrets in the export");
    let actions: Vec<(String, String)> = export["audit_logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["entity_type"].as_str().unwrap().to_string(), e["action"].as_str().unwrap().to_string()))
        .collect();
    assert!(actions.contains(&("site".into(), "create".into())), "{actions:?}");
    let title_change = export["change_history"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["changes"].as_array().unwrap().clone())
        .find(|change| change["field"] == "title" && change["new"] == "Second");
    assert_eq!(title_change.expect("the rename is in the change history")["old"], "First");

    // Bob's export has none of it.
    let theirs: Value = app.bearer(Method::GET, "/auth/export", &bob, None).await.json().await.unwrap();
    assert_eq!(theirs["profile"]["id"], "bob");
    assert_eq!(
        (theirs["memberships"].clone(), theirs["api_keys"].clone(), theirs["audit_logs"].clone()),
        (json!([]), json!([]), json!([]))
    );

    // A key's profile and export describe the key.
    let key = app.create_key("Write", Some(&site_id)).await;
    let key_profile: Value = app.get("/auth/profile", &key).await.json().await.unwrap();
    assert_eq!(key_profile["auth_method"], "api_key");
    // A Write key edits as an editor (the permission table's role).
    assert_eq!((key_profile["permission"].as_str(), key_profile["role"].as_str()), (Some("Write"), Some("editor")));
    assert!(key_profile["created_at"].is_string());
    let key_export: Value = app.get("/auth/export", &key).await.json().await.unwrap();
    assert_eq!(key_export["api_keys"][0]["id"], key_profile["id"]);
    assert_eq!(key_export["preferences"], Value::Null);
}

#[actix_web::test]
async fn account_endpoints_refuse_bad_bodies_and_api_keys_with_their_codes() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &["root"]).await;
    let alice = user_token("alice");
    let site_id = create_site_as(&app, &alice, "bodies").await;
    let step = app.url(&format!("/sites/{site_id}/onboarding/configure_site"));
    let send_raw = |body: &'static str| {
        app.client.post(step.clone()).bearer_auth(&alice).header("content-type", "application/json").body(body).send()
    };
    assert_problem(send_raw("{not json").await.unwrap(), 400, "BAD_REQUEST").await;
    assert_problem(send_raw(r#"{"step_key": 7}"#).await.unwrap(), 422, "VALIDATION_ERROR").await;
    assert_eq!(send_raw("").await.unwrap().status(), 200, "the body is optional");

    // Settings belong to users; keys are refused.
    let key = app.create_key("Write", None).await;
    for path in ["/auth/help-state", "/auth/preferences"] {
        assert_problem(app.get(path, &key).await, 403, "FORBIDDEN").await;
    }
    assert_problem(app.put("/auth/help-state", &key, json!({"complete_tour": true})).await, 403, "FORBIDDEN").await;

    // A ban cannot be repeated or turned into a suspension.
    let root = user_token("root");
    let ban = Some(json!({"reason": "spam"}));
    assert_eq!(app.bearer(Method::POST, "/admin/users/mallory/ban", &root, ban.clone()).await.status(), 200);
    assert_problem(app.bearer(Method::POST, "/admin/users/mallory/ban", &root, ban).await, 400, "BAD_REQUEST").await;
    let suspend = Some(json!({"reason": "spam", "duration_hours": 2}));
    let res = app.bearer(Method::POST, "/admin/users/mallory/suspend", &root, suspend).await;
    assert_problem(res, 400, "BAD_REQUEST").await;
}

#[actix_web::test]
async fn the_origin_admin_keeps_help_onboarding_and_its_checklist_at_its_paths() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let (alice, bob) = (user_token("alice"), user_token("bob"));

    // Help state: PATCH with `tour_completed` (both ways), POST …/reset.
    for body in [json!({"dismiss_hotspot": "dashboard_site_selector"}), json!({"tour_completed": true})] {
        assert_eq!(app.bearer(Method::PATCH, "/auth/help-state", &alice, Some(body)).await.status(), 200);
    }
    let read: Value = app.bearer(Method::GET, "/auth/help-state", &alice, None).await.json().await.unwrap();
    assert_eq!(
        (read["tour_completed"].as_bool(), read["hotspots_seen"].clone()),
        (Some(true), json!(["dashboard_site_selector"]))
    );
    let res = app.bearer(Method::PATCH, "/auth/help-state", &alice, Some(json!({"tour_completed": false}))).await;
    assert_eq!(res.json::<Value>().await.unwrap()["tour_completed"], false, "the origin can take the tour again");
    let res = app.bearer(Method::POST, "/auth/help-state/reset", &alice, None).await;
    assert_eq!(res.status(), 200);
    assert_eq!(
        res.json::<Value>().await.unwrap(),
        json!({"tour_completed": false, "hotspots_seen": [], "field_help_seen": []})
    );

    // Onboarding survey: PUT /auth/onboarding.
    let res = app
        .bearer(Method::PUT, "/auth/onboarding", &alice, Some(json!({"user_type": "solo", "intents": ["portfolio"]})))
        .await;
    assert_eq!(res.status(), 200);
    let read: Value = app.bearer(Method::GET, "/auth/onboarding", &alice, None).await.json().await.unwrap();
    assert_eq!((read["completed"].as_bool(), read["intents"].clone()), (Some(true), json!(["portfolio"])));
    let key = app.create_key("Master", None).await;
    let res = app.put("/auth/onboarding", &key, json!({"user_type": "solo", "intents": []})).await;
    assert_problem(res, 400, "ONBOARDING_REQUIRES_IDP").await;

    // The origin's checklist: five steps for one member, its own keys, kept
    // apart from Plinth's checklist.
    let site_id = create_site_as(&app, &alice, "origin-onboard").await;
    let path = format!("/sites/{site_id}/onboarding-progress");
    let read: Value = app.bearer(Method::GET, &path, &alice, None).await.json().await.unwrap();
    assert_eq!(read, json!({"completed_steps": [], "total_steps": 5, "completed_count": 0, "progress_percent": 0}));
    let res = app.bearer(Method::PUT, &path, &alice, Some(json!({"step_key": "edit_first_post"}))).await;
    assert_eq!(res.status(), 200);
    let done: Value = res.json().await.unwrap();
    assert_eq!((done["completed_count"].as_u64(), done["progress_percent"].as_u64()), (Some(1), Some(20)));
    assert_eq!(done["completed_steps"][0]["step_key"], "edit_first_post");
    let again: Value = app
        .bearer(Method::PUT, &path, &alice, Some(json!({"step_key": "edit_first_post"})))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(again, done, "repeating a step changes nothing");
    let plinth: Value =
        app.bearer(Method::GET, &format!("/sites/{site_id}/onboarding"), &alice, None).await.json().await.unwrap();
    assert_eq!(plinth["completed_count"], 0, "the spec's checklist counts its own steps");
    assert_problem(
        app.bearer(Method::PUT, &path, &alice, Some(json!({"step_key": "configure_site"}))).await,
        404,
        "ENTITY_NOT_FOUND",
    )
    .await;
    assert_problem(app.bearer(Method::PUT, &path, &alice, Some(json!({}))).await, 422, "VALIDATION_ERROR").await;

    // A team shows seven steps; a read member ticks off their own; strangers
    // and API keys cannot.
    let invite = json!({"idp_user_id": "bob", "role": "read"});
    let res = app.bearer(Method::POST, &format!("/sites/{site_id}/members"), &alice, Some(invite)).await;
    assert_eq!(res.status(), 201);
    let res = app.bearer(Method::PUT, &path, &bob, Some(json!({"step_key": "invite_team"}))).await;
    assert_eq!(res.status(), 200);
    let bobs: Value = res.json().await.unwrap();
    assert_eq!((bobs["total_steps"].as_u64(), bobs["completed_count"].as_u64()), (Some(7), Some(1)));
    let alices: Value = app.bearer(Method::GET, &path, &alice, None).await.json().await.unwrap();
    assert_eq!((alices["total_steps"].as_u64(), alices["completed_count"].as_u64()), (Some(7), Some(1)));
    assert_eq!(alices["completed_steps"][0]["step_key"], "edit_first_post");
    let stranger = user_token("mallory");
    assert_problem(app.bearer(Method::GET, &path, &stranger, None).await, 403, "AUTH_SITE_ACCESS_DENIED").await;
    let res = app.put(&path, &key, json!({"step_key": "preview_site"})).await;
    assert_problem(res, 400, "ONBOARDING_REQUIRES_IDP").await;
}
