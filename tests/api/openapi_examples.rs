//! The served document's request examples are bodies the server takes: each
//! one (`plinth::openapi::examples`, in its first-hour order) is read from
//! `/api-docs/openapi.json` and sent to its operation on a real server, with
//! the path's ids those sent before it made, and must answer 2xx. Only what a
//! test must change is substituted: the example site's id by the site the
//! first example made, and the webhook's host by a local receiver.

use std::collections::HashMap;

use reqwest::Method;
use serde_json::Value;

use crate::helpers::TestApp;
use crate::receiver::Receiver;
use plinth::openapi::examples::{request_examples, EXAMPLE_SITE_ID};

/// `(method, path template, example)` of the operation `id` in the document.
fn operation<'a>(doc: &'a Value, id: &str) -> (Method, &'a str, &'a Value) {
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if op["operationId"] == id {
                let example = &op["requestBody"]["content"]["application/json"]["example"];
                assert!(!example.is_null(), "{id}: the document shows no request example");
                return (method.to_uppercase().parse().unwrap(), path, example);
            }
        }
    }
    panic!("{id}: no such operation in the document");
}

/// `{site_id}` is the site made, `{id}` the item last made in the collection
/// its path names before it (`/blogs/{id}/…`: the post), `{slug}` the form's.
fn concrete(template: &str, made: &HashMap<String, String>) -> String {
    let segments: Vec<&str> = template.trim_start_matches("/api/v1").split('/').collect();
    let filled: Vec<String> = segments
        .iter()
        .enumerate()
        .map(|(n, segment)| match *segment {
            "{site_id}" => made["sites"].clone(),
            "{id}" => made[segments[n - 1]].clone(),
            "{slug}" => made["form slug"].clone(),
            literal => literal.to_string(),
        })
        .collect();
    filled.join("/")
}

#[actix_web::test]
async fn every_request_example_of_the_document_is_taken_by_the_server() {
    let receiver = Receiver::start();
    let allowed = vec![receiver.host_port.clone()];
    let app = TestApp::spawn_with(move |c| c.ssrf_allowlist = allowed).await;
    let doc: Value =
        app.client.get(format!("{}/api-docs/openapi.json", app.base)).send().await.unwrap().json().await.unwrap();
    let examples = request_examples();
    assert!(examples.len() >= 10, "the common operations have examples");
    let site_host = examples[0].1["base_url"].as_str().unwrap().trim_start_matches("https://").to_string();
    let mut made: HashMap<String, String> = HashMap::new();
    for (id, _) in &examples {
        let (method, template, example) = operation(&doc, id);
        let text = example
            .to_string()
            .replace(EXAMPLE_SITE_ID, made.get("sites").map_or(EXAMPLE_SITE_ID, String::as_str))
            .replace("https://hooks.example.org/plinth", &receiver.url);
        let path = concrete(template, &made);
        let mut req = app.client.request(method.clone(), app.url(&path)).header("X-API-Key", &app.admin_key);
        if template.contains("/public/") {
            req = req.header("X-Site-Domain", &site_host);
        }
        let res = req.header("content-type", "application/json").body(text.clone()).send().await.unwrap();
        let status = res.status();
        let answer: Value = res.json().await.unwrap_or(Value::Null);
        assert!(status.is_success(), "{id}: {method} {path} {text} answered {status}: {answer}");
        if method == Method::POST {
            if let Some(new_id) = answer["id"].as_str() {
                let collection = template.rsplit('/').next().unwrap().to_string();
                made.insert(collection, new_id.to_string());
            }
            if let Some(slug) = answer["slug"].as_str().filter(|_| template.ends_with("/forms")) {
                made.insert("form slug".into(), slug.to_string());
            }
        }
    }
}
