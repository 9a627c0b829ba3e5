use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn create_read_update_and_delete_a_site() {
    let app = TestApp::spawn().await;
    let res = app
        .post(
            "/sites",
            &app.admin_key,
            json!({"name": "Docs", "slug": "docs", "description": "Our docs", "base_url": "https://docs.example.org/"}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let site: Value = res.json().await.unwrap();
    let id = site["id"].as_str().unwrap().to_string();
    assert_eq!(site["base_url"], "https://docs.example.org");
    assert_eq!(site["is_active"], true);
    assert!(site.get("deleted_at").is_none());
    for field in ["created_at", "updated_at"] {
        assert!(chrono::DateTime::parse_from_rfc3339(site[field].as_str().unwrap()).is_ok());
    }

    let by_slug: Value = app.get("/sites/by-slug/docs", &app.admin_key).await.json().await.unwrap();
    assert_eq!(by_slug["id"], id.as_str());

    let res = app.put(&format!("/sites/{id}"), &app.admin_key, json!({"name": "Handbook", "base_url": null})).await;
    assert_eq!(res.status(), 200);
    let updated: Value = res.json().await.unwrap();
    assert_eq!((updated["name"].as_str(), updated["slug"].as_str()), (Some("Handbook"), Some("docs")));
    assert!(updated["base_url"].is_null());
    let read: Value = app.get(&format!("/sites/{id}"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(read["name"], "Handbook", "the cached state was refreshed");

    assert_eq!(app.delete(&format!("/sites/{id}"), &app.admin_key).await.status(), 204);
    assert_problem(app.get(&format!("/sites/{id}"), &app.admin_key).await, 404, "ENTITY_NOT_FOUND").await;
    let listed: Vec<Value> = app.get("/sites", &app.admin_key).await.json().await.unwrap();
    assert!(listed.is_empty());
    let deleted: Vec<Value> = app.get("/sites/deleted", &app.admin_key).await.json().await.unwrap();
    assert_eq!(deleted.len(), 1);
    assert!(deleted[0]["deleted_at"].is_string());
}

#[actix_web::test]
async fn slugs_are_unique_and_checked() {
    let app = TestApp::spawn().await;
    let first = app.create_site_id("taken").await;
    let res = app.post("/sites", &app.admin_key, json!({"name": "Again", "slug": "taken"})).await;
    let body = assert_problem(res, 409, "ENTITY_SLUG_TAKEN").await;
    assert_eq!(body["entity_type"], "site");
    let other = app.create_site_id("other").await;
    let res = app.put(&format!("/sites/{other}"), &app.admin_key, json!({"slug": "taken"})).await;
    assert_problem(res, 409, "ENTITY_SLUG_TAKEN").await;
    assert_ne!(first, other);
}

#[actix_web::test]
async fn who_may_create_sites() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("home").await;
    let scoped_admin = app.create_key("Admin", Some(&site)).await;
    let writer = app.create_key("Write", None).await;
    let admin = app.create_key("Admin", None).await;
    let body = json!({"name": "New", "slug": "new"});
    assert_problem(app.post("/sites", &scoped_admin, body.clone()).await, 403, "SITE_CREATE_SCOPED_KEY").await;
    assert_problem(app.post("/sites", &writer, body.clone()).await, 403, "SITE_CREATE_REQUIRES_ADMIN").await;
    assert_eq!(app.post("/sites", &admin, body).await.status(), 201);
}

#[actix_web::test]
async fn site_creation_needs_exactly_one_default_locale() {
    let app = TestApp::spawn().await;
    let (en, de) = (app.locale_id("en").await, app.locale_id("de").await);
    for locales in [
        json!([{"locale_id": en, "is_default": true}, {"locale_id": de, "is_default": true}]),
        json!([{"locale_id": en, "is_default": false}]),
        json!([]),
        json!([{"locale_id": en, "is_default": true}, {"locale_id": en, "is_default": false}]),
    ] {
        let res = app.post("/sites", &app.admin_key, json!({"name": "L", "slug": "l", "locales": locales})).await;
        assert_problem(res, 400, "SITE_CREATE_INVALID_LOCALES").await;
    }
    let res = app
        .post(
            "/sites",
            &app.admin_key,
            json!({"name": "L", "slug": "l", "locales": [
                {"locale_id": en, "is_default": false, "url_prefix": "/en"},
                {"locale_id": de, "is_default": true}
            ]}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let id = res.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    let locales: Vec<Value> = app.get(&format!("/sites/{id}/locales"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(locales.len(), 2);
    let default = locales.iter().find(|l| l["is_default"] == true).unwrap();
    assert_eq!(
        (default["code"].as_str(), default["native_name"].as_str(), default["url_prefix"].as_str()),
        (Some("de"), Some("Deutsch"), Some(""))
    );
    let english = locales.iter().find(|l| l["code"] == "en").unwrap();
    assert_eq!(english["url_prefix"], "en", "stored bare whichever spelling was sent");
    assert_eq!(english["direction"], "ltr");
}

#[actix_web::test]
async fn site_locales_can_be_added_switched_and_removed_but_not_the_last() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("multi").await;
    let de = app.locale_id("de").await;
    let en = app.locale_id("en").await;

    let res = app
        .post(&format!("/sites/{site}/locales"), &app.admin_key, json!({"locale_id": de, "is_default": false}))
        .await;
    assert_eq!(res.status(), 201);
    let added: Value = res.json().await.unwrap();
    assert_eq!(
        (added["code"].as_str(), added["url_prefix"].as_str(), added["is_default"].as_bool()),
        (Some("de"), Some("de"), Some(false))
    );
    let again = app.post(&format!("/sites/{site}/locales"), &app.admin_key, json!({"locale_id": de})).await;
    assert_problem(again, 409, "CONFLICT").await;

    let res = app
        .put(
            &format!("/sites/{site}/locales/{de}"),
            &app.admin_key,
            json!({"url_prefix": "/deutsch", "is_active": false}),
        )
        .await;
    let updated: Value = res.json().await.unwrap();
    assert_eq!((updated["url_prefix"].as_str(), updated["is_active"].as_bool()), (Some("deutsch"), Some(false)));
    for (given, stored) in [("de", "de"), ("/de/", "de"), ("", ""), ("de/at", "de/at")] {
        let res = app.put(&format!("/sites/{site}/locales/{de}"), &app.admin_key, json!({"url_prefix": given})).await;
        assert_eq!(res.json::<Value>().await.unwrap()["url_prefix"], stored, "url_prefix {given:?}");
    }
    let res = app.put(&format!("/sites/{site}/locales/{de}"), &app.admin_key, json!({"url_prefix": "no slash"})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;

    let res = app.put(&format!("/sites/{site}/locales/{de}/default"), &app.admin_key, json!({})).await;
    assert_eq!(res.status(), 200);
    let locales: Vec<Value> = app.get(&format!("/sites/{site}/locales"), &app.admin_key).await.json().await.unwrap();
    let defaults: Vec<&str> =
        locales.iter().filter(|l| l["is_default"] == true).map(|l| l["code"].as_str().unwrap()).collect();
    assert_eq!(defaults, ["de"]);
    assert!(locales.iter().all(|l| l["is_active"] == true), "the new default was activated");

    // Removing the default promotes the remaining locale; the last cannot go.
    assert_eq!(app.delete(&format!("/sites/{site}/locales/{de}"), &app.admin_key).await.status(), 204);
    let locales: Vec<Value> = app.get(&format!("/sites/{site}/locales"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(locales.len(), 1);
    assert_eq!((locales[0]["code"].as_str(), locales[0]["is_default"].as_bool()), (Some("en"), Some(true)));
    let res = app.delete(&format!("/sites/{site}/locales/{en}"), &app.admin_key).await;
    assert_problem(res, 409, "SITE_LOCALE_LAST_LANGUAGE").await;
    let res = app.delete(&format!("/sites/{site}/locales/{de}"), &app.admin_key).await;
    assert_problem(res, 404, "ENTITY_NOT_FOUND").await;
}

#[actix_web::test]
async fn an_unconfigured_site_reflects_every_settings_default() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("defaults").await;
    let settings: Value = app.get(&format!("/sites/{site}/settings"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(
        settings,
        json!({
            "max_document_file_size": 10485760,
            "max_media_file_size": 52428800,
            "analytics_enabled": false,
            "maintenance_mode": false,
            "contact_email": "",
            "editorial_workflow_enabled": false,
            "preview_templates": [],
            "module_blog_enabled": true,
            "module_pages_enabled": true,
            "module_portfolio_enabled": false,
            "module_legal_enabled": false,
            "module_documents_enabled": false,
            "module_ai_enabled": false,
            "module_forms_enabled": false,
            "robots_txt_rules": [{"user_agent": "*", "rules": [{"directive": "Allow", "path": "/"}]}],
            "seo_title_template": "{{title}} | {{site_name}}",
            "seo_default_description": "",
            "seo_default_og_image_id": null,
            "theme_color": "#ffffff",
            "background_color": "#ffffff",
            "code_injection_head": "",
            "code_injection_footer": ""
        })
    );
}

#[actix_web::test]
async fn a_partial_settings_update_changes_only_given_fields_and_returns_all() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("tuned").await;
    let image = uuid::Uuid::new_v4();
    let res = app
        .put(
            &format!("/sites/{site}/settings"),
            &app.admin_key,
            json!({
                "analytics_enabled": true, "theme_color": "#FF0000", "seo_default_og_image_id": image,
                "robots_txt_rules": [{"user_agent": "*", "rules": [{"directive": "Disallow", "path": "/admin"}]}]
            }),
        )
        .await;
    assert_eq!(res.status(), 200);
    let settings: Value = res.json().await.unwrap();
    assert_eq!(settings["analytics_enabled"], true);
    assert_eq!(settings["theme_color"], "#ff0000");
    assert_eq!(settings["seo_default_og_image_id"], image.to_string());
    assert_eq!(settings["max_media_file_size"], 52428800);
    assert_eq!(settings.as_object().unwrap().len(), 22);

    // A second update keeps the first; null clears the image.
    let res = app
        .put(
            &format!("/sites/{site}/settings"),
            &app.admin_key,
            json!({"maintenance_mode": true, "seo_default_og_image_id": null}),
        )
        .await;
    let settings: Value = res.json().await.unwrap();
    assert_eq!(
        (settings["analytics_enabled"].as_bool(), settings["maintenance_mode"].as_bool()),
        (Some(true), Some(true))
    );
    assert!(settings["seo_default_og_image_id"].is_null());
    let read: Value = app.get(&format!("/sites/{site}/settings"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(read, settings);

    let res = app
        .put(
            &format!("/sites/{site}/settings"),
            &app.admin_key,
            json!({"theme_color": "blue", "max_media_file_size": -1}),
        )
        .await;
    let body = assert_problem(res, 422, "VALIDATION_ERROR").await;
    assert_eq!(body["errors"].as_array().unwrap().len(), 2);
    // Fields the API does not know are ignored (clients of the service the spec was
    // written from send `posts_per_page`), and change nothing.
    let res = app.put(&format!("/sites/{site}/settings"), &app.admin_key, json!({"no_such_setting": 1})).await;
    assert_eq!(res.status(), 200);
    assert!(res.json::<Value>().await.unwrap().get("no_such_setting").is_none());
    let read: Value = app.get(&format!("/sites/{site}/settings"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(read["theme_color"], "#ff0000", "a rejected update changed nothing");
}

#[actix_web::test]
async fn reset_content_trashes_everything_editorial_and_counts_it() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("reset").await;
    app.put(
        &format!("/sites/{site}/settings"),
        &app.admin_key,
        json!({"module_portfolio_enabled": true, "module_legal_enabled": true, "theme_color": "#123456"}),
    )
    .await;
    app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Post"})).await;
    app.post("/pages", &app.admin_key, json!({"site_ids": [site], "title": "Page"})).await;
    app.post(
        "/cv",
        &app.admin_key,
        json!({"site_ids": [site], "title": "Job", "entry_type": "work", "start_date": "2020-01-01"}),
    )
    .await;
    app.post("/legal", &app.admin_key, json!({"site_ids": [site], "title": "Imprint", "document_type": "imprint"}))
        .await;
    app.post(
        &format!("/sites/{site}/social-links"),
        &app.admin_key,
        json!({"platform": "github", "url": "https://github.com/x"}),
    )
    .await;
    let menu: Value =
        app.post(&format!("/sites/{site}/menus"), &app.admin_key, json!({"name": "Main"})).await.json().await.unwrap();
    let items = format!("/menus/{}/items", menu["id"].as_str().unwrap());
    app.post(&items, &app.admin_key, json!({"label": "Home", "url": "/"})).await;
    app.post(&items, &app.admin_key, json!({"label": "Blog", "url": "/blog"})).await;
    let untouched = app.create_site_id("reset-other").await;
    app.post("/blogs", &app.admin_key, json!({"site_ids": [untouched], "title": "Safe"})).await;

    let admin = app.create_key("Admin", Some(&site)).await;
    assert_problem(
        app.post(&format!("/sites/{site}/reset-content"), &admin, json!({})).await,
        403,
        "AUTH_INSUFFICIENT_ROLE",
    )
    .await;
    let res = app.post(&format!("/sites/{site}/reset-content"), &app.admin_key, json!({})).await;
    assert_eq!(res.status(), 200);
    let counts: Value = res.json().await.unwrap();
    assert_eq!(
        counts,
        json!({"contents": 3, "legal_documents": 1, "documents": 0, "social_links": 1, "navigation_menus": 1, "navigation_items": 2, "media_files": 0, "total": 8})
    );
    let blogs: Value = app.get(&format!("/sites/{site}/blogs"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(blogs["meta"]["total"], 0);
    let trash: Value = app.get(&format!("/sites/{site}/trash/count"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(trash, json!({"count": 8}));
    let settings: Value = app.get(&format!("/sites/{site}/settings"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(settings["theme_color"], "#123456", "settings are kept");
    let locales: Vec<Value> = app.get(&format!("/sites/{site}/locales"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(locales.len(), 1, "locales are kept");
    let safe: Value = app.get(&format!("/sites/{untouched}/blogs"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(safe["meta"]["total"], 1, "other sites are untouched");
}

#[actix_web::test]
async fn the_janitor_purges_a_site_thirty_days_after_deletion_and_keeps_shared_content() {
    use plinth_entities::{audit_log, content, site_setting, social_link, webhook};
    use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};

    let app = TestApp::spawn().await;
    let (doomed, other) = (app.create_site_id("doomed").await, app.create_site_id("other").await);
    let create_blog =
        |sites: Vec<&str>, title: &str| app.post("/blogs", &app.admin_key, json!({"site_ids": sites, "title": title}));
    let own: Value = create_blog(vec![&doomed], "Only here").await.json().await.unwrap();
    let shared: Value = create_blog(vec![&doomed, &other], "On both").await.json().await.unwrap();
    let hook = app
        .post(&format!("/sites/{doomed}/webhooks"), &app.admin_key, json!({"url": "https://93.184.216.34/plinth"}))
        .await;
    assert_eq!(hook.status(), 201);
    let link = json!({"platform": "github", "url": "https://github.com/acme"});
    assert_eq!(app.post(&format!("/sites/{doomed}/social-links"), &app.admin_key, link).await.status(), 201);
    let site_key = app.create_key("Write", Some(&doomed)).await;
    assert_eq!(app.delete(&format!("/sites/{doomed}"), &app.admin_key).await.status(), 204);

    // Inside the window nothing is removed.
    app.advance_and_run_janitor(chrono::Duration::days(29)).await;
    let deleted: Value = app.get("/sites/deleted", &app.admin_key).await.json().await.unwrap();
    assert!(deleted.to_string().contains(&doomed), "{deleted}");

    app.advance_and_run_janitor(chrono::Duration::days(2)).await;
    let deleted: Value = app.get("/sites/deleted", &app.admin_key).await.json().await.unwrap();
    assert!(!deleted.to_string().contains(&doomed), "purged sites leave the deleted list: {deleted}");
    assert_problem(
        app.post(&format!("/sites/{doomed}/restore"), &app.admin_key, json!({})).await,
        404,
        "ENTITY_NOT_FOUND",
    )
    .await;
    assert_eq!(app.get(&format!("/sites/{doomed}"), &site_key).await.status(), 401, "the site's keys are gone");

    let db = &app.state.db;
    let doomed_id: uuid::Uuid = doomed.parse().unwrap();
    let own_id: uuid::Uuid = own["id"].as_str().unwrap().parse().unwrap();
    let shared_id: uuid::Uuid = shared["id"].as_str().unwrap().parse().unwrap();
    assert!(content::Entity::find_by_id(own_id).one(db).await.unwrap().is_none(), "content only on the site is gone");
    assert!(content::Entity::find_by_id(shared_id).one(db).await.unwrap().is_some(), "shared content stays");
    let on_other: Value = app.get(&format!("/sites/{other}/blogs"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(on_other["data"][0]["title"], "On both");
    assert_eq!(webhook::Entity::find().filter(webhook::Column::SiteId.eq(doomed_id)).count(db).await.unwrap(), 0);
    assert_eq!(
        social_link::Entity::find().filter(social_link::Column::SiteId.eq(doomed_id)).count(db).await.unwrap(),
        0
    );
    assert!(site_setting::Entity::find_by_id(doomed_id).one(db).await.unwrap().is_none());
    assert_eq!(audit_log::Entity::find().filter(audit_log::Column::SiteId.eq(doomed_id)).count(db).await.unwrap(), 0);
    let purge = audit_log::Entity::find()
        .filter(audit_log::Column::Action.eq("purge"))
        .filter(audit_log::Column::EntityId.eq(doomed.as_str()))
        .one(db)
        .await
        .unwrap()
        .expect("a system-level purge entry");
    assert_eq!((purge.site_id, purge.actor.to_string().as_str()), (None, "system"));

    // The other site is untouched.
    assert_eq!(app.get(&format!("/sites/{other}"), &app.admin_key).await.status(), 200);
}

/// The origin service's admin saves every module flag at once, federation's
/// too: off is accepted, on is refused (Plinth offers no ActivityPub), never
/// silently dropped.
#[actix_web::test]
async fn federation_can_be_left_off_but_not_turned_on() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("no-federation").await;
    let path = format!("/sites/{site}/settings");
    let off = json!({"module_blog_enabled": true, "module_legal_enabled": true, "module_federation_enabled": false});
    let res = app.put(&path, &app.admin_key, off).await;
    assert_eq!(res.status(), 200);
    let settings: Value = res.json().await.unwrap();
    assert_eq!(
        (settings["module_legal_enabled"].as_bool(), settings.get("module_federation_enabled")),
        (Some(true), None)
    );
    let on = json!({"module_ai_enabled": true, "module_federation_enabled": true});
    let res = app.put(&path, &app.admin_key, on).await;
    let problem = assert_problem(res, 422, "VALIDATION_ERROR").await;
    assert_eq!(problem["errors"][0]["field"], "module_federation_enabled");
    let settings: Value = app.get(&path, &app.admin_key).await.json().await.unwrap();
    assert_eq!(settings["module_ai_enabled"], false, "nothing of a refused update is stored");
}
