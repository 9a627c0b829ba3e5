//! Spec "Endpoints › Sites" and "States › Site lifecycle".

use reqwest::Method;
use serde_json::{json, Value};

use super::{expect_json, expect_status, locale_id, s};
use crate::helpers::{assert_problem, TestApp};
use crate::idp::{app_with_idp, jwk, user_token, JwksServer};

const SITE_FIELDS: [&str; 10] = [
    "id",
    "name",
    "slug",
    "description",
    "base_url",
    "is_active",
    "created_at",
    "updated_at",
    "logo_url",
    "favicon_url",
];

fn assert_site(site: &Value) {
    for field in SITE_FIELDS {
        assert!(site.get(field).is_some(), "Site has {field}: {site}");
    }
    assert!(site.get("deleted_at").is_none(), "deleted_at only in the deleted list: {site}");
}

#[actix_web::test]
async fn site_crud_lifecycle_and_create_errors_with_api_keys() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;

    // POST /sites: body Site create; 201.
    let body =
        json!({"name": "Docs", "slug": "docs", "description": "Handbook", "base_url": "https://docs.example.org"});
    let site = expect_json(app.post("/sites", key, body.clone()).await, 201).await;
    assert_site(&site);
    assert_eq!(
        (site["name"].as_str(), site["slug"].as_str(), site["description"].as_str(), site["is_active"].as_bool()),
        (Some("Docs"), Some("docs"), Some("Handbook"), Some(true))
    );
    assert!(site["base_url"].as_str().unwrap().starts_with("https://docs.example.org"));
    let id = s(&site, "id");

    // Create errors: slug taken, locales, scoped key, non-admin key.
    let taken = assert_problem(app.post("/sites", key, body).await, 409, "ENTITY_SLUG_TAKEN").await;
    assert_eq!(taken["entity_type"], "site");
    let (en, de) = (locale_id(&app, "en").await, locale_id(&app, "de").await);
    let two_defaults = json!({"name": "L", "slug": "l", "description": "", "base_url": null, "locales": [
        {"locale_id": en, "is_default": true, "url_prefix": ""},
        {"locale_id": de, "is_default": true, "url_prefix": "de"}
    ]});
    assert_problem(app.post("/sites", key, two_defaults).await, 400, "SITE_CREATE_INVALID_LOCALES").await;
    let scoped = app.create_key("Admin", Some(&id)).await;
    let writer = app.create_key("Write", None).await;
    let other = json!({"name": "Other", "slug": "other", "description": "", "base_url": null});
    assert_problem(app.post("/sites", &scoped, other.clone()).await, 403, "SITE_CREATE_SCOPED_KEY").await;
    assert_problem(app.post("/sites", &writer, other.clone()).await, 403, "SITE_CREATE_REQUIRES_ADMIN").await;
    let admin = app.create_key("Admin", None).await;
    expect_json(app.post("/sites", &admin, other).await, 201).await;

    // GET /sites: 200 array of Site; keys see the sites in their scope.
    let all = expect_json(app.get("/sites", key).await, 200).await;
    assert_eq!(all.as_array().unwrap().len(), 2);
    all.as_array().unwrap().iter().for_each(assert_site);
    let scoped_list = expect_json(app.get("/sites", &scoped).await, 200).await;
    assert_eq!(scoped_list.as_array().unwrap().iter().map(|s| s["id"].clone()).collect::<Vec<_>>(), [json!(id)]);

    // GET /sites/{id}, GET /sites/by-slug/{slug}: 200 Site.
    let by_id = expect_json(app.get(&format!("/sites/{id}"), key).await, 200).await;
    assert_site(&by_id);
    let by_slug = expect_json(app.get("/sites/by-slug/docs", key).await, 200).await;
    assert_eq!(by_slug, by_id);

    // PUT /sites/{id}: all optional; only the given field changes.
    let updated = expect_json(app.put(&format!("/sites/{id}"), key, json!({"description": "New"})).await, 200).await;
    assert_eq!((updated["description"].as_str(), updated["name"].as_str()), (Some("New"), Some("Docs")));

    // GET /sites/{id}/context: 200 site context.
    let context = expect_json(app.get(&format!("/sites/{id}/context"), key).await, 200).await;
    assert!(context["member_count"].is_u64() && context["current_user_role"].is_string(), "{context}");
    for flag in ["editorial_workflow", "scheduling", "versioning", "analytics"] {
        assert!(context["features"][flag].is_boolean(), "features.{flag}: {context}");
    }
    assert!(context["suggestions"]["show_team_workflow_prompt"].is_boolean());
    assert_eq!(
        context["modules"],
        json!({"blog": true, "pages": true, "portfolio": false, "legal": false, "documents": false, "ai": false})
    );

    // POST /sites/{id}/reset-content: Owner; 200 reset counts.
    expect_json(app.post("/blogs", key, json!({"site_ids": [id], "title": "Post"})).await, 201).await;
    let res = app.request(Method::POST, &format!("/sites/{id}/reset-content"), Some(key), None).await;
    let counts = expect_json(res, 200).await;
    assert_eq!(
        counts,
        json!({"contents": 1, "legal_documents": 0, "documents": 0, "social_links": 0, "navigation_menus": 0,
               "navigation_items": 0, "media_files": 0, "total": 1})
    );

    // DELETE /sites/{id}: Owner; 204. One 403 for the section: an Admin key is no owner.
    assert_problem(app.delete(&format!("/sites/{id}"), &admin).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
    expect_status(&app.delete(&format!("/sites/{id}"), key).await, 204);

    // GET /sites/deleted: each with deleted_at.
    let deleted = expect_json(app.get("/sites/deleted", key).await, 200).await;
    let deleted = deleted.as_array().unwrap();
    assert_eq!(deleted.len(), 1);
    assert_eq!(deleted[0]["id"], id.as_str());
    assert!(deleted[0]["deleted_at"].is_string());

    // POST /sites/{id}/restore: 200 Site; 404 if none; 410 after 30 days.
    let restore = format!("/sites/{id}/restore");
    let restored = expect_json(app.request(Method::POST, &restore, Some(key), None).await, 200).await;
    assert_site(&restored);
    assert_eq!(restored["id"], id.as_str());
    let res = app.request(Method::POST, &format!("/sites/{}/restore", uuid::Uuid::new_v4()), Some(key), None).await;
    assert_problem(res, 404, "ENTITY_NOT_FOUND").await;
    expect_status(&app.delete(&format!("/sites/{id}"), key).await, 204);
    app.clock.advance(chrono::Duration::days(31));
    let res = app.request(Method::POST, &restore, Some(key), None).await;
    assert_problem(res, 410, "SITE_RESTORE_EXPIRED").await;

    // soft-deleted --background worker, 30 days elapsed--> hard-deleted.
    app.advance_and_run_janitor(chrono::Duration::minutes(1)).await;
    assert_eq!(expect_json(app.get("/sites/deleted", key).await, 200).await, json!([]));
    let res = app.request(Method::POST, &restore, Some(key), None).await;
    assert_problem(res, 404, "ENTITY_NOT_FOUND").await;
}

#[actix_web::test]
async fn a_jwt_user_creates_owns_onboards_and_a_system_admin_restores() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &["root"]).await;
    let (alice, bob, root) = (user_token("alice"), user_token("bob"), user_token("root"));

    // POST /sites by any JWT user: 201; the creator becomes owner.
    let body = json!({"name": "Alice", "slug": "alice", "description": "", "base_url": null});
    let site = expect_json(app.bearer(Method::POST, "/sites", &alice, Some(body)).await, 201).await;
    let id = s(&site, "id");
    let mine = expect_json(app.bearer(Method::GET, "/my/memberships", &alice, None).await, 200).await;
    assert_eq!(mine, json!([{"site_id": id, "site_name": "Alice", "site_slug": "alice", "role": "owner"}]));

    // GET /sites: members see their sites, others none, system admins all.
    app.create_site_id("operator").await;
    let listed = expect_json(app.bearer(Method::GET, "/sites", &alice, None).await, 200).await;
    assert_eq!(listed.as_array().unwrap().len(), 1);
    let none = expect_json(app.bearer(Method::GET, "/sites", &bob, None).await, 200).await;
    assert_eq!(none, json!([]));
    let every = expect_json(app.bearer(Method::GET, "/sites", &root, None).await, 200).await;
    assert_eq!(every.as_array().unwrap().len(), 2);
    assert_problem(app.bearer(Method::GET, &format!("/sites/{id}"), &bob, None).await, 403, "AUTH_SITE_ACCESS_DENIED")
        .await;
    let context = expect_json(app.bearer(Method::GET, &format!("/sites/{id}/context"), &alice, None).await, 200).await;
    assert_eq!((context["current_user_role"].as_str(), context["member_count"].as_u64()), (Some("owner"), Some(1)));

    // GET /sites/{site_id}/onboarding; POST …/onboarding/{step} body {step_key}.
    let progress = format!("/sites/{id}/onboarding");
    let fresh = expect_json(app.bearer(Method::GET, &progress, &alice, None).await, 200).await;
    assert_eq!((fresh["completed_steps"].clone(), fresh["completed_count"].as_u64()), (json!([]), Some(0)));
    assert!(fresh["total_steps"].as_u64().unwrap() > 0);
    assert_eq!(fresh["progress_percent"], 0);
    let step = format!("{progress}/configure_site");
    let body = json!({"step_key": "configure_site"});
    let done = expect_json(app.bearer(Method::POST, &step, &alice, Some(body.clone())).await, 200).await;
    assert_eq!(done["completed_count"], 1);
    assert_eq!(done["completed_steps"][0]["step_key"], "configure_site");
    assert!(done["completed_steps"][0]["completed_at"].is_string());
    let again = expect_json(app.bearer(Method::POST, &step, &alice, Some(body.clone())).await, 200).await;
    assert_eq!(again, done, "repeating a completed step is a no-op");
    let key = app.create_key("Write", Some(&id)).await;
    assert_problem(app.post(&step, &key, body).await, 400, "ONBOARDING_REQUIRES_IDP").await;

    // Restore: Owner, or any system admin.
    expect_status(&app.bearer(Method::DELETE, &format!("/sites/{id}"), &alice, None).await, 204);
    let gone = expect_json(app.bearer(Method::GET, "/sites/deleted", &alice, None).await, 200).await;
    assert_eq!(gone[0]["id"], id.as_str());
    let restored = app.bearer(Method::POST, &format!("/sites/{id}/restore"), &root, None).await;
    assert_eq!(expect_json(restored, 200).await["id"], id.as_str());
}

#[actix_web::test]
async fn settings_and_site_locale_rows() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;
    let site = app.create_site_id("tuned").await;
    let (en, de) = (locale_id(&app, "en").await, locale_id(&app, "de").await);

    // GET /sites/{site_id}/settings: 200 SiteSettings (defaults).
    let settings = expect_json(app.get(&format!("/sites/{site}/settings"), key).await, 200).await;
    assert_eq!(settings.as_object().unwrap().len(), 22, "{settings}");
    assert_eq!(
        (settings["max_media_file_size"].as_u64(), settings["theme_color"].as_str()),
        (Some(52428800), Some("#ffffff"))
    );

    // PUT settings: only provided ones change; 200 full settings.
    let res = app.put(&format!("/sites/{site}/settings"), key, json!({"maintenance_mode": true})).await;
    let updated = expect_json(res, 200).await;
    assert_eq!(updated.as_object().unwrap().len(), 22);
    assert_eq!(updated["maintenance_mode"], true);
    let mut expected = settings.clone();
    expected["maintenance_mode"] = json!(true);
    assert_eq!(updated, expected);

    // GET /sites/{site_id}/locales: 200 array of site locale.
    let locales = expect_json(app.get(&format!("/sites/{site}/locales"), key).await, 200).await;
    let first = &locales[0];
    for field in
        ["site_id", "locale_id", "is_default", "is_active", "url_prefix", "created_at", "code", "name", "native_name"]
    {
        assert!(first.get(field).is_some(), "site locale has {field}: {first}");
    }
    assert_eq!((first["code"].as_str(), first["direction"].as_str()), (Some("en"), Some("ltr")));

    // POST /sites/{site_id}/locales body {locale_id, is_default, url_prefix}; 201.
    let body = json!({"locale_id": de, "is_default": false, "url_prefix": "de"});
    let added = expect_json(app.post(&format!("/sites/{site}/locales"), key, body).await, 201).await;
    assert_eq!(
        (added["code"].as_str(), added["url_prefix"].as_str(), added["is_default"].as_bool()),
        (Some("de"), Some("de"), Some(false))
    );
    assert_eq!(added["site_id"], site.as_str());

    // PUT /sites/{site_id}/locales/{locale_id} body {is_active, url_prefix}; 200.
    let res = app
        .put(&format!("/sites/{site}/locales/{de}"), key, json!({"is_active": false, "url_prefix": "deutsch"}))
        .await;
    let changed = expect_json(res, 200).await;
    assert_eq!((changed["is_active"].as_bool(), changed["url_prefix"].as_str()), (Some(false), Some("deutsch")));

    // PUT …/default: no body; 200.
    let res = app.request(Method::PUT, &format!("/sites/{site}/locales/{de}/default"), Some(key), None).await;
    expect_status(&res, 200);
    let locales = expect_json(app.get(&format!("/sites/{site}/locales"), key).await, 200).await;
    let defaults: Vec<&str> = locales
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["is_default"] == true)
        .map(|l| l["code"].as_str().unwrap())
        .collect();
    assert_eq!(defaults, ["de"]);

    // DELETE …/{locale_id}: 204; the last locale gives SITE_LOCALE_LAST_LANGUAGE.
    expect_status(&app.delete(&format!("/sites/{site}/locales/{en}"), key).await, 204);
    let res = app.delete(&format!("/sites/{site}/locales/{de}"), key).await;
    assert_problem(res, 409, "SITE_LOCALE_LAST_LANGUAGE").await;
}

#[actix_web::test]
async fn a_site_locale_prefix_may_be_given_with_a_leading_slash() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("slashed").await;
    let de = locale_id(&app, "de").await;
    let body = json!({"locale_id": de, "is_default": true, "url_prefix": "/de"});
    let added = expect_json(app.post(&format!("/sites/{site}/locales"), &app.admin_key, body).await, 201).await;
    assert_eq!((added["code"].as_str(), added["is_default"].as_bool()), (Some("de"), Some(true)));
    assert_eq!(added["url_prefix"].as_str().unwrap().trim_matches('/'), "de");
    let locales = expect_json(app.get(&format!("/sites/{site}/locales"), &app.admin_key).await, 200).await;
    let defaults: Vec<&str> = locales
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["is_default"] == true)
        .map(|l| l["code"].as_str().unwrap())
        .collect();
    assert_eq!(defaults, ["de"], "exactly one default");
}

#[actix_web::test]
async fn the_sitemap_row() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("mapped").await;
    let sitemap = app.url("/sites/mapped/sitemap.xml");

    // 404 with a message asking to set a Site URL while base_url is unset.
    let problem = assert_problem(app.client.get(&sitemap).send().await.unwrap(), 404, "RESOURCE_NOT_FOUND").await;
    assert!(problem["detail"].as_str().unwrap().contains("Site URL"), "{problem}");

    app.put(&format!("/sites/{site}"), &app.admin_key, json!({"base_url": "https://mapped.example"})).await;
    let published = json!({"site_ids": [site], "title": "Live", "status": "Published"});
    expect_json(app.post("/blogs", &app.admin_key, published).await, 201).await;
    expect_json(app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Hidden"})).await, 201).await;

    // Public: no credentials; 200 XML, cached an hour, published content only.
    let res = app.client.get(&sitemap).send().await.unwrap();
    expect_status(&res, 200);
    assert!(res.headers()["content-type"].to_str().unwrap().contains("xml"));
    assert_eq!(res.headers()["cache-control"], "public, max-age=3600");
    let xml = res.text().await.unwrap();
    assert!(xml.contains("<loc>https://mapped.example/blog/live</loc>"), "{xml}");
    assert!(xml.contains("<changefreq>weekly</changefreq>") && xml.contains("<priority>0.6</priority>"), "{xml}");
    assert!(!xml.contains("hidden"), "drafts are not listed: {xml}");
}
