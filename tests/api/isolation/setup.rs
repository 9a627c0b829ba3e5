//! Site B with one real item of every family, created through the API as the
//! Master key (and as B's own members where only a user can create it), and
//! the names the matrix fills its paths with.

use std::collections::BTreeMap;

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::TestApp;
use crate::idp::user_token;

/// Every name and slug of B carries this word, so a body that mentions it leaks B.
pub const MARKER: &str = "bravo";

/// Site B's items by placeholder name (`{blog}`, `{blog_loc}`, …).
pub struct SiteB {
    pub values: BTreeMap<&'static str, String>,
    /// Placeholders whose values are not B's (global locales): never markers.
    shared: Vec<&'static str>,
}

impl SiteB {
    pub fn get(&self, name: &str) -> &str {
        self.values.get(name).unwrap_or_else(|| panic!("site B has no {name}"))
    }

    fn set(&mut self, name: &'static str, value: &Value) {
        let value = value.as_str().unwrap_or_else(|| panic!("{name} is not a string: {value}")).to_string();
        self.values.insert(name, value);
    }

    /// Replaces every `{name}` of `template` with B's value.
    pub fn fill(&self, template: &str) -> String {
        let mut out = template.to_string();
        for (name, value) in &self.values {
            out = out.replace(&format!("{{{name}}}"), value);
        }
        let unfilled = out.split('{').skip(1).find_map(|rest| {
            let name = rest.split('}').next()?;
            (rest.contains('}') && !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
                .then_some(name)
        });
        assert!(unfilled.is_none(), "site B has no value for {{{}}} in {out}", unfilled.unwrap_or_default());
        out
    }

    /// B's ids, slugs and names: none may appear in an answer to a caller
    /// outside B (unless the caller sent it).
    pub fn markers(&self) -> Vec<&str> {
        self.values.iter().filter(|(name, _)| !self.shared.contains(name)).map(|(_, v)| v.as_str()).collect()
    }
}

async fn ok(app: &TestApp, method: Method, path: &str, body: Option<Value>) -> Value {
    let res = app.request(method.clone(), path, Some(&app.admin_key), body).await;
    let status = res.status().as_u16();
    let body: Value = res.json().await.unwrap_or(Value::Null);
    assert!((200..300).contains(&status), "setup {method} {path}: {status} {body}");
    body
}

async fn post(app: &TestApp, path: &str, body: Value) -> Value {
    ok(app, Method::POST, path, Some(body)).await
}

async fn get(app: &TestApp, path: &str) -> Value {
    let res = app.get(path, &app.admin_key).await;
    assert_eq!(res.status(), 200, "setup GET {path}");
    res.json().await.unwrap()
}

/// The six content kinds: (placeholder, collection path, create body fields).
pub const CONTENT: [(&str, &str); 6] = [
    ("blog", "blogs"),
    ("page", "pages"),
    ("project", "projects"),
    ("skill", "skills"),
    ("cv", "cv"),
    ("legal", "legal"),
];

/// Creates site B (slug `bravo`) with every family; `receiver_url` is an
/// allowed webhook target.
pub async fn site_b(app: &TestApp, receiver_url: &str) -> SiteB {
    let mut b = SiteB { values: BTreeMap::new(), shared: vec!["de", "en"] };
    let site = post(
        app,
        "/sites",
        json!({"name": "Bravo Site", "slug": "bravo", "description": "Bravo", "base_url": "https://bravo.example.org"}),
    )
    .await;
    b.set("site", &site["id"]);
    b.set("site_slug", &site["slug"]);
    let site = b.get("site").to_string();
    let modules = json!({"module_portfolio_enabled": true, "module_legal_enabled": true, "module_documents_enabled": true,
        "module_forms_enabled": true, "module_ai_enabled": true, "analytics_enabled": true});
    ok(app, Method::PUT, &format!("/sites/{site}/settings"), Some(modules)).await;
    let locales = get(app, "/locales").await;
    for code in ["de", "en"] {
        let locale = locales.as_array().unwrap().iter().find(|l| l["code"] == code).unwrap();
        b.set(code, &locale["id"]);
    }
    post(app, &format!("/sites/{site}/locales"), json!({"locale_id": b.get("de")})).await;

    let hook = post(
        app,
        &format!("/sites/{site}/webhooks"),
        json!({"url": receiver_url, "events": ["blog.created"], "description": "Bravo hook"}),
    )
    .await;
    b.set("webhook", &hook["id"]);

    for (name, plural) in CONTENT {
        let title = format!("Bravo {name}");
        let mut body = json!({"site_ids": [site], "title": title, "status": "Published", "excerpt": "Bravo excerpt", "body": "Bravo body"});
        match name {
            // A skill's `name` is its title.
            "skill" => {
                body["name"] = body["title"].take();
                body.as_object_mut().unwrap().remove("title");
            }
            "cv" => {
                body["entry_type"] = json!("work");
                body["start_date"] = json!("2020-01-01");
            }
            "legal" => body["document_type"] = json!("privacy"),
            "page" => body["route"] = json!("/bravo-page"),
            _ => {}
        }
        let item = post(app, &format!("/{plural}"), body).await;
        b.values.insert(name, item["id"].as_str().unwrap().to_string());
        b.values.insert(slug_name(name), item["slug"].as_str().unwrap().to_string());
        let loc = post(
            app,
            &format!("/{plural}/{}/localizations", b.get(name)),
            json!({"locale_id": b.get("de"), "title": format!("Bravo {name} de")}),
        )
        .await;
        b.values.insert(loc_name(name), loc["id"].as_str().unwrap().to_string());
    }
    let section = post(
        app,
        &format!("/pages/{}/sections", b.get("page")),
        json!({"section_type": "Hero", "localizations": [{"locale_id": b.get("de"), "title": "Bravo hero"}]}),
    )
    .await;
    b.set("section", &section["id"]);
    b.set("section_loc", &section["localizations"][0]["id"]);
    let group = post(
        app,
        &format!("/legal/{}/groups", b.get("legal")),
        json!({"cookie_name": "bravo_analytics", "items": [{"cookie_name": "_bravo"}]}),
    )
    .await;
    b.set("legal_group", &group["id"]);
    b.set("legal_item", &group["items"][0]["id"]);
    // A change in the blog's history, for the audit routes.
    ok(app, Method::PUT, &format!("/blogs/{}", b.get("blog")), Some(json!({"excerpt": "Bravo excerpt two"}))).await;
    let history = get(app, &format!("/audit/history/blog/{}", b.get("blog"))).await;
    b.set("change", &history[0]["change_id"]);

    let trashed = post(app, "/blogs", json!({"site_ids": [site], "title": "Bravo trashed"})).await;
    b.set("trash", &trashed["id"]);
    ok(app, Method::DELETE, &format!("/blogs/{}", b.get("trash")), None).await;

    for (name, plural) in [("category", "categories"), ("tag", "tags")] {
        let term = post(app, &format!("/sites/{site}/{plural}"), json!({"name": format!("Bravo {name}")})).await;
        b.values.insert(name, term["id"].as_str().unwrap().to_string());
        let loc = post(
            app,
            &format!("/{plural}/{}/localizations", b.get(name)),
            json!({"locale_id": b.get("de"), "name": format!("Bravo {name} de")}),
        )
        .await;
        b.values.insert(loc_name(name), loc["id"].as_str().unwrap().to_string());
    }

    documents(app, &mut b, &site).await;
    media(app, &mut b, &site).await;
    navigation(app, &mut b, &site).await;
    forms(app, &mut b, &site).await;
    people(app, &mut b, &site).await;
    operations(app, &mut b, &site).await;
    b
}

fn slug_name(name: &str) -> &'static str {
    match name {
        "blog" => "blog_slug",
        "page" => "page_slug",
        "project" => "project_slug",
        "skill" => "skill_slug",
        "cv" => "cv_slug",
        _ => "legal_slug",
    }
}

fn loc_name(name: &str) -> &'static str {
    match name {
        "blog" => "blog_loc",
        "page" => "page_loc",
        "project" => "project_loc",
        "skill" => "skill_loc",
        "cv" => "cv_loc",
        "legal" => "legal_loc",
        "category" => "category_loc",
        "tag" => "tag_loc",
        _ => "document_loc",
    }
}

async fn documents(app: &TestApp, b: &mut SiteB, site: &str) {
    let folder = post(app, &format!("/sites/{site}/document-folders"), json!({"name": "Bravo docs"})).await;
    b.set("document_folder", &folder["id"]);
    let body = json!({"document_type": "pdf", "url": "https://example.org/bravo.pdf", "folder_id": folder["id"]});
    let doc = post(app, &format!("/sites/{site}/documents"), body).await;
    b.set("document", &doc["id"]);
    let loc = post(
        app,
        &format!("/documents/{}/localizations", b.get("document")),
        json!({"locale_id": b.get("de"), "name": "Bravo Dokument"}),
    )
    .await;
    b.set("document_loc", &loc["id"]);
    post(app, &format!("/blogs/{}/documents", b.get("blog")), json!({"document_id": b.get("document")})).await;
}

async fn media(app: &TestApp, b: &mut SiteB, site: &str) {
    let folder = post(app, &format!("/sites/{site}/media-folders"), json!({"name": "Bravo folder"})).await;
    b.set("media_folder", &folder["id"]);
    let photo = crate::media::uploaded(app, site, "bravo.png", crate::media::png(4, 3)).await;
    b.set("media", &photo["id"]);
    let meta = post(
        app,
        &format!("/media/{}/metadata", b.get("media")),
        json!({"locale_id": b.get("en"), "alt_text": "Bravo alt"}),
    )
    .await;
    b.set("media_metadata", &meta["id"]);
}

async fn navigation(app: &TestApp, b: &mut SiteB, site: &str) {
    let menu = post(app, &format!("/sites/{site}/menus"), json!({"name": "Bravo menu"})).await;
    b.set("menu", &menu["id"]);
    let item = post(app, &format!("/menus/{}/items", b.get("menu")), json!({"label": "Bravo home", "url": "/"})).await;
    b.set("menu_item", &item["id"]);
    let redirect = post(
        app,
        &format!("/sites/{site}/redirects"),
        json!({"source_path": "/bravo-old", "destination": "/bravo-new"}),
    )
    .await;
    b.set("redirect", &redirect["id"]);
    let template = post(app, &format!("/sites/{site}/content-templates"), json!({"name": "Bravo template"})).await;
    b.set("template", &template["id"]);
    let link = post(
        app,
        &format!("/sites/{site}/social-links"),
        json!({"url": "https://example.org/bravo", "label": "Bravo"}),
    )
    .await;
    b.set("social_link", &link["id"]);
    let envs = get(app, &format!("/sites/{site}/environments")).await;
    b.set("environment", &envs[1]["id"]);
}

async fn forms(app: &TestApp, b: &mut SiteB, site: &str) {
    let fields = json!([{"label": "email", "field_type": "email", "required": true}]);
    let template =
        post(app, &format!("/sites/{site}/form-templates"), json!({"name": "Bravo template", "fields": fields})).await;
    b.set("form_template", &template["id"]);
    let form = post(
        app,
        &format!("/sites/{site}/forms"),
        json!({"slug": "bravo-form", "name": "Bravo form", "is_active": true, "bot_protection": "none",
            "storage_mode": "queryable", "requires_consent": false, "fields": fields}),
    )
    .await;
    b.set("form", &form["id"]);
    b.set("form_slug", &form["slug"]);
    let res = app
        .client
        .post(app.url("/public/forms/bravo-form/submit"))
        .header("X-Site-Domain", "bravo.example.org")
        .json(&json!({"data": {"email": "bravo@example.org"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201, "setup: submission");
    let listed = get(app, &format!("/forms/{}/submissions", b.get("form"))).await;
    b.set("submission", &listed["data"][0]["id"]);
    let note = post(app, &format!("/submissions/{}/notes", b.get("submission")), json!({"body": "Bravo note"})).await;
    b.set("note", &note["id"]);
}

/// B's API key, members and a notification of one of them.
async fn people(app: &TestApp, b: &mut SiteB, site: &str) {
    let key = post(app, "/api-keys", json!({"name": "Bravo key", "permission": "Read", "site_id": site})).await;
    b.set("api_key", &key["id"]);
    let members = format!("/sites/{site}/members");
    let author = post(app, &members, json!({"idp_user_id": "bravo-author", "role": "author"})).await;
    b.set("member", &author["id"]);
    b.set("member_user", &author["idp_user_id"]);
    post(app, &members, json!({"idp_user_id": "bravo-reviewer", "role": "reviewer"})).await;

    let writer = user_token("bravo-author");
    let res =
        app.bearer(Method::POST, "/blogs", &writer, Some(json!({"site_ids": [site], "title": "Bravo review"}))).await;
    let post: Value = res.json().await.unwrap();
    let path = format!("/blogs/{}", post["id"].as_str().unwrap_or_else(|| panic!("setup: blog as B's author: {post}")));
    app.bearer(Method::PUT, &path, &writer, Some(json!({"status": "InReview"}))).await;
    let list: Value =
        app.bearer(Method::GET, "/notifications", &user_token("bravo-reviewer"), None).await.json().await.unwrap();
    b.set("notification", &list["data"][0]["id"]);
}

/// A webhook delivery and an export job with its download token.
async fn operations(app: &TestApp, b: &mut SiteB, site: &str) {
    let hook = b.get("webhook").to_string();
    app.wait_for_logged_attempts(&hook, "blog.created", 1).await;
    let log = get(app, &format!("/webhooks/{hook}/deliveries")).await;
    b.set("delivery", &log["data"][0]["delivery_id"]);

    let job = post(app, &format!("/sites/{site}/export"), json!({})).await;
    b.set("export_job", &job["id"]);
    for _ in 0..200 {
        let job = get(app, &format!("/sites/{site}/export/{}", b.get("export_job"))).await;
        if let Some(url) = job["download_url"].as_str() {
            let token = url.split("token=").nth(1).expect("download url has a token");
            b.values.insert("export_token", token.to_string());
            return;
        }
        assert_ne!(job["status"], "failed", "setup: export {job}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("setup: the export did not finish");
}
