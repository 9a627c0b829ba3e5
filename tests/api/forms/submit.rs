//! Public definitions and submissions: X-Site-Domain, localization, every
//! validation rule, hostile bodies, ALTCHA (once, never again, not after its
//! expiry), the remote verifier, reference codes, the event, the quota.

use reqwest::Method;
use sea_orm::EntityTrait;
use serde_json::{json, Value};

use super::verifier::{Verifier, SECRET};
use super::{contact_form, create_form, forms_site, public, solve, solved_token, submit, valid_data};
use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn the_public_definition_is_found_by_domain_or_slug_and_localized() {
    let app = TestApp::spawn().await;
    let key = app.admin_key.clone();
    let site = forms_site(&app, "pub").await;
    let mut body = contact_form("contact");
    body["requires_consent"] = json!(true);
    body["localizations"] = json!([{"locale": "en", "name": "Contact us", "consent_text": "I agree to be contacted",
        "fields": [{"label": "name", "display_label": "Full name", "placeholder": "Ada Lovelace"}]}]);
    create_form(&app, &site, body).await;

    let res = public(&app, Method::GET, "PUB.example.org:443", "/public/forms/contact", None).await;
    assert_eq!(res.status(), 200);
    assert!(res.headers()["vary"].to_str().unwrap().contains("X-Site-Domain"));
    let etag = res.headers()["etag"].to_str().unwrap().to_string();
    let canonical: Value = res.json().await.unwrap();
    assert_eq!((canonical["name"].as_str(), canonical["consent_text"].as_str()), (Some("Contact"), None));
    assert_eq!(canonical["fields"][0]["display_label"], "name");
    assert_eq!(canonical["fields"][0]["placeholder"], "Your name");

    let localized: Value =
        public(&app, Method::GET, "pub", "/public/forms/contact?locale=en", None).await.json().await.unwrap();
    assert_eq!(localized["name"], "Contact us");
    assert_eq!(localized["consent_text"], "I agree to be contacted");
    let name = &localized["fields"][0];
    assert_eq!((name["label"].as_str(), name["display_label"].as_str()), (Some("name"), Some("Full name")));
    assert_eq!(name["placeholder"], "Ada Lovelace");
    let locales: Value = app.get(&format!("/sites/{site}/locales"), &key).await.json().await.unwrap();
    let en_id = locales.as_array().unwrap().iter().find(|l| l["code"] == "en").map(|l| l["locale_id"].clone()).unwrap();
    let by_id: Value =
        public(&app, Method::GET, "pub", &format!("/public/forms/contact?locale={}", en_id.as_str().unwrap()), None)
            .await
            .json()
            .await
            .unwrap();
    assert_eq!(by_id["name"], "Contact us");

    let res = app
        .client
        .get(app.url("/public/forms/contact"))
        .header("X-Site-Domain", "pub.example.org")
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 304);
    // A write shows at once.
    let form_id = localized["id"].as_str().unwrap();
    app.put(&format!("/forms/{form_id}"), &key, json!({"description": "Changed"})).await;
    let fresh: Value =
        public(&app, Method::GET, "pub.example.org", "/public/forms/contact", None).await.json().await.unwrap();
    assert_eq!(fresh["description"], "Changed");

    assert_problem(app.client.get(app.url("/public/forms/contact")).send().await.unwrap(), 400, "BAD_REQUEST").await;
    assert_problem(
        public(&app, Method::GET, "nowhere.example.org", "/public/forms/contact", None).await,
        404,
        "ENTITY_NOT_FOUND",
    )
    .await;
    assert_problem(
        public(&app, Method::GET, "pub", "/public/forms/contact?locale=fr", None).await,
        404,
        "ENTITY_NOT_FOUND",
    )
    .await;
    app.put(&format!("/forms/{form_id}"), &key, json!({"is_active": false})).await;
    assert_problem(public(&app, Method::GET, "pub", "/public/forms/contact", None).await, 404, "ENTITY_NOT_FOUND")
        .await;
    let res = submit(&app, "pub", "contact", json!({"data": valid_data(), "consent_given": true})).await;
    assert_problem(res, 404, "ENTITY_NOT_FOUND").await;
}

#[actix_web::test]
async fn submissions_are_validated_field_by_field_on_the_server() {
    let app = TestApp::spawn().await;
    let site = forms_site(&app, "valid").await;
    let mut body = contact_form("contact");
    body["requires_consent"] = json!(true);
    create_form(&app, &site, body).await;
    let mut events = app.state.events.subscribe();

    let bad = json!({"name": "A", "email": "not-an-email", "age": 7, "topic": "other", "born": "10/12/1815",
                     "code": "ab12", "newsletter": "yes", "unknown": "x"});
    let res = submit(&app, "valid", "contact", json!({"data": bad, "consent_given": true})).await;
    let problem = assert_problem(res, 400, "FORM_VALIDATION_FAILED").await;
    let mut fields: Vec<&str> =
        problem["errors"].as_array().unwrap().iter().map(|e| e["field"].as_str().unwrap()).collect();
    fields.sort();
    assert_eq!(
        fields,
        [
            "data.age",
            "data.born",
            "data.code",
            "data.email",
            "data.name",
            "data.newsletter",
            "data.topic",
            "data.unknown"
        ]
    );
    assert!(!problem.to_string().contains("not-an-email"), "submitted values are not echoed");
    let missing = submit(&app, "valid", "contact", json!({"data": {"name": "Ada"}, "consent_given": true})).await;
    let problem = assert_problem(missing, 400, "FORM_VALIDATION_FAILED").await;
    assert!(problem["errors"].as_array().unwrap().iter().any(|e| e["code"] == "VALIDATION_REQUIRED_FIELD"));
    let wrong_type = submit(&app, "valid", "contact", json!({"data": "text", "consent_given": true})).await;
    assert_eq!(wrong_type.status(), 422, "a body of the wrong shape is refused like any JSON body");
    let no_consent = submit(&app, "valid", "contact", json!({"data": valid_data(), "consent_given": false})).await;
    assert_problem(no_consent, 400, "FORM_CONSENT_REQUIRED").await;
    let huge = json!({"data": {"name": "x".repeat(1_000_000)}, "consent_given": true});
    assert_problem(submit(&app, "valid", "contact", huge).await, 413, "PAYLOAD_TOO_LARGE").await;

    let res = submit(&app, "valid", "contact", json!({"data": valid_data(), "consent_given": true})).await;
    assert_eq!(res.status(), 201);
    let receipt: Value = res.json().await.unwrap();
    let code = receipt["reference_code"].as_str().unwrap();
    assert_eq!(receipt["status"], "new");
    let groups: Vec<&str> = code.split('-').collect();
    assert_eq!(groups.iter().map(|g| g.len()).collect::<Vec<_>>(), [4, 4, 4]);
    assert!(code.chars().all(|c| c == '-' || "ACDEFHJKLMNPQRTUVWXY23456789".contains(c)), "{code}");

    let event = loop {
        let e = events.recv().await.unwrap();
        if e.event == "form.submission.created" {
            break e;
        }
    };
    let mut keys: Vec<&String> = event.data.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["created_at", "form_id", "reference_code", "submission_id"]);
    assert_eq!(event.data["reference_code"], code);
}

#[actix_web::test]
async fn a_catastrophic_pattern_cannot_stall_a_worker() {
    let app = TestApp::spawn().await;
    let site = forms_site(&app, "redos").await;
    let form = json!({"slug": "evil", "name": "Evil", "fields": [
        {"label": "v", "field_type": "text", "required": true, "pattern": "(a+)+$"}]});
    create_form(&app, &site, form).await;
    let attack = format!("{}!", "a".repeat(9_000));
    let res = submit(&app, "redos", "evil", json!({"data": {"v": attack}})).await;
    let problem = assert_problem(res, 400, "FORM_VALIDATION_FAILED").await;
    assert_eq!(problem["errors"][0]["field"], "data.v");
    assert_eq!(submit(&app, "redos", "evil", json!({"data": {"v": "aaaa"}})).await.status(), 201);
}

#[actix_web::test]
async fn a_solved_altcha_works_once_and_never_again_nor_after_its_expiry() {
    let app = TestApp::spawn().await;
    let site = forms_site(&app, "altcha").await;
    let mut body = contact_form("contact");
    body["bot_protection"] = json!("mandatory");
    create_form(&app, &site, body).await;
    let res = public(&app, Method::GET, "altcha", "/public/forms/contact", None).await;
    assert_eq!(res.json::<Value>().await.unwrap()["bot_protection_mode"], "altcha");

    let challenge: Value =
        public(&app, Method::GET, "altcha", "/public/forms/contact/altcha-challenge", None).await.json().await.unwrap();
    assert_eq!(challenge["algorithm"], "SHA-256");
    assert!(challenge["salt"].as_str().unwrap().contains("expires="));
    for member in ["challenge", "maxnumber", "signature"] {
        assert!(!challenge[member].is_null(), "{member}");
    }
    let token = solve(&challenge);
    let without = submit(&app, "altcha", "contact", json!({"data": valid_data()})).await;
    assert_problem(without, 400, "BOT_PROTECTION_MISSING").await;
    let ok = submit(&app, "altcha", "contact", json!({"data": valid_data(), "bot_protection_token": token})).await;
    assert_eq!(ok.status(), 201);
    let replay = submit(&app, "altcha", "contact", json!({"data": valid_data(), "bot_protection_token": token})).await;
    assert_problem(replay, 400, "BOT_PROTECTION_INVALID").await;
    let garbage =
        submit(&app, "altcha", "contact", json!({"data": valid_data(), "bot_protection_token": "bm9wZQ=="})).await;
    assert_problem(garbage, 400, "BOT_PROTECTION_INVALID").await;

    // Solved but sent after the challenge's 10 minutes.
    let late = solved_token(&app, "altcha", "contact").await;
    app.clock.advance(chrono::Duration::minutes(11));
    let res = submit(&app, "altcha", "contact", json!({"data": valid_data(), "bot_protection_token": late})).await;
    assert_problem(res, 400, "BOT_PROTECTION_INVALID").await;

    // A rotated key voids outstanding challenges.
    let before = solved_token(&app, "altcha", "contact").await;
    let res = app.put(&format!("/sites/{site}/bot-protection"), &app.admin_key, json!({"regenerate_key": true})).await;
    assert_eq!(res.status(), 200);
    let res = submit(&app, "altcha", "contact", json!({"data": valid_data(), "bot_protection_token": before})).await;
    assert_problem(res, 400, "BOT_PROTECTION_INVALID").await;
    // A spent solution stays spent after a restart: the replay store is the database.
    let fresh = solved_token(&app, "altcha", "contact").await;
    assert_eq!(
        submit(&app, "altcha", "contact", json!({"data": valid_data(), "bot_protection_token": fresh})).await.status(),
        201
    );
    let spent = plinth_entities::altcha_spent::Entity::find().all(&app.state.db).await.unwrap();
    assert_eq!(spent.len(), 2);
}

#[actix_web::test]
async fn the_remote_verifier_decides_and_failures_fail_closed() {
    let verifier = Verifier::start();
    let allow = verifier.host_port.clone();
    let app = TestApp::spawn_with(move |c| c.ssrf_allowlist = vec![allow]).await;
    let key = app.admin_key.clone();
    let site = forms_site(&app, "remote").await;
    let mut body = contact_form("contact");
    body["bot_protection"] = json!("mandatory");
    create_form(&app, &site, body).await;
    let res = app.put(&format!("/sites/{site}/bot-protection"), &key, json!({"mode": "remote"})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let res = app
        .put(
            &format!("/sites/{site}/bot-protection"),
            &key,
            json!({"mode": "remote", "verify_url": "http://10.0.0.1/verify"}),
        )
        .await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let res = app
        .put(&format!("/sites/{site}/bot-protection"), &key, json!({"mode": "remote", "verify_url": verifier.url}))
        .await;
    assert_eq!(res.status(), 200);
    let send = |token: &'static str| {
        let app = &app;
        async move { submit(app, "remote", "contact", json!({"data": valid_data(), "bot_protection_token": token})).await }
    };
    assert_problem(send("human").await, 503, "BOT_PROTECTION_NOT_CONFIGURED").await;
    let res = app.put(&format!("/sites/{site}/bot-protection"), &key, json!({"secret": SECRET})).await;
    let settings: Value = res.json().await.unwrap();
    assert_eq!((settings["mode"].as_str(), settings["secret_set"].as_bool()), (Some("remote"), Some(true)));
    assert!(settings.get("secret").is_none(), "the secret is never returned");
    assert_problem(
        public(&app, Method::GET, "remote", "/public/forms/contact/altcha-challenge", None).await,
        409,
        "CONFLICT",
    )
    .await;

    assert_eq!(send("human").await.status(), 201);
    assert_problem(send("robot").await, 400, "BOT_PROTECTION_INVALID").await;
    assert_problem(send("broken").await, 503, "BOT_PROTECTION_PROVIDER_ERROR").await;
    let seen = verifier.seen.lock().unwrap().clone();
    assert!(seen.iter().all(|f| f.contains(&("secret".to_string(), SECRET.to_string()))));
    verifier.stop().await;
    assert_problem(send("human").await, 503, "BOT_PROTECTION_PROVIDER_ERROR").await;
}

#[actix_web::test]
async fn submissions_are_limited_per_client_address() {
    let app = TestApp::spawn_with(|c| c.rate_limits.form_submissions_per_minute = 2).await;
    let site = forms_site(&app, "quota").await;
    create_form(&app, &site, contact_form("contact")).await;
    for _ in 0..2 {
        assert_eq!(submit(&app, "quota", "contact", json!({"data": valid_data()})).await.status(), 201);
    }
    let res = submit(&app, "quota", "contact", json!({"data": valid_data()})).await;
    assert!(res.headers().contains_key("retry-after"));
    assert_problem(res, 429, "RATE_LIMIT_EXCEEDED").await;
}

#[actix_web::test]
async fn visitors_look_up_read_and_delete_by_reference_code() {
    let app = TestApp::spawn().await;
    let site = forms_site(&app, "visitor").await;
    create_form(&app, &site, contact_form("contact")).await;
    let receipt: Value = submit(&app, "visitor", "contact", json!({"data": valid_data()})).await.json().await.unwrap();
    let code = receipt["reference_code"].as_str().unwrap();

    let res = public(
        &app,
        Method::POST,
        "visitor",
        "/public/submissions/lookup",
        Some(json!({"reference_code": code.to_lowercase()})),
    )
    .await;
    let found: Value = res.json().await.unwrap();
    let mut keys: Vec<&String> = found.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["created_at", "status"], "the spec: status and created_at only");
    let view: Value =
        public(&app, Method::GET, "visitor", &format!("/public/submissions/{code}"), None).await.json().await.unwrap();
    assert_eq!(
        (view["data"]["email"].as_str(), view["form_slug"].as_str()),
        (Some("ada@example.org"), Some("contact"))
    );
    // Another site's domain does not find it.
    forms_site(&app, "other").await;
    let res = public(&app, Method::GET, "other", &format!("/public/submissions/{code}"), None).await;
    assert_problem(res, 404, "INVALID_REFERENCE_CODE").await;
    let res = public(&app, Method::GET, "visitor", "/public/submissions/AAAA-AAAA-AAAA", None).await;
    assert_problem(res, 404, "INVALID_REFERENCE_CODE").await;

    let res = app.client.delete(app.url(&format!("/public/submissions/{code}"))).send().await.unwrap();
    assert_eq!(res.status(), 204);
    let again = public(&app, Method::DELETE, "visitor", &format!("/public/submissions/{code}"), None).await;
    assert_problem(again, 410, "SUBMISSION_DELETED").await;
    let res =
        public(&app, Method::POST, "visitor", "/public/submissions/lookup", Some(json!({"reference_code": code})))
            .await;
    assert_problem(res, 410, "SUBMISSION_DELETED").await;
}
