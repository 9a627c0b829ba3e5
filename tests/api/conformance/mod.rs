//! Conformance suite: the API specification (`spec/cms-api.md`, "Endpoints")
//! mirrored as tests, one file per spec section that has built endpoints.
//!
//! Rules every file follows:
//!
//! - Each row of the spec's endpoint tables sends exactly the body its Payload
//!   column lists (nothing more, no body where none is listed) and expects the
//!   documented status and key response fields. Where the spec leaves a body
//!   open, the shapes the OpenAPI document gives are used (members, review actions).
//!   Rows documented as "paginated" are checked for the
//!   `{data, meta: {page, per_page, total, total_pages}}` envelope.
//! - Each error code the spec ties to an endpoint (in the tables, the
//!   state-transition tables or the Authentication rules) is reached once with
//!   `assert_problem`. The role matrix is not re-tested: one 403 per section.
//! - Where the server disagrees with the spec, the test keeps asserting the spec
//!   and is marked `#[ignore = "drift: …"]` until the server is fixed.
//! - Each test builds its own data on its own app; rows are grouped per spec
//!   table to keep the number of app starts small.
//!
//! Sections not built yet (export, robots.txt, site.webmanifest,
//! browserconfig.xml, favicon, analytics, media, documents, forms) have no file.
//! The next family to land (media, documents, forms) adds its file here, e.g.
//! `media.rs`, following the same rules.

mod auth_users;
mod blogs;
mod peer_shapes;
mod sites;
mod skills_cv;
mod system;
mod trash;
mod webhooks;

use reqwest::{Response, StatusCode};
use serde_json::Value;

use crate::helpers::TestApp;

/// Asserts the status of `res` and returns its JSON body (the body is shown
/// when the status differs).
pub async fn expect_json(res: Response, status: u16) -> Value {
    let actual = res.status();
    let text = res.text().await.unwrap();
    assert_eq!(actual, StatusCode::from_u16(status).unwrap(), "unexpected status; body: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// Asserts a status without reading the body (204s, plain text).
pub fn expect_status(res: &Response, status: u16) {
    assert_eq!(res.status().as_u16(), status, "unexpected status for {}", res.url());
}

/// Asserts the spec's pagination envelope and returns the `data` array.
pub fn assert_paginated(body: &Value, page: u64, per_page: u64, total: u64) -> Vec<Value> {
    let total_pages = total.div_ceil(per_page);
    assert_eq!(
        body["meta"],
        serde_json::json!({"page": page, "per_page": per_page, "total": total, "total_pages": total_pages}),
        "pagination envelope: {body}"
    );
    let data = body["data"].as_array().unwrap_or_else(|| panic!("data is an array: {body}")).clone();
    let expected_len = total.saturating_sub((page - 1) * per_page).min(per_page);
    assert_eq!(data.len() as u64, expected_len, "page length: {body}");
    data
}

/// The id of the global locale with `code` (seeded: `en`, `de`).
pub async fn locale_id(app: &TestApp, code: &str) -> String {
    let all: Vec<Value> = app.get("/locales", &app.admin_key).await.json().await.unwrap();
    all.iter().find(|l| l["code"] == code).unwrap_or_else(|| panic!("locale {code}"))["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A string field of a JSON body.
pub fn s(body: &Value, field: &str) -> String {
    body[field].as_str().unwrap_or_else(|| panic!("{field} is a string: {body}")).to_string()
}
