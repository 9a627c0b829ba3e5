//! Every write shows on the next read. Each mutating operation of the served
//! document is performed on a site full of items (the isolation matrix's site
//! B, called as the matrix aims at it, with the changes below so that each
//! call really changes something), by a caller allowed to, and must drop the
//! site's cached answers as it commits: the site's write generation moves, so
//! the next read is built from the database, not served from before.
//!
//! The generation moves only through the one write path (`db::WriteTxn`
//! noting what it touched, `state::write_caches` dropping it): a write that
//! skips it leaves the generation where it was and fails here. Operations
//! whose answers no site's cache holds are still performed, each with why it
//! is not checked; both lists are checked against the document like the
//! matrix's own.

use std::collections::{BTreeMap, BTreeSet};

use reqwest::Method;
use serde_json::Value;
use uuid::Uuid;

use crate::ai::FakeProvider;
use crate::helpers::TestApp;
use crate::idp::{jwk, user_token, JwksServer, AUDIENCE, ISSUER};
use crate::isolation::documented;
use crate::isolation::setup::{site_b, SiteB};
use crate::isolation::table::{rows, Body, Row};
use crate::isolation::table_more::aimed_rows;

/// Who performs a call: the Master key, a signed-in user, or a visitor of B's
/// public pages (no credentials).
#[derive(Clone, Copy)]
enum Who {
    Master,
    User(&'static str),
    Visitor,
}

/// A call of the test's own: an operation without an id in its path, one the
/// matrix aims differently, or a step that readies the next check.
struct Step {
    op: &'static str,
    call: &'static str,
    body: Option<&'static str>,
    who: Who,
    /// Keeps the answer's `id` as `{name}` for the calls after it.
    keep_id: Option<&'static str>,
}

const fn step(op: &'static str, call: &'static str, body: Option<&'static str>) -> Step {
    Step { op, call, body, who: Who::Master, keep_id: None }
}

const fn as_user(user: &'static str, op: &'static str, call: &'static str, body: Option<&'static str>) -> Step {
    Step { op, call, body, who: Who::User(user), keep_id: None }
}

const fn as_visitor(
    op: &'static str,
    call: &'static str,
    body: Option<&'static str>,
    keep: Option<&'static str>,
) -> Step {
    Step { op, call, body, who: Who::Visitor, keep_id: keep }
}

const fn keeping(name: &'static str, op: &'static str, call: &'static str, body: Option<&'static str>) -> Step {
    Step { op, call, body, who: Who::Master, keep_id: Some(name) }
}

/// Operations performed but not checked: no answer of a site's is built from
/// what they change, or it is never cached.
const UNCHECKED: &[(&str, &str)] = &[
    ("POST /admin/users/{idp_user_id}/ban", "a user's moderation: the account gate drops it (forget_user)"),
    ("POST /admin/users/{idp_user_id}/suspend", "a user's moderation: the account gate drops it (forget_user)"),
    ("POST /admin/users/{idp_user_id}/unsuspend", "a user's moderation: the account gate drops it (forget_user)"),
    ("PUT /auth/preferences", "the caller's own preferences: no site's answer"),
    ("PUT /auth/help-state", "the caller's own help state: no site's answer"),
    ("PATCH /auth/help-state", "the caller's own help state: no site's answer"),
    ("DELETE /auth/help-state", "the caller's own help state: no site's answer"),
    ("POST /auth/help-state/reset", "the caller's own help state: no site's answer"),
    ("PUT /auth/onboarding", "the caller's own onboarding: no site's answer"),
    ("POST /auth/onboarding/complete", "the caller's own onboarding: no site's answer"),
    ("POST /sites/{site_id}/analytics/pageview", "analytics answers depend on time and are never cached"),
    ("POST /sites/{site_id}/analytics/aggregate", "analytics answers depend on time and are never cached"),
    ("POST /sites/{site_id}/export", "export job answers depend on time and are never cached"),
    ("POST /sites/{site_id}/ai/test", "a connection test stores nothing"),
    ("POST /sites/{site_id}/ai/models", "the provider's model list stores nothing"),
    ("POST /public/submissions/lookup", "a read sent as POST (the code stays out of URLs)"),
];

/// Operations not performed here, with why and where they are tested.
const NOT_PERFORMED: &[(&str, &str)] = &[
    ("POST /sites/import", "a whole site from an archive; its last transaction audits the new site (import_archives)"),
    ("PUT /idp/users/{id}/role", "the identity provider's user directory: no site's answer (idp_users)"),
];

/// Calls of the test's own, by operation (they replace the matrix's).
fn own_calls() -> Vec<Step> {
    let mut steps = vec![
        step("POST /categories", "/categories", Some(r#"{"site_id": "{site}", "name": "Written"}"#)),
        step("POST /tags", "/tags", Some(r#"{"site_id": "{site}", "name": "Written", "is_global": false}"#)),
        keeping("new_locale", "POST /locales", "/locales", Some(r#"{"code": "wr", "name": "Written"}"#)),
        step("PUT /locales/{id}", "/locales/{new_locale}", Some(r#"{"name": "Rewritten"}"#)),
        step("DELETE /locales/{id}", "/locales/{new_locale}", None),
        keeping("created_site", "POST /sites", "/sites", Some(r#"{"name": "Written", "slug": "written"}"#)),
        step(
            "POST /cv",
            "/cv",
            Some(r#"{"site_ids": ["{site}"], "title": "Written", "entry_type": "work", "start_date": "2021-01-01"}"#),
        ),
        step("POST /sites/{site_id}/environments", "/sites/{site}/environments", Some(r#"{"name": "qa"}"#)),
        step(
            "POST /sites/{site_id}/webhooks",
            "/sites/{site}/webhooks",
            Some(r#"{"url": "{receiver}", "events": ["blog.created"]}"#),
        ),
        step("POST /sites/{site_id}/locales", "/sites/{site}/locales", Some(r#"{"locale_id": "{de}"}"#)),
        step(
            "POST /sites/{site_id}/members/transfer-ownership",
            "/sites/{site}/members/transfer-ownership",
            Some(r#"{"idp_user_id": "bravo-reviewer"}"#),
        ),
        step(
            "POST /sites/{site_id}/transfer-ownership",
            "/sites/{site}/transfer-ownership",
            Some(r#"{"new_owner_clerk_user_id": "bravo-heir"}"#),
        ),
        step(
            "POST /sites/{site_id}/navigation/reorder",
            "/sites/{site}/navigation/reorder",
            Some(r#"{"items": [{"id": "{menu_item}", "display_order": 9}]}"#),
        ),
        step(
            "PUT /sites/{site_id}/ai/settings",
            "/sites/{site}/ai/settings",
            Some(
                r#"{"provider": "openai", "base_url": "{ai_base}", "model": "m", "api_key": "sk-test-0123456789abcdef"}"#,
            ),
        ),
        step("PUT /sites/{site_id}/ai/config", "/sites/{site}/ai/config", Some(r#"{"model": "written"}"#)),
        step("POST /documents/{id}/privacy", "/documents/{private_doc}/privacy", Some(r#"{"password": "Written-1"}"#)),
        // The right password after a wrong one clears the count.
        as_visitor(
            "POST /documents/{id}/verify-access",
            "/documents/{private_doc}/verify-access",
            Some(r#"{"password": "Written-1"}"#),
            None,
        ),
        step("POST /documents/{id}/unlock", "/documents/{private_doc}/unlock", None),
        as_visitor(
            "POST /public/forms/{slug}/submit",
            "/public/forms/bravo-form/submit",
            Some(r#"{"data": {"email": "written@example.org"}}"#),
            Some("reference"),
        ),
        as_visitor(
            "POST /public/submissions/lookup",
            "/public/submissions/lookup",
            Some(r#"{"reference_code": "{reference}"}"#),
            None,
        ),
        as_visitor("DELETE /public/submissions/{reference_code}", "/public/submissions/{reference}", None, None),
        step(
            "DELETE /documents/{id}/privacy",
            "/documents/{private_doc}/privacy",
            Some(r#"{"password": "Written-1"}"#),
        ),
        step("DELETE /api-keys/{id}", "/api-keys/{second_key}", None),
        step("DELETE /navigation/{id}", "/navigation/{second_item}", None),
        step("POST /blogs/{blog_id}/documents", "/blogs/{blog}/documents", Some(r#"{"document_id": "{second_doc}"}"#)),
        step(
            "POST /sites/{site_id}/ai/section_content",
            "/sites/{site}/ai/section_content",
            Some(r#"{"section_type": "hero", "section_context": "A welcome for sailors who book trips"}"#),
        ),
        step(
            "POST /sites/{site_id}/ai/suggest",
            "/sites/{site}/ai/suggest",
            Some(r#"{"field": "title", "content": "Plinth models pages, posts and media for many sites at once."}"#),
        ),
        step("POST /sites/{site_id}/ai/models", "/sites/{site}/ai/models", Some(r#"{"base_url": "{ai_base}"}"#)),
        step("DELETE /social/{id}", "/social/{second_link}", None),
        step("DELETE /admin/users/{idp_user_id}", "/admin/users/bravo-banned", None),
        step("POST /admin/users/{idp_user_id}/ban", "/admin/users/bravo-banned/ban", Some(r#"{"reason": "w"}"#)),
        step(
            "POST /admin/users/{idp_user_id}/suspend",
            "/admin/users/bravo-banned/suspend",
            Some(r#"{"reason": "w", "duration_hours": 1}"#),
        ),
        step("POST /admin/users/{idp_user_id}/unsuspend", "/admin/users/bravo-banned/unsuspend", None),
        as_user("bravo-reviewer", "POST /notifications/{id}/read", "/notifications/{notification}/read", None),
        as_user("bravo-reviewer", "PUT /notifications/{id}/read", "/notifications/{notification}/read", None),
        as_user("bravo-reviewer", "POST /notifications/read-all", "/notifications/read-all", None),
        as_user(
            "bravo-reviewer",
            "PUT /sites/{site_id}/notifications/read-all",
            "/sites/{site}/notifications/read-all",
            None,
        ),
        as_user("bravo-leaver", "DELETE /auth/account", "/auth/account", None),
        as_user(
            "bravo-reviewer",
            "POST /sites/{site_id}/onboarding/{step}",
            "/sites/{site}/onboarding/configure_site",
            None,
        ),
        as_user(
            "bravo-reviewer",
            "PUT /sites/{site_id}/onboarding-progress",
            "/sites/{site}/onboarding-progress",
            Some(r#"{"step_key": "edit_first_post"}"#),
        ),
        as_user("bravo-reviewer", "PUT /auth/preferences", "/auth/preferences", Some(r#"{"language": "de"}"#)),
        as_user("bravo-reviewer", "PUT /auth/help-state", "/auth/help-state", Some(r#"{"dismiss_hotspot": "a"}"#)),
        as_user("bravo-reviewer", "PATCH /auth/help-state", "/auth/help-state", Some(r#"{"dismiss_hotspot": "b"}"#)),
        as_user("bravo-reviewer", "DELETE /auth/help-state", "/auth/help-state", None),
        as_user("bravo-reviewer", "POST /auth/help-state/reset", "/auth/help-state/reset", None),
        as_user(
            "bravo-reviewer",
            "PUT /auth/onboarding",
            "/auth/onboarding",
            Some(r#"{"user_type": "team", "intents": []}"#),
        ),
        as_user(
            "bravo-reviewer",
            "POST /auth/onboarding/complete",
            "/auth/onboarding/complete",
            Some(r#"{"user_type": "solo", "intents": []}"#),
        ),
    ];
    for (_, plural) in crate::isolation::setup::CONTENT {
        let op: &'static str = format!("POST /{plural}/{{id}}/review").leak();
        let call: &'static str = format!("/{plural}/{{{}}}/review", singular(plural)).leak();
        steps.push(step(op, call, Some(r#"{"action": "Approve"}"#)));
        let op: &'static str = format!("POST /sites/{{site_id}}/{plural}/bulk").leak();
        let call: &'static str = format!("/sites/{{site}}/{plural}/bulk").leak();
        let body: &'static str =
            format!(r#"{{"action": "UpdateStatus", "status": "Draft", "ids": ["{{{}}}"]}}"#, singular(plural)).leak();
        steps.push(step(op, call, Some(body)));
    }
    steps
}

fn singular(plural: &str) -> &str {
    crate::isolation::setup::CONTENT.iter().find(|(_, p)| *p == plural).map_or(plural, |(name, _)| *name)
}

/// Steps that ready an operation's check (not checked themselves).
fn readying(op: &str) -> Vec<Step> {
    let review = |plural: &str| {
        let call: &'static str = format!("/{plural}/{{{}}}", singular(plural)).leak();
        vec![step("PUT", call, Some(r#"{"status": "Draft"}"#)), step("PUT", call, Some(r#"{"status": "InReview"}"#))]
    };
    match op {
        "POST /sites/{site_id}/transfer-ownership" => {
            vec![step("POST", "/sites/{site}/members", Some(r#"{"idp_user_id": "bravo-heir", "role": "admin"}"#))]
        }
        "POST /admin/users/{idp_user_id}/suspend" => {
            vec![step("POST", "/sites/{site}/members", Some(r#"{"idp_user_id": "bravo-banned", "role": "read"}"#))]
        }
        "DELETE /auth/account" => {
            vec![step("POST", "/sites/{site}/members", Some(r#"{"idp_user_id": "bravo-leaver", "role": "read"}"#))]
        }
        "POST /documents/{id}/privacy" => vec![keeping(
            "private_doc",
            "POST",
            "/sites/{site}/documents",
            Some(
                r#"{"document_type": "pdf", "file_data": "JVBERi0xLjQK", "file_name": "w.pdf", "mime_type": "application/pdf"}"#,
            ),
        )],
        // Three wrong passwords lock it.
        "POST /documents/{id}/unlock" => (0..3)
            .map(|_| step("POST", "/documents/{private_doc}/verify-access", Some(r#"{"password": "wrong"}"#)))
            .collect(),
        "POST /documents/{id}/verify-access" => {
            vec![as_visitor("POST", "/documents/{private_doc}/verify-access", Some(r#"{"password": "wrong"}"#), None)]
        }
        "DELETE /social/{id}" => vec![keeping(
            "second_link",
            "POST",
            "/sites/{site}/social-links",
            Some(r#"{"url": "https://example.org/second"}"#),
        )],
        "DELETE /trash/{id}" => vec![step("DELETE", "/blogs/{trash}", None)],
        "DELETE /api-keys/{id}" => vec![keeping(
            "second_key",
            "POST",
            "/api-keys",
            Some(r#"{"name": "Second", "permission": "Read", "site_id": "{site}"}"#),
        )],
        "DELETE /navigation/{id}" => vec![keeping(
            "second_item",
            "POST",
            "/sites/{site}/navigation",
            Some(r#"{"menu_id": "{menu}", "url": "/second", "label": "Second"}"#),
        )],
        "POST /blogs/{blog_id}/documents" => vec![keeping(
            "second_doc",
            "POST",
            "/sites/{site}/documents",
            Some(r#"{"document_type": "pdf", "url": "https://example.org/second.pdf"}"#),
        )],
        _ => match op.strip_prefix("POST /").and_then(|rest| rest.strip_suffix("/{id}/review")) {
            Some(plural) => review(plural),
            None => Vec::new(),
        },
    }
}

/// When an operation runs: deletions after the calls that act on what they
/// remove (a part before its whole), bulk actions and the trash after them,
/// the site's own end last.
fn order(op: &str) -> u8 {
    let whole = op.starts_with("DELETE /") && op.matches('/').count() == 2;
    match op {
        "DELETE /legal/items/{id}" | "DELETE /pages/sections/localizations/{id}" => 19, // before their group
        "DELETE /navigation/{id}" => 20,                                                // an item, before its menu
        "POST /sites/{site_id}/locales" => 25,                                          // after its locale was removed
        "POST /admin/users/{idp_user_id}/suspend" => 21,
        "POST /admin/users/{idp_user_id}/unsuspend" => 22,
        "POST /admin/users/{idp_user_id}/ban" => 23,
        "DELETE /admin/users/{idp_user_id}" => 24,
        "POST /trash/{id}/restore" => 50,
        "DELETE /trash/{id}" => 51,
        "POST /sites/{id}/reset-content" => 60,
        "DELETE /sites/{id}" => 70,
        "POST /sites/{id}/restore" => 80,
        _ if op.ends_with("/bulk") => 15,
        // After the site's AI settings are saved.
        _ if op.contains("/ai/") && !op.starts_with("PUT ") && !op.starts_with("DELETE ") => 11,
        _ if whole => 30,
        _ if op.starts_with("DELETE ") => 20,
        _ => 10,
    }
}

struct Call {
    op: String,
    call: String,
    body: Body,
    who: Who,
    keep_id: Option<&'static str>,
}

impl From<Step> for Call {
    fn from(s: Step) -> Self {
        let body = s.body.map_or(Body::None, |b| Body::Json(b.to_string()));
        Call { op: s.op.to_string(), call: s.call.to_string(), body, who: s.who, keep_id: s.keep_id }
    }
}

impl From<Row> for Call {
    fn from(r: Row) -> Self {
        // Another locale than the one B's items are already localized in.
        let body = match r.body {
            Body::Json(body) if r.op.ends_with("/localizations") => Body::Json(body.replace("{de}", "{en}")),
            other => other,
        };
        Call { op: r.op, call: r.call, body, who: Who::Master, keep_id: None }
    }
}

async fn perform(app: &TestApp, b: &SiteB, method: Method, call: &Call) -> (u16, Value) {
    let mut req = app.client.request(method, app.url(&b.fill(&call.call)));
    req = match call.who {
        Who::Master => req.header("X-API-Key", &app.admin_key),
        Who::User(user) => req.bearer_auth(user_token(user)),
        Who::Visitor => req.header("X-Site-Domain", "bravo.example.org"),
    };
    let res = call.body.attach(req, b, 3).send().await.unwrap_or_else(|e| panic!("{}: {e}", call.call));
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// What an answer names its new row by: its id, or a submission's reference code.
fn kept_id(answer: &Value) -> Option<&str> {
    answer["id"].as_str().or(answer["reference_code"].as_str())
}

/// A notification the reviewer has not read: B's author submits a post.
async fn fresh_notification(app: &TestApp, b: &SiteB) -> String {
    let author = user_token("bravo-author");
    let post = serde_json::json!({"site_ids": [b.get("site")], "title": "Written for review"});
    let created: Value = app.bearer(Method::POST, "/blogs", &author, Some(post)).await.json().await.unwrap();
    let path = format!("/blogs/{}", created["id"].as_str().expect("a post by B's author"));
    let res = app.bearer(Method::PUT, &path, &author, Some(serde_json::json!({"status": "InReview"}))).await;
    assert_eq!(res.status(), 200);
    let list: Value =
        app.bearer(Method::GET, "/notifications", &user_token("bravo-reviewer"), None).await.json().await.unwrap();
    let unread = list["data"].as_array().unwrap().iter().find(|n| n["read_at"].is_null() || n["is_read"] == false);
    unread.expect("an unread notification")["id"].as_str().unwrap().to_string()
}

/// B's delivery as its retry schedule leaves it at the end: dead.
async fn dead_delivery(app: &TestApp, b: &SiteB) {
    use sea_orm::sea_query::Expr;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    let id: Uuid = b.get("delivery").parse().unwrap();
    plinth_entities::webhook_delivery::Entity::update_many()
        .col_expr(plinth_entities::webhook_delivery::Column::Status, Expr::value("dead"))
        .filter(plinth_entities::webhook_delivery::Column::Id.eq(id))
        .exec(app.state.db.connection())
        .await
        .unwrap();
}

#[actix_web::test]
async fn every_write_drops_what_its_site_answers() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let receiver = crate::receiver::Receiver::start();
    let provider = FakeProvider::start();
    let (jwks_url, allowed) = (jwks.url.clone(), vec![receiver.host_port.clone(), provider.host_port.clone()]);
    let app = TestApp::spawn_with(move |c| {
        c.idp.jwks_url = Some(jwks_url);
        c.idp.issuer = Some(ISSUER.into());
        c.idp.audience = Some(AUDIENCE.into());
        c.idp.jwks_refetch_secs = 0;
        c.ssrf_allowlist = allowed;
    })
    .await;
    let mut b = site_b(&app, &receiver.url).await;
    b.values.insert("receiver", receiver.url.clone());
    b.values.insert("ai_base", provider.base_url("v1"));
    let site: Uuid = b.get("site").parse().unwrap();
    let documented = documented(&app).await;
    let writes: BTreeSet<&str> = documented.keys().filter(|op| !op.starts_with("GET ")).map(String::as_str).collect();

    let own: Vec<Call> = own_calls().into_iter().map(Call::from).collect();
    let replaced: BTreeSet<String> = own.iter().map(|c| c.op.clone()).collect();
    let mut calls: Vec<Call> = rows()
        .into_iter()
        .chain(aimed_rows())
        .filter(|r| writes.contains(r.op.as_str()) && !replaced.contains(&r.op))
        .map(Call::from)
        .chain(own)
        .collect();
    calls.sort_by_key(|c| order(&c.op));
    let mut unchecked: BTreeMap<&str, &str> = UNCHECKED.iter().copied().collect();
    // Presence: no cached answer shows leases (their list is never cached),
    // whatever family's item is leased.
    for op in writes.iter().filter(|op| op.ends_with("/{id}/lease") || op.ends_with("/settings/lease")) {
        unchecked.insert(op, "an edit lease: presence, no site's answer");
    }
    let mut outcomes: BTreeMap<String, Result<(), String>> = BTreeMap::new();
    for call in &calls {
        if outcomes.contains_key(&call.op) {
            continue; // an aimed row again, with a body meant to fail
        }
        for ready in readying(&call.op).into_iter().map(Call::from) {
            let method = Method::from_bytes(ready.op.as_bytes()).unwrap();
            let (status, answer) = perform(&app, &b, method, &ready).await;
            // Wrong passwords are refused: that is what locks the document.
            let refused_on_purpose = ready.call.ends_with("/verify-access");
            assert!(
                (200..300).contains(&status) || refused_on_purpose,
                "readying {}: {} {status} {answer}",
                call.op,
                ready.call
            );
            if let (Some(name), Some(id)) = (ready.keep_id, kept_id(&answer)) {
                b.values.insert(name, id.to_string());
            }
        }
        if call.op.contains("notifications") {
            let id = fresh_notification(&app, &b).await;
            b.values.insert("notification", id);
        }
        if call.op == "POST /webhooks/deliveries/{id}/retry" {
            dead_delivery(&app, &b).await;
        }
        let (method, _) = call.op.split_once(' ').unwrap();
        let before = app.state.responses.write_generation(site);
        let (status, answer) = perform(&app, &b, Method::from_bytes(method.as_bytes()).unwrap(), call).await;
        if let (Some(name), Some(id)) = (call.keep_id, kept_id(&answer)) {
            b.values.insert(name, id.to_string());
        }
        // A new site's answers are its own.
        let watched = match call.op.as_str() {
            "POST /sites" => answer["id"].as_str().and_then(|id| id.parse().ok()).unwrap_or(site),
            _ => site,
        };
        let after = app.state.responses.write_generation(watched);
        let outcome = match (status, after > before || unchecked.contains_key(call.op.as_str())) {
            (200..=299, true) => Ok(()),
            (200..=299, false) => Err(format!("{status}, yet the site's cached answers were kept")),
            _ => Err(format!("not performed: {status} {}", answer.to_string().chars().take(240).collect::<String>())),
        };
        outcomes.insert(call.op.clone(), outcome);
    }

    let not_performed: BTreeMap<&str, &str> = NOT_PERFORMED.iter().copied().collect();
    let mut problems: Vec<String> = Vec::new();
    for op in &writes {
        match (outcomes.get(*op), not_performed.contains_key(op)) {
            (Some(Err(why)), _) => problems.push(format!("{op}: {why}")),
            (Some(Ok(())), true) => problems.push(format!("{op}: performed, yet listed as not performed")),
            (None, false) => problems.push(format!("{op}: no call for it here")),
            _ => {}
        }
    }
    for op in unchecked.keys().chain(not_performed.keys()) {
        if !writes.contains(op) {
            problems.push(format!("{op}: listed here, but not a write of the document"));
        }
    }
    println!(
        "write path: {} writes of the document, {} performed, {} unchecked",
        writes.len(),
        outcomes.len(),
        unchecked.len()
    );
    assert!(problems.is_empty(), "{} writes do not show on the next read:\n{}", problems.len(), problems.join("\n"));
    app.settle().await;
}
