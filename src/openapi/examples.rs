//! Request examples of the operations a newcomer meets first (the README's
//! first hour): a site with two locales, a key, a post and its translation,
//! publishing it, a page, a webhook, a contact form and a submission, a
//! redirect, a menu. Each is the body as the server takes it;
//! `tests/api/openapi_examples.rs` sends every one, in this order, to a real
//! server, so an example the server would refuse fails there.

use serde_json::{json, Value};

/// Where an example names a site, it names this one (a test puts the site
/// it made in its place).
pub const EXAMPLE_SITE_ID: &str = "3b1f8a52-7c4e-4d2a-9e61-5a0c2f9d8b17";

/// `(operation id, request body)`, in the order a first hour calls them.
pub fn request_examples() -> Vec<(&'static str, Value)> {
    vec![
        (
            "create_site",
            json!({"name": "Bakery", "slug": "bakery", "base_url": "https://bakery.example.org",
                "locales": [{"locale_id": "en", "is_default": true}]}),
        ),
        ("add_site_locale", json!({"locale_id": "de", "url_prefix": "de"})),
        ("create_api_key", json!({"name": "front end", "permission": "Read", "site_id": EXAMPLE_SITE_ID})),
        (
            "create_blog",
            json!({"site_ids": [EXAMPLE_SITE_ID], "title": "Fresh bread", "excerpt": "Out of the oven at seven.",
                "body": "Our rye comes out of the oven at seven, every day but Monday."}),
        ),
        (
            "create_blog_localization",
            json!({"locale_id": "de", "title": "Frisches Brot", "excerpt": "Um sieben aus dem Ofen.",
                "body": "Unser Roggenbrot kommt um sieben aus dem Ofen, jeden Tag außer Montag."}),
        ),
        ("update_blog", json!({"status": "Published"})),
        ("create_page", json!({"site_ids": [EXAMPLE_SITE_ID], "title": "About us", "route": "/about"})),
        (
            "create_webhook",
            json!({"url": "https://hooks.example.org/plinth", "events": ["blog.published", "blog.updated"]}),
        ),
        ("update_settings", json!({"module_forms_enabled": true})),
        (
            "create_form",
            json!({"slug": "contact", "name": "Contact", "bot_protection": "none", "fields": [
                {"label": "email", "field_type": "email", "required": true},
                {"label": "message", "field_type": "textarea", "required": true}]}),
        ),
        ("submit_form", json!({"data": {"email": "ada@example.org", "message": "Rye on Sundays?"}})),
        ("create_redirect", json!({"source_path": "/old-menu", "destination": "/menu"})),
        ("create_menu", json!({"name": "Main"})),
        ("create_menu_item", json!({"labels": {"en": "About us", "de": "Über uns"}, "url": "/about"})),
    ]
}

/// Puts each example on its operation's JSON request body.
pub(super) fn add_request_examples(doc: &mut utoipa::openapi::OpenApi) {
    let examples: std::collections::HashMap<&str, Value> = request_examples().into_iter().collect();
    for item in doc.paths.paths.values_mut() {
        for operation in super::kinds::operations_mut(item) {
            let Some(example) = operation.operation_id.as_deref().and_then(|id| examples.get(id)) else {
                continue;
            };
            if let Some(content) =
                operation.request_body.as_mut().and_then(|body| body.content.get_mut("application/json"))
            {
                content.example = Some(example.clone());
            }
        }
    }
}
