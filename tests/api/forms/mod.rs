//! Forms over HTTP: the builder, public definitions and submissions, ALTCHA
//! (solved here, as the widget would), a real remote verifier on 127.0.0.1,
//! visitors' access by reference code, and the review of submissions.

mod builder;
mod review;
mod submit;
mod verifier;

use base64::Engine;
use reqwest::{Method, Response};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::helpers::TestApp;

/// A site with the forms module on, reachable as `{slug}.example.org`.
pub async fn forms_site(app: &TestApp, slug: &str) -> String {
    let site = app.create_site_id(slug).await;
    let res = app.put(&format!("/sites/{site}/settings"), &app.admin_key, json!({"module_forms_enabled": true})).await;
    assert_eq!(res.status(), 200);
    let res = app
        .put(&format!("/sites/{site}"), &app.admin_key, json!({"base_url": format!("https://{slug}.example.org")}))
        .await;
    assert_eq!(res.status(), 200);
    site
}

/// A contact form: name (required, 2-50), email (required), age (18-130),
/// topic (select), born (date), code (pattern), newsletter (checkbox).
pub fn contact_form(slug: &str) -> Value {
    json!({
        "slug": slug,
        "name": "Contact",
        "description": "Write to us",
        "is_active": true,
        "requires_consent": false,
        "bot_protection": "none",
        "storage_mode": "queryable",
        "retention_days": null,
        "fields": [
            {"label": "name", "field_type": "text", "required": true, "min_length": 2, "max_length": 50, "placeholder": "Your name"},
            {"label": "email", "field_type": "email", "required": true},
            {"label": "age", "field_type": "number", "required": false, "min": 18, "max": 130},
            {"label": "topic", "field_type": "select", "required": true, "options": ["sales", "support"]},
            {"label": "born", "field_type": "date", "required": false},
            {"label": "code", "field_type": "text", "required": false, "pattern": "[A-Z]{2}\\d{4}"},
            {"label": "newsletter", "field_type": "checkbox", "required": false}
        ]
    })
}

pub fn valid_data() -> Value {
    json!({"name": "Ada", "email": "ada@example.org", "age": 36, "topic": "support", "born": "1815-12-10", "code": "AB1234", "newsletter": true})
}

pub async fn create_form(app: &TestApp, site: &str, body: Value) -> Value {
    let res = app.post(&format!("/sites/{site}/forms"), &app.admin_key, body).await;
    assert_eq!(res.status(), 201);
    res.json().await.unwrap()
}

/// An anonymous request naming the site by `domain` in `X-Site-Domain`.
pub async fn public(app: &TestApp, method: Method, domain: &str, path: &str, body: Option<Value>) -> Response {
    let mut req = app.client.request(method, app.url(path)).header("X-Site-Domain", domain);
    if let Some(body) = body {
        req = req.json(&body);
    }
    req.send().await.unwrap()
}

pub async fn submit(app: &TestApp, domain: &str, slug: &str, body: Value) -> Response {
    public(app, Method::POST, domain, &format!("/public/forms/{slug}/submit"), Some(body)).await
}

/// Solves an ALTCHA challenge the way the widget does: finds the number whose
/// SHA-256 with the salt is the challenge, and answers the base64 JSON payload.
pub fn solve(challenge: &Value) -> String {
    let salt = challenge["salt"].as_str().unwrap();
    let target = challenge["challenge"].as_str().unwrap();
    let max = challenge["maxnumber"].as_u64().unwrap();
    let number = (0..=max)
        .find(|n| hex::encode(Sha256::digest(format!("{salt}{n}").as_bytes())) == target)
        .expect("the challenge has a solution");
    let payload = json!({
        "algorithm": challenge["algorithm"], "challenge": target, "number": number,
        "salt": salt, "signature": challenge["signature"], "took": 42
    });
    base64::engine::general_purpose::STANDARD.encode(payload.to_string())
}

pub async fn solved_token(app: &TestApp, domain: &str, slug: &str) -> String {
    let res = public(app, Method::GET, domain, &format!("/public/forms/{slug}/altcha-challenge"), None).await;
    assert_eq!(res.status(), 200);
    solve(&res.json().await.unwrap())
}
