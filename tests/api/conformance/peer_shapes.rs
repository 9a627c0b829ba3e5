//! Bodies as the service the spec was written from sends them: its field names,
//! its enum spellings, fields Plinth does not keep, and `null` for empty fields.
//! A client of that service must work against Plinth unchanged.

use serde_json::json;

use super::{expect_json, locale_id};
use crate::helpers::{assert_problem, TestApp};

async fn site_with_modules(app: &TestApp, slug: &str) -> String {
    let site = app.create_site_id(slug).await;
    let modules = json!({"module_portfolio_enabled": true, "module_legal_enabled": true});
    expect_json(app.put(&format!("/sites/{site}/settings"), &app.admin_key, modules).await, 200).await;
    site
}

#[actix_web::test]
async fn content_bodies_with_the_peer_fields_and_spellings() {
    let app = TestApp::spawn().await;
    let site = site_with_modules(&app, "peer").await;
    let key = &app.admin_key;

    // Its blog body: published_date as a date, fields Plinth does not keep, a null title.
    let blog = json!({"site_ids": [site], "slug": "hello", "author": "Ann", "published_date": "2026-01-15",
        "reading_time_minutes": 5, "allow_comments": true, "is_featured": false, "status": "InReview", "title": null});
    let blog = expect_json(app.post("/blogs", key, blog).await, 201).await;
    assert_eq!((blog["slug"].as_str(), blog["status"].as_str()), (Some("hello"), Some("InReview")));
    assert_eq!(blog["published_date"], "2026-01-15T00:00:00Z");
    let id = blog["id"].as_str().unwrap();
    let reviewed =
        expect_json(app.post(&format!("/blogs/{id}/review"), key, json!({"action": "request_changes"})).await, 200)
            .await;
    assert_eq!(reviewed["status"], "Draft");
    let bad = json!({"site_ids": [site], "published_date": "yesterday"});
    assert_problem(app.post("/blogs", key, bad).await, 422, "VALIDATION_ERROR").await;

    // CV: `company` for organization, no entry_type (work); skills: proficiency_level.
    let cv = json!({"site_ids": [site], "title": "Engineer", "company": "ACME", "location": "Graz",
        "start_date": "2020-01-01", "display_order": 1});
    let cv = expect_json(app.post("/cv", key, cv).await, 201).await;
    assert_eq!((cv["organization"].as_str(), cv["entry_type"].as_str()), (Some("ACME"), Some("work")));
    let skill =
        json!({"site_ids": [site], "name": "Rust", "slug": "rust", "proficiency_level": 90, "is_global": false});
    assert_eq!(expect_json(app.post("/skills", key, skill).await, 201).await["proficiency"], 90);

    // Legal document types by their long names, answered by them too; the short ones are accepted.
    let legal = json!({"site_ids": [site], "cookie_name": "privacy", "document_type": "PrivacyPolicy"});
    assert_eq!(expect_json(app.post("/legal", key, legal).await, 201).await["document_type"], "PrivacyPolicy");
    let legal = json!({"site_ids": [site], "cookie_name": "terms", "document_type": "terms"});
    assert_eq!(expect_json(app.post("/legal", key, legal).await, 201).await["document_type"], "TermsOfService");
}

#[actix_web::test]
async fn structure_bodies_with_the_peer_field_names() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("peer-structure").await;
    let key = &app.admin_key;

    let social = json!({"site_id": site, "title": "Code", "url": "https://github.com/ann", "icon": "github",
        "alt_text": null, "display_order": 1});
    let social = expect_json(app.post(&format!("/sites/{site}/social-links"), key, social).await, 201).await;
    assert_eq!((social["platform"].as_str(), social["label"].as_str()), (Some("github"), Some("Code")));
    let bare = json!({"url": "https://www.mastodon.social/@ann"});
    let bare = expect_json(app.post(&format!("/sites/{site}/social-links"), key, bare).await, 201).await;
    assert_eq!(bare["platform"], "mastodon");

    let redirect = json!({"site_id": site, "source_path": "/old", "destination_path": "/new", "status_code": 301, "description": null});
    let redirect = expect_json(app.post(&format!("/sites/{site}/redirects"), key, redirect).await, 201).await;
    assert_eq!(redirect["destination"], "/new");

    let menu =
        expect_json(app.post(&format!("/sites/{site}/menus"), key, json!({"slug": "main", "max_depth": 3})).await, 201)
            .await;
    assert_eq!((menu["name"].as_str(), menu["slug"].as_str()), (Some("main"), Some("main")));
    let en = locale_id(&app, "en").await;
    let item = json!({"external_url": "https://example.org", "display_order": 0, "open_in_new_tab": true,
        "localizations": [{"locale_id": en, "title": "Home"}], "site_id": site, "menu_id": menu["id"]});
    let item =
        expect_json(app.post(&format!("/menus/{}/items", menu["id"].as_str().unwrap()), key, item).await, 201).await;
    assert_eq!((item["label"].as_str(), item["url"].as_str()), (Some("Home"), Some("https://example.org")));

    let tag = json!({"slug": "rust", "is_global": false, "site_id": site});
    assert_eq!(expect_json(app.post(&format!("/sites/{site}/tags"), key, tag).await, 201).await["name"], "rust");
}

#[actix_web::test]
async fn platform_bodies_with_the_peer_defaults() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;

    let site = expect_json(app.post("/sites", key, json!({"name": "Peer Site", "description": null})).await, 201).await;
    assert_eq!(site["slug"], "peer-site");
    let site_id = site["id"].as_str().unwrap();

    let locale = json!({"code": "fr", "name": "French", "direction": "Ltr", "is_active": true});
    let locale = expect_json(app.post("/locales", key, locale).await, 201).await;
    assert_eq!((locale["native_name"].as_str(), locale["direction"].as_str()), (Some("French"), Some("ltr")));

    let created =
        expect_json(app.post("/api-keys", key, json!({"name": "reader", "site_id": site_id})).await, 201).await;
    assert_eq!(created["permission"], "Read");

    let member = json!({"idp_user_id": "vera", "role": "viewer"});
    let member = expect_json(app.post(&format!("/sites/{site_id}/members"), key, member).await, 201).await;
    assert_eq!(member["role"], "read");
}
