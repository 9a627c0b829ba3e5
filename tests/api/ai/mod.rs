//! AI assist over HTTP against a real chat-completions provider on
//! 127.0.0.1 (`fake.rs`): settings, each action, saving results through the
//! content and media paths, and every way a call fails.

mod actions;
mod failures;
mod fake;
mod origin;
mod saving;
mod settings;

use serde_json::{json, Value};

use crate::helpers::TestApp;
pub use fake::FakeProvider;

pub const API_KEY: &str = "sk-test-0123456789abcdef";

/// A provider and an app that may call it (its address is allowlisted).
pub async fn start() -> (FakeProvider, TestApp) {
    let provider = FakeProvider::start();
    let allowed = provider.host_port.clone();
    let app = TestApp::spawn_with(|c| c.ssrf_allowlist = vec![allowed]).await;
    (provider, app)
}

/// A site with the AI module on.
pub async fn ai_site(app: &TestApp, slug: &str) -> String {
    let site = app.create_site_id(slug).await;
    let res = app.put(&format!("/sites/{site}/settings"), &app.admin_key, json!({"module_ai_enabled": true})).await;
    assert_eq!(res.status(), 200);
    site
}

/// Saves the site's AI settings (`extra` laid over a working configuration).
pub async fn configure(app: &TestApp, site: &str, base_url: &str, extra: Value) -> Value {
    let mut body = json!({
        "provider": "openai",
        "base_url": base_url,
        "model": "gpt-test",
        "vision_model": "gpt-test-vision",
        "api_key": API_KEY,
        "temperature": 0.2,
        "max_tokens": 500
    });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let res = app.put(&format!("/sites/{site}/ai/settings"), &app.admin_key, body).await;
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}

/// A site with the module on, configured against the provider's `/v1`.
pub async fn ready_site(app: &TestApp, provider: &FakeProvider, slug: &str) -> String {
    let site = ai_site(app, slug).await;
    configure(app, &site, &provider.base_url("v1"), json!({})).await;
    site
}

pub async fn act(app: &TestApp, site: &str, action: &str, key: &str, body: Value) -> reqwest::Response {
    app.post(&format!("/sites/{site}/ai/{action}"), key, body).await
}

/// Content long enough to suggest from.
pub const ARTICLE: &str = "Plinth is a headless CMS. This article explains how to model pages, \
    blogs and media for several sites at once, and how editors publish them.";
