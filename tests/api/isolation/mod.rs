//! The tenant isolation matrix: callers from site A (an Admin key scoped to A,
//! an admin member of A only) and an anonymous caller try every operation of
//! the served OpenAPI document that takes an id, aimed at site B's real items
//! (read, list, update, delete, and every action). Every cell must be refused
//! with the spec's code, and no answer may carry anything of B (its ids, slugs,
//! names) that the caller did not send itself.
//!
//! The route list is the served document's: an operation with a `{…}` path
//! parameter that is neither a row of the table (`table.rs`, `table_more.rs`)
//! nor an exclusion (with its reason) fails the test, as do rows and
//! exclusions the document no longer has. A family added later must join.
//!
//! Probing (403 versus 404): a caller outside B asking for B's item is refused
//! with 403 (AUTH_API_KEY_SITE_DENIED for a key, AUTH_SITE_ACCESS_DENIED for a
//! user), while an id that exists nowhere answers 404. So an outsider can tell
//! "exists elsewhere" from "exists nowhere". This is kept on purpose: ids are
//! random UUIDv4 (122 bits), so existence cannot be found by guessing, only
//! confirmed for an id the caller already holds; and the 403 tells an
//! integration holding a wrong-site key what is wrong, where a 404 would hide
//! it. Slugs are guessable, but every slug route is site-scoped (`/sites/{B}/…`)
//! and refused on the site before the slug is looked up, so it reveals nothing
//! either way. The matrix asserts the 403 for every cell and the 404 for an
//! unknown id, so both halves of the rule stay as documented.

pub(crate) mod setup;
pub(crate) mod table;
pub(crate) mod table_more;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use reqwest::multipart::{Form, Part};
use reqwest::Method;
use serde_json::Value;

use crate::helpers::TestApp;
use crate::idp::{jwk, user_token, JwksServer, AUDIENCE, ISSUER};
use setup::{SiteB, MARKER};
use table::{Body, Row};

const PREFIX: &str = "/api/v1";
const ANONYMOUS: (u16, &str) = (401, "AUTH_MISSING_CREDENTIALS");

#[derive(Clone, Copy, PartialEq)]
enum Caller {
    Anonymous,
    KeyOfA,
    MemberOfA,
}

struct Callers {
    key: String,
    token: String,
}

struct Answer {
    status: u16,
    code: Option<String>,
    content_type: String,
    text: String,
}

async fn send(
    app: &TestApp,
    callers: &Callers,
    caller: Caller,
    method: Method,
    path: &str,
    body: &Body,
    b: &SiteB,
) -> Answer {
    let mut req = app.client.request(method, app.url(path)).timeout(Duration::from_secs(10));
    req = match caller {
        Caller::Anonymous => req,
        Caller::KeyOfA => req.header("X-API-Key", &callers.key),
        Caller::MemberOfA => req.bearer_auth(&callers.token),
    };
    let res = body.attach(req, b, 2).send().await.unwrap_or_else(|e| panic!("{path}: {e}"));
    let status = res.status().as_u16();
    let content_type = res.headers().get("content-type").map(|v| v.to_str().unwrap_or_default().to_string());
    let text = res.text().await.unwrap_or_default();
    let code = serde_json::from_str::<Value>(&text).ok().and_then(|v| v["code"].as_str().map(str::to_string));
    Answer { status, code, content_type: content_type.unwrap_or_default(), text }
}

impl Body {
    /// The request with this body, filled with B's values; an upload is a
    /// `side`-pixel square PNG (a new size is a new file, not a duplicate).
    pub(crate) fn attach(&self, req: reqwest::RequestBuilder, b: &SiteB, side: u32) -> reqwest::RequestBuilder {
        match self {
            Body::None => req,
            Body::Json(template) => req.header("content-type", "application/json").body(b.fill(template)),
            Body::Png { site_ids } => {
                let mut form = Form::new();
                if *site_ids {
                    form = form.text("site_ids", format!("[\"{}\"]", b.get("site")));
                }
                req.multipart(form.part("file", Part::bytes(crate::media::png(side, side)).file_name("upload.png")))
            }
        }
    }
}

/// What of B the answer carries that the request did not.
fn leaked(b: &SiteB, request: &str, answer: &str) -> Vec<String> {
    let request = request.to_lowercase();
    let mut answer = answer.to_lowercase();
    let mut found: Vec<String> = Vec::new();
    for marker in b.markers() {
        let marker = marker.to_lowercase();
        if request.contains(&marker) {
            answer = answer.replace(&marker, "");
        } else if answer.contains(&marker) {
            found.push(marker);
        }
    }
    if found.is_empty() && answer.contains(MARKER) {
        found.push(MARKER.into());
    }
    found
}

/// `METHOD /path` of every operation of the served document (prefix removed),
/// with whether it is public (`security: []`).
pub(crate) async fn documented(app: &TestApp) -> BTreeMap<String, bool> {
    let doc: Value =
        app.client.get(format!("{}/api-docs/openapi.json", app.base)).send().await.unwrap().json().await.unwrap();
    let mut ops = BTreeMap::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            if !["get", "put", "post", "delete", "patch"].contains(&method.as_str()) {
                continue;
            }
            let public = op["security"]
                .as_array()
                .is_some_and(|r| r.iter().all(|s| s.as_object().is_some_and(|o| o.is_empty())));
            let path = path.strip_prefix(PREFIX).unwrap_or(path);
            ops.insert(format!("{} {path}", method.to_uppercase()), public);
        }
    }
    ops
}

/// The table covers exactly the document's id-taking operations.
fn coverage_problems(documented: &BTreeMap<String, bool>, rows: &[Row]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut tabled = BTreeSet::new();
    for row in rows {
        if !tabled.insert(row.op.as_str()) {
            problems.push(format!("row listed twice: {}", row.op));
        }
        if !documented.contains_key(&row.op) {
            problems.push(format!("row for an operation the document no longer has: {}", row.op));
        }
    }
    for (op, reason) in table::EXCLUDED {
        match documented.get(*op) {
            None => problems.push(format!("exclusion of an operation the document no longer has: {op}")),
            Some(public) if *reason == "public" && !public => {
                problems.push(format!("excluded as public but not documented with security: []: {op}"))
            }
            Some(_) if tabled.contains(op) => problems.push(format!("both a row and an exclusion: {op}")),
            Some(_) => {}
        }
    }
    let excluded: BTreeSet<&str> = table::EXCLUDED.iter().map(|(op, _)| *op).collect();
    for op in documented.keys().filter(|op| op.contains('{')) {
        if !tabled.contains(op.as_str()) && !excluded.contains(op.as_str()) {
            problems.push(format!("missing from the isolation table: {op}"));
        }
    }
    problems
}

async fn check_cell(app: &TestApp, callers: &Callers, b: &SiteB, row: &Row, caller: Caller) -> Option<String> {
    let (method, _) = row.op.split_once(' ').expect("METHOD /path");
    let method = Method::from_bytes(method.as_bytes()).expect("an HTTP method");
    let path = b.fill(&row.call);
    let answer = send(app, callers, caller, method, &path, &row.body, b).await;
    let want = match caller {
        Caller::Anonymous => ANONYMOUS,
        Caller::KeyOfA => row.refusal.key,
        Caller::MemberOfA => row.refusal.member,
    };
    let who = match caller {
        Caller::Anonymous => "anonymous",
        Caller::KeyOfA => "A's key",
        Caller::MemberOfA => "A's member",
    };
    let mut wrong = Vec::new();
    if (answer.status, answer.code.as_deref()) != (want.0, Some(want.1)) {
        wrong.push(format!("got {} {:?}, want {} {}", answer.status, answer.code, want.0, want.1));
    }
    if !answer.content_type.starts_with("application/problem+json") {
        wrong.push(format!("content type {:?}", answer.content_type));
    }
    let request = match &row.body {
        Body::Json(template) => format!("{path} {}", b.fill(template)),
        _ => path.clone(),
    };
    let leaks = leaked(b, &request, &answer.text);
    if !leaks.is_empty() {
        wrong.push(format!("LEAKS {leaks:?}: {}", answer.text.chars().take(300).collect::<String>()));
    }
    (!wrong.is_empty()).then(|| format!("{who} → {} ({path}): {}", row.op, wrong.join("; ")))
}

#[actix_web::test]
async fn no_caller_outside_a_site_reaches_anything_of_it() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let receiver = crate::receiver::Receiver::start();
    let (jwks_url, allowed) = (jwks.url.clone(), receiver.host_port.clone());
    let app = TestApp::spawn_with(move |c| {
        c.idp.jwks_url = Some(jwks_url);
        c.idp.issuer = Some(ISSUER.into());
        c.idp.audience = Some(AUDIENCE.into());
        c.idp.jwks_refetch_secs = 0;
        c.ssrf_allowlist = vec![allowed];
    })
    .await;
    let site_a = app.create_site_id("alpha").await;
    let member = serde_json::json!({"idp_user_id": "alpha-member", "role": "admin"});
    assert_eq!(app.post(&format!("/sites/{site_a}/members"), &app.admin_key, member).await.status(), 201);
    let callers = Callers { key: app.create_key("Admin", Some(&site_a)).await, token: user_token("alpha-member") };
    let b = setup::site_b(&app, &receiver.url).await;

    let documented = documented(&app).await;
    let rows = table::rows();
    let problems = coverage_problems(&documented, &rows);
    assert!(problems.is_empty(), "the isolation table and the served document differ:\n{}", problems.join("\n"));

    let aimed = table_more::aimed_rows();
    for row in &aimed {
        assert!(documented.contains_key(&row.op), "aimed row for an undocumented operation: {}", row.op);
    }
    let mut failures = Vec::new();
    let mut cells = 0;
    for row in rows.iter().chain(&aimed) {
        for caller in [Caller::Anonymous, Caller::KeyOfA, Caller::MemberOfA] {
            cells += 1;
            failures.extend(check_cell(&app, &callers, &b, row, caller).await);
        }
    }

    // Lists without an id (sites, keys, memberships, notifications, …): whatever
    // A's callers may see there, nothing of B is in it.
    for op in documented.iter().filter(|(op, public)| op.starts_with("GET ") && !op.contains('{') && !**public) {
        let path = &op.0[4..];
        for caller in [Caller::KeyOfA, Caller::MemberOfA] {
            cells += 1;
            let answer = send(&app, &callers, caller, Method::GET, path, &Body::None, &b).await;
            let leaks = leaked(&b, path, &answer.text);
            if !leaks.is_empty() {
                failures.push(format!("GET {path}: {} LEAKS {leaks:?}: {}", answer.status, answer.text));
            }
        }
    }
    println!(
        "isolation matrix: {} id-taking operations, {} aimed by body or query, {} exclusions, {cells} cells",
        rows.len(),
        aimed.len(),
        table::EXCLUDED.len()
    );
    assert!(failures.is_empty(), "{} of {cells} cells differ:\n{}", failures.len(), failures.join("\n"));

    // An id that exists nowhere is 404 for the same callers (see the top).
    let unknown = format!("/blogs/{}", uuid::Uuid::new_v4());
    for caller in [Caller::KeyOfA, Caller::MemberOfA] {
        let answer = send(&app, &callers, caller, Method::GET, &unknown, &Body::None, &b).await;
        assert_eq!((answer.status, answer.code.as_deref()), (404, Some("ENTITY_NOT_FOUND")), "{}", answer.text);
    }
    // Nothing refused was done: B's items are all still there.
    for (name, plural) in setup::CONTENT {
        let res = app.get(&format!("/{plural}/{}", b.get(name)), &app.admin_key).await;
        assert_eq!(res.status(), 200, "B's {name} survived");
    }
    for path in ["/sites/{site}", "/media/{media}", "/forms/{form}", "/webhooks/{webhook}", "/menus/{menu}"] {
        let path = b.fill(path);
        assert_eq!(app.get(&path, &app.admin_key).await.status(), 200, "{path} survived");
    }
    let members: Value = app.get(&b.fill("/sites/{site}/members"), &app.admin_key).await.json().await.unwrap();
    assert!(members.to_string().contains(b.get("member")), "B's member survived");
    app.settle().await;
}
