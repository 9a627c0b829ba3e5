//! Conditional writes (`If-Match`): no lost update.
//!
//! Every `PUT`, `PATCH` and `DELETE` of the served document on a path that
//! also answers a `GET` (an item) is called on site B's real item, as the
//! isolation matrix aims it, with the Master key: first with a tag the item
//! never had, which must answer 412 `PRECONDITION_FAILED` naming the current
//! tag and change nothing, then with the tag its `GET` answered, which must
//! be applied. The operation list is the document's: one added later joins.
//!
//! Then two editors save one post a thousand times each over, read, change,
//! write with `If-Match` (on PostgreSQL through two instances): every save is
//! applied or refused with 412, and the post holds every applied change.

use std::collections::{BTreeMap, BTreeSet};

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};
use crate::idp::{jwk, JwksServer, AUDIENCE, ISSUER};
use crate::isolation::setup::{site_b, SiteB};
use crate::isolation::table::{rows, Row};
use crate::isolation::table_more::aimed_rows;

/// Conditional writes of the document not called here, each with why.
const NOT_CALLED: &[(&str, &str)] =
    &[("DELETE /sites/{id}", "the site itself: every other call needs it (deleted last, unconditionally)")];

/// The operations the served document declares `If-Match` on, each answering
/// 412 too.
async fn conditional_writes(app: &TestApp) -> Vec<String> {
    let doc: Value =
        app.client.get(format!("{}/api-docs/openapi.json", app.base)).send().await.unwrap().json().await.unwrap();
    let mut ops = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let params = op["parameters"].as_array().into_iter().flatten();
            if params.into_iter().any(|p| p["name"] == "If-Match" && p["in"] == "header") {
                assert!(op["responses"]["412"].is_object(), "{method} {path} takes If-Match without its 412");
                let path = path.strip_prefix("/api/v1").unwrap_or(path);
                ops.push(format!("{} {path}", method.to_uppercase()));
            }
        }
    }
    assert!(ops.iter().any(|op| op == "PUT /blogs/{id}"), "the document declares If-Match: {ops:?}");
    ops
}

/// A tag no version of anything has.
const NEVER: &str = "\"0000000000000000-0\"";

fn order(op: &str) -> u8 {
    match op {
        _ if !op.starts_with("DELETE ") => 0,
        // A part before its whole.
        _ if op.matches('/').count() > 2 => 1,
        _ => 2,
    }
}

async fn read(app: &TestApp, path: &str) -> (u16, Option<String>) {
    let res = app.get(path, &app.admin_key).await;
    let tag = res.headers().get("etag").map(|v| v.to_str().unwrap().to_string());
    (res.status().as_u16(), tag)
}

async fn write(app: &TestApp, b: &SiteB, row: &Row, if_match: &str) -> reqwest::Response {
    let (method, _) = row.op.split_once(' ').unwrap();
    let req = app
        .client
        .request(Method::from_bytes(method.as_bytes()).unwrap(), app.url(&b.fill(&row.call)))
        .header("X-API-Key", &app.admin_key)
        .header("If-Match", if_match);
    row.body.attach(req, b, 3).send().await.unwrap()
}

/// The problem with one operation, or `None` when it behaves.
async fn conditional_problem(app: &TestApp, b: &SiteB, row: &Row) -> Option<String> {
    let path = b.fill(&row.call);
    let (status, tag) = read(app, &path).await;
    let Some(tag) = tag.filter(|_| status == 200) else {
        return Some(format!("its GET answered {status} without a tag"));
    };
    let res = write(app, b, row, NEVER).await;
    let status = res.status().as_u16();
    let problem: Value = res.json().await.unwrap_or(Value::Null);
    if status != 412 || problem["code"] != "PRECONDITION_FAILED" {
        return Some(format!("a stale If-Match answered {status} {problem}"));
    }
    if problem["current_etag"] != tag.as_str() {
        return Some(format!("412 named {} as current, the GET {tag}", problem["current_etag"]));
    }
    if read(app, &path).await.1.as_deref() != Some(tag.as_str()) {
        return Some("the refused write changed the item".into());
    }
    let res = write(app, b, row, &tag).await;
    let status = res.status().as_u16();
    let answered = res.headers().get("etag").map(|v| v.to_str().unwrap().to_string());
    if !(200..300).contains(&status) {
        let answer = res.text().await.unwrap_or_default();
        return Some(format!("the current tag answered {status} {}", answer.chars().take(240).collect::<String>()));
    }
    // An answer's tag is the one the next GET gives: the next save sends it.
    match (answered, read(app, &path).await) {
        (Some(answered), (200, now)) if now.as_deref() != Some(answered.as_str()) => {
            Some(format!("the write answered the tag {answered}, its GET then {now:?}"))
        }
        _ => None,
    }
}

#[actix_web::test]
async fn every_item_write_refuses_a_stale_if_match_and_applies_a_current_one() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let receiver = crate::receiver::Receiver::start();
    let provider = crate::ai::FakeProvider::start();
    let (jwks_url, allowed) = (jwks.url.clone(), vec![receiver.host_port.clone(), provider.host_port.clone()]);
    let app = TestApp::spawn_with(move |c| {
        c.idp.jwks_url = Some(jwks_url);
        c.idp.issuer = Some(ISSUER.into());
        c.idp.audience = Some(AUDIENCE.into());
        c.ssrf_allowlist = allowed;
    })
    .await;
    let b = site_b(&app, &receiver.url).await;
    // B's AI settings exist before they are changed on condition.
    let settings = json!({"provider": "openai", "base_url": provider.base_url("v1"), "model": "m", "api_key": "sk-test-0123456789abcdef"});
    let res = app.put(&format!("/sites/{}/ai/settings", b.get("site")), &app.admin_key, settings).await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    let conditional = conditional_writes(&app).await;
    let concerned: BTreeSet<&str> = conditional.iter().map(String::as_str).collect();
    let not_called: BTreeMap<&str, &str> = NOT_CALLED.iter().copied().collect();
    let mut calls: Vec<Row> = rows()
        .into_iter()
        .chain(aimed_rows())
        .filter(|r| concerned.contains(r.op.as_str()) && !not_called.contains_key(r.op.as_str()))
        .collect();
    calls.sort_by_key(|r| order(&r.op));
    let mut problems: Vec<String> = Vec::new();
    let mut called: BTreeSet<String> = BTreeSet::new();
    for row in &calls {
        if !called.insert(row.op.clone()) {
            continue; // an aimed row again
        }
        if let Some(problem) = conditional_problem(&app, &b, row).await {
            problems.push(format!("{}: {problem}", row.op));
        }
    }
    for op in &concerned {
        if !called.contains(*op) && !not_called.contains_key(op) {
            problems.push(format!("{op}: no call for it here"));
        }
    }
    for op in not_called.keys() {
        if !concerned.contains(op) {
            problems.push(format!("{op}: listed as not called, but the document gives it no If-Match"));
        }
    }
    println!("preconditions: {} conditional writes in the document, {} called", concerned.len(), called.len());
    assert!(problems.is_empty(), "{} item writes do not honour If-Match:\n{}", problems.len(), problems.join("\n"));

    // The site itself, last.
    let site = format!("/sites/{}", b.get("site"));
    let res = app.request(Method::DELETE, &site, Some(&app.admin_key), None).await;
    assert_eq!(res.status(), 204, "the Master key may delete B without a precondition");
    app.settle().await;
}

/// A `PUT` of `body` with the Master key, on condition of `if_match` when given.
async fn save(app: &TestApp, path: &str, if_match: Option<&str>, body: Value) -> reqwest::Response {
    let mut req = app.client.put(app.url(path)).header("X-API-Key", &app.admin_key);
    if let Some(tag) = if_match {
        req = req.header("If-Match", tag);
    }
    req.json(&body).send().await.unwrap()
}

#[actix_web::test]
async fn a_stale_save_names_the_fields_changed_since_and_a_fresh_one_chains_on_its_answer() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("editors").await;
    let post = app.create_post(&site, "First title").await;
    let path = format!("/blogs/{}", post["id"].as_str().unwrap());
    let (_, held) = read(&app, &path).await;
    let held = held.unwrap();

    // Another editor saves first; the answer's tag is its next GET's.
    let res = save(&app, &path, Some(&held), json!({"title": "Second title"})).await;
    assert_eq!(res.status(), 200);
    let answered = res.headers().get("etag").unwrap().to_str().unwrap().to_string();
    assert_eq!(read(&app, &path).await.1.unwrap(), answered, "a write's answer carries the item's tag");

    // The first editor's save over the version it held is refused.
    let res = save(&app, &path, Some(&held), json!({"excerpt": "lost?"})).await;
    assert_eq!(res.headers().get("etag").unwrap().to_str().unwrap(), answered);
    let problem = assert_problem(res, 412, "PRECONDITION_FAILED").await;
    assert_eq!(problem["current_etag"], answered.as_str());
    let changed: Vec<&str> = problem["changed_fields"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(changed.contains(&"title") && !changed.contains(&"excerpt"), "{problem}");
    assert!(problem["detail"].as_str().unwrap().contains("If-Match"), "{problem}");
    let now: Value = app.get(&path, &app.admin_key).await.json().await.unwrap();
    assert_eq!((now["title"].as_str(), now["excerpt"].as_str()), (Some("Second title"), Some("")), "{now}");

    // `*` takes any version; no header at all is the spec's write.
    for if_match in [Some("*"), None] {
        let res = save(&app, &path, if_match, json!({"excerpt": "kept"})).await;
        assert_eq!(res.status(), 200, "If-Match {if_match:?}");
    }
}

/// One editor's loop: read, add one to the counter kept in the excerpt, save
/// with `If-Match`. Answers how many saves were applied.
async fn editor(app: &TestApp, path: &str, saves: usize) -> usize {
    let mut applied = 0;
    for _ in 0..saves {
        let res = app.get(path, &app.admin_key).await;
        let tag = res.headers().get("etag").unwrap().to_str().unwrap().to_string();
        let item: Value = res.json().await.unwrap();
        let count: usize = item["excerpt"].as_str().unwrap().parse().unwrap();
        let res = save(app, path, Some(&tag), json!({"excerpt": (count + 1).to_string()})).await;
        match res.status().as_u16() {
            200 => applied += 1,
            412 => {
                // Refused in the check or in a race with the other save:
                // either way the answer names the current version.
                let problem: Value = res.json().await.unwrap();
                let current = problem["current_etag"].as_str().unwrap_or_default();
                assert!(current.starts_with('"') && current != tag, "412 without the current tag: {problem}");
            }
            other => panic!("a save answered {other}: {}", res.text().await.unwrap_or_default()),
        }
    }
    applied
}

#[actix_web::test]
async fn two_editors_saving_one_post_lose_no_update() {
    const SAVES: usize = 1_000;
    let first = TestApp::spawn().await;
    // On PostgreSQL the second editor goes through a second instance.
    let second = match first.database_url.starts_with("postgres") {
        true => Some(crate::instances::second_instance(&first, |_| {}).await),
        false => None,
    };
    let site = first.create_site_id("lost-updates").await;
    let post =
        first.create("/blogs", &first.admin_key, json!({"site_ids": [site], "title": "Counted", "excerpt": "0"})).await;
    let path = format!("/blogs/{}", post["id"].as_str().unwrap());
    let (a, b) =
        futures_util::join!(editor(&first, &path, SAVES), editor(second.as_ref().unwrap_or(&first), &path, SAVES));
    let item: Value = first.get(&path, &first.admin_key).await.json().await.unwrap();
    let count: usize = item["excerpt"].as_str().unwrap().parse().unwrap();
    println!("lost updates: {a} + {b} saves applied of {}, the rest refused with 412", 2 * SAVES);
    assert!(a > 0 && b > 0, "both editors saved ({a}, {b})");
    assert_eq!(count, a + b, "every applied save is in the post");
}
