//! The form builder: the module gate, CRUD with fields and localizations,
//! atomic replacement, templates, and the permission scopes.

use reqwest::Method;
use serde_json::{json, Value};

use super::{contact_form, create_form, forms_site, public};
use crate::helpers::{assert_problem, TestApp};
use crate::idp::{add_member, app_with_idp, jwk, user_token, JwksServer};

#[actix_web::test]
async fn every_forms_endpoint_answers_404_while_the_module_is_off() {
    let app = TestApp::spawn().await;
    let key = app.admin_key.clone();
    let site = app.create_site_id("forms-off").await;
    let res = app.put(&format!("/sites/{site}"), &key, json!({"base_url": "https://off.example.org"})).await;
    assert_eq!(res.status(), 200);
    for (method, path) in [
        (Method::GET, format!("/sites/{site}/forms")),
        (Method::POST, format!("/sites/{site}/forms")),
        (Method::GET, format!("/sites/{site}/form-templates")),
        (Method::GET, format!("/sites/{site}/forms/by-slug/contact")),
        (Method::PUT, format!("/sites/{site}/bot-protection")),
    ] {
        let res = app.request(method, &path, Some(&key), Some(contact_form("contact"))).await;
        assert_problem(res, 404, "RESOURCE_NOT_FOUND").await;
    }
    let res = public(&app, Method::GET, "off.example.org", "/public/forms/contact", None).await;
    assert_problem(res, 404, "RESOURCE_NOT_FOUND").await;

    // A form made while the module was on disappears with it.
    app.put(&format!("/sites/{site}/settings"), &key, json!({"module_forms_enabled": true})).await;
    let form = create_form(&app, &site, contact_form("contact")).await;
    app.put(&format!("/sites/{site}/settings"), &key, json!({"module_forms_enabled": false})).await;
    let id = form["id"].as_str().unwrap();
    assert_problem(app.get(&format!("/forms/{id}"), &key).await, 404, "RESOURCE_NOT_FOUND").await;
    assert_problem(app.get(&format!("/forms/{id}/submissions"), &key).await, 404, "RESOURCE_NOT_FOUND").await;
}

#[actix_web::test]
async fn forms_are_created_read_listed_and_soft_deleted() {
    let app = TestApp::spawn().await;
    let key = app.admin_key.clone();
    let site = forms_site(&app, "crud").await;
    let mut body = contact_form("contact");
    body["localizations"] = json!([{
        "locale": "en", "name": "Contact us", "consent_text": "I agree",
        "fields": [{"label": "name", "display_label": "Full name", "help_text": "As on your passport"}]
    }]);
    let form = create_form(&app, &site, body).await;
    assert_eq!(form["fields"].as_array().unwrap().len(), 7);
    assert_eq!(form["storage_mode"], "queryable");
    assert_eq!(form["localizations"][0]["fields"][0]["display_label"], "Full name");
    let id = form["id"].as_str().unwrap();

    let by_slug: Value = app.get(&format!("/sites/{site}/forms/by-slug/contact"), &key).await.json().await.unwrap();
    assert_eq!(by_slug["id"], form["id"]);
    assert_problem(
        app.post(&format!("/sites/{site}/forms"), &key, contact_form("contact")).await,
        409,
        "ENTITY_SLUG_TAKEN",
    )
    .await;
    let mut dup = contact_form("dup");
    dup["fields"][1]["label"] = json!("name");
    assert_problem(app.post(&format!("/sites/{site}/forms"), &key, dup).await, 400, "FORM_DUPLICATE_FIELD_LABELS")
        .await;
    let mut spoofed = contact_form("spoofed");
    spoofed["name"] = json!("Contact \u{202E}su");
    spoofed["fields"][0]["label"] = json!("na\u{0000}me");
    let problem =
        assert_problem(app.post(&format!("/sites/{site}/forms"), &key, spoofed).await, 422, "VALIDATION_ERROR").await;
    assert_eq!(problem["errors"].as_array().unwrap().len(), 1, "the name is checked first: {problem}");
    let mut lookahead = contact_form("look");
    lookahead["fields"][5]["pattern"] = json!("(?=A)[A-Z]+");
    let problem =
        assert_problem(app.post(&format!("/sites/{site}/forms"), &key, lookahead).await, 422, "VALIDATION_ERROR").await;
    assert_eq!(problem["errors"][0]["field"], "fields[5].pattern");

    for (slug, name) in [("alpha", "Zebra survey"), ("beta", "Apple order")] {
        let mut b = contact_form(slug);
        b["name"] = json!(name);
        create_form(&app, &site, b).await;
    }
    let list: Value = app
        .get(&format!("/sites/{site}/forms?sort_by=name&sort_dir=asc&page_size=2"), &key)
        .await
        .json()
        .await
        .unwrap();
    let names: Vec<&str> = list["data"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Apple order", "Contact"]);
    assert_eq!((list["meta"]["total"].as_u64(), list["meta"]["per_page"].as_u64()), (Some(3), Some(2)));
    assert!(list["data"][0].get("fields").is_none(), "the list leaves fields out");
    let found: Value = app.get(&format!("/sites/{site}/forms?search=ZEBRA"), &key).await.json().await.unwrap();
    assert_eq!(found["data"][0]["slug"], "alpha");
    assert_eq!(found["meta"]["total"], 1);

    assert_eq!(app.delete(&format!("/forms/{id}"), &key).await.status(), 204);
    assert_problem(app.get(&format!("/forms/{id}"), &key).await, 404, "ENTITY_NOT_FOUND").await;
    // Its slug is free again.
    create_form(&app, &site, contact_form("contact")).await;
}

#[actix_web::test]
async fn put_replaces_fields_and_localizations_atomically_and_leaves_omitted_parts() {
    let app = TestApp::spawn().await;
    let key = app.admin_key.clone();
    let site = forms_site(&app, "replace").await;
    let mut body = contact_form("contact");
    body["localizations"] = json!([{"locale": "en", "name": "Contact us",
        "fields": [{"label": "email", "display_label": "E-mail address"}]}]);
    let form = create_form(&app, &site, body).await;
    let id = form["id"].as_str().unwrap();

    // Fields only: the localizations stay, field texts follow their label.
    let fields = json!([{"label": "email", "field_type": "email", "required": true},
                        {"label": "message", "field_type": "textarea", "required": true, "max_length": 2000}]);
    let res = app.put(&format!("/forms/{id}"), &key, json!({"fields": fields})).await;
    assert_eq!(res.status(), 200);
    let updated: Value = res.json().await.unwrap();
    let labels: Vec<&str> =
        updated["fields"].as_array().unwrap().iter().map(|f| f["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["email", "message"]);
    assert_eq!(updated["localizations"][0]["name"], "Contact us");
    assert_eq!(updated["localizations"][0]["fields"][0]["display_label"], "E-mail address");

    // A failing update (a localization naming a field that is not there)
    // changes nothing, fields included.
    let bad = json!({"fields": [{"label": "only", "field_type": "text"}],
                     "localizations": [{"locale": "en", "name": "X", "fields": [{"label": "email", "display_label": "Y"}]}]});
    assert_problem(app.put(&format!("/forms/{id}"), &key, bad).await, 422, "VALIDATION_ERROR").await;
    let unchanged: Value = app.get(&format!("/forms/{id}"), &key).await.json().await.unwrap();
    assert_eq!(unchanged["fields"].as_array().unwrap().len(), 2);

    // Localizations sent: wiped and rewritten; `name` alone leaves fields alone.
    let de = app.get("/locales", &key).await.json::<Value>().await.unwrap();
    let de_id = de.as_array().unwrap().iter().find(|l| l["code"] == "de").unwrap()["id"].clone();
    app.post(
        &format!("/sites/{site}/locales"),
        &key,
        json!({"locale_id": de_id, "is_default": false, "url_prefix": "de"}),
    )
    .await;
    let res = app
        .put(
            &format!("/forms/{id}"),
            &key,
            json!({"name": "Kontakt", "localizations": [{"locale_id": de_id, "name": "Kontakt"}]}),
        )
        .await;
    let updated: Value = res.json().await.unwrap();
    assert_eq!(updated["localizations"].as_array().unwrap().len(), 1);
    assert_eq!(updated["localizations"][0]["locale_code"], "de");
    assert_eq!(updated["fields"].as_array().unwrap().len(), 2);
    assert_eq!(updated["name"], "Kontakt");
}

#[actix_web::test]
async fn templates_have_unique_names_and_seed_new_forms() {
    let app = TestApp::spawn().await;
    let key = app.admin_key.clone();
    let site = forms_site(&app, "templates").await;
    let body = json!({"name": "Newsletter", "description": "Sign-up",
        "fields": [{"label": "email", "field_type": "email", "required": true}],
        "requires_consent": true, "bot_protection": "mandatory"});
    let res = app.post(&format!("/sites/{site}/form-templates"), &key, body.clone()).await;
    assert_eq!(res.status(), 201);
    let template: Value = res.json().await.unwrap();
    assert_problem(
        app.post(&format!("/sites/{site}/form-templates"), &key, body).await,
        409,
        "FORM_TEMPLATE_NAME_EXISTS",
    )
    .await;

    let form =
        create_form(&app, &site, json!({"slug": "signup", "name": "Sign up", "template_id": template["id"]})).await;
    assert_eq!(form["fields"][0]["label"], "email");
    assert_eq!((form["requires_consent"].as_bool(), form["bot_protection"].as_str()), (Some(true), Some("mandatory")));

    let id = template["id"].as_str().unwrap();
    let res = app.put(&format!("/form-templates/{id}"), &key, json!({"name": "Newsletter v2"})).await;
    assert_eq!(res.json::<Value>().await.unwrap()["fields"][0]["label"], "email");
    let list: Value = app.get(&format!("/sites/{site}/form-templates"), &key).await.json().await.unwrap();
    assert_eq!(list[0]["name"], "Newsletter v2");
    assert_eq!(app.delete(&format!("/form-templates/{id}"), &key).await.status(), 204);
    assert_problem(app.get(&format!("/form-templates/{id}"), &key).await, 404, "ENTITY_NOT_FOUND").await;
}

#[actix_web::test]
async fn scopes_follow_the_spec_and_sites_stay_apart() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &[]).await;
    let site = forms_site(&app, "scopes").await;
    for (user, role) in [
        ("reader", "read"),
        ("author", "author"),
        ("author2", "author"),
        ("reviewer", "reviewer"),
        ("editor", "editor"),
    ] {
        add_member(&app, &site, user, role).await;
    }
    let call = |user: &str, method: Method, path: String, body: Option<Value>| {
        let token = user_token(user);
        let app = &app;
        async move { app.bearer(method, &path, &token, body).await }
    };
    // form: read for members, create for authors, templates for editors.
    assert_eq!(call("reader", Method::GET, format!("/sites/{site}/forms"), None).await.status(), 200);
    let res = call("reader", Method::POST, format!("/sites/{site}/forms"), Some(contact_form("r"))).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let res = call("author", Method::POST, format!("/sites/{site}/forms"), Some(contact_form("mine"))).await;
    assert_eq!(res.status(), 201);
    let mine = res.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    let res = call("author", Method::GET, format!("/sites/{site}/form-templates"), None).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
    assert_eq!(call("editor", Method::GET, format!("/sites/{site}/form-templates"), None).await.status(), 200);
    // update:own for the author, not another author; :any for editors.
    let rename = Some(json!({"name": "Renamed"}));
    assert_eq!(call("author", Method::PUT, format!("/forms/{mine}"), rename.clone()).await.status(), 200);
    let res = call("author2", Method::PUT, format!("/forms/{mine}"), rename.clone()).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
    assert_eq!(call("editor", Method::PUT, format!("/forms/{mine}"), rename).await.status(), 200);
    let res = call("author2", Method::DELETE, format!("/forms/{mine}"), None).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;

    // Another site's key and members see nothing of this site's forms.
    let other = forms_site(&app, "elsewhere").await;
    let foreign_key = app.create_key("Admin", Some(&other)).await;
    add_member(&app, &other, "stranger", "owner").await;
    for path in [format!("/forms/{mine}"), format!("/sites/{site}/forms"), format!("/forms/{mine}/submissions")] {
        let res = app.get(&path, &foreign_key).await;
        assert_problem(res, 403, "AUTH_API_KEY_SITE_DENIED").await;
        let res = call("stranger", Method::GET, path.clone(), None).await;
        assert_problem(res, 403, "AUTH_SITE_ACCESS_DENIED").await;
    }
    let res = app.put(&format!("/forms/{mine}"), &foreign_key, json!({"name": "x"})).await;
    assert_problem(res, 403, "AUTH_API_KEY_SITE_DENIED").await;
    let res = app.put(&format!("/sites/{site}/bot-protection"), &foreign_key, json!({"regenerate_key": true})).await;
    assert_problem(res, 403, "AUTH_API_KEY_SITE_DENIED").await;
}
