//! A provider that fails: unparsable answers, error statuses, a timeout, and
//! the per-site limit of calls in flight. Details never name the URL or key.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{act, ai_site, configure, ready_site, start, API_KEY, ARTICLE};
use crate::helpers::assert_problem;

#[actix_web::test]
async fn an_answer_that_is_not_the_json_asked_for_is_a_parse_failure() {
    let (provider, app) = start().await;
    let site = ready_site(&app, &provider, "garbled").await;
    let content = format!("{ARTICLE} MALFORMED");
    let res = act(&app, &site, "suggest", &app.admin_key, json!({"field": "title", "content": content})).await;
    assert_problem(res, 500, "AI_RESPONSE_PARSE_FAILED").await;
    // Every action reads its answer the same way.
    let res = act(&app, &site, "translate", &app.admin_key, json!({"text": "MALFORMED", "target_locale": "de"})).await;
    assert_problem(res, 500, "AI_RESPONSE_PARSE_FAILED").await;
    // The provider answered, so the calls count.
    let shown: Value = app.get(&format!("/sites/{site}/ai/settings"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(shown["usage"], json!({"requests": 2, "total_tokens": 84}));
    provider.stop().await;
}

#[actix_web::test]
async fn provider_errors_and_timeouts_are_503_without_the_url_or_key() {
    let (provider, app) = start().await;
    let body = json!({"field": "title", "content": ARTICLE});
    for (root, expected) in [("broken/v1", "500"), ("refusing/v1", "401"), ("missing/v1", "404")] {
        let site = ai_site(&app, &root.replace('/', "-")).await;
        configure(&app, &site, &provider.base_url(root), json!({})).await;
        let problem = assert_problem(
            act(&app, &site, "suggest", &app.admin_key, body.clone()).await,
            503,
            "AI_PROVIDER_UNAVAILABLE",
        )
        .await;
        let detail = problem["detail"].as_str().unwrap();
        assert!(detail.contains(expected), "{detail}");
        assert!(!detail.contains(&provider.host_port) && !detail.contains(API_KEY), "{detail}");
        let shown: Value = app.get(&format!("/sites/{site}/ai/settings"), &app.admin_key).await.json().await.unwrap();
        assert_eq!(shown["usage"]["requests"], 0);
    }

    let site = ai_site(&app, "slow").await;
    configure(&app, &site, &provider.base_url("slow/v1"), json!({"timeout_secs": 1})).await;
    let started = Instant::now();
    let problem =
        assert_problem(act(&app, &site, "suggest", &app.admin_key, body.clone()).await, 503, "AI_PROVIDER_UNAVAILABLE")
            .await;
    assert!(started.elapsed() < Duration::from_millis(2800), "the site's timeout applies: {:?}", started.elapsed());
    let detail = problem["detail"].as_str().unwrap();
    assert!(detail.contains("timed out") && !detail.contains(&provider.host_port), "{detail}");

    // Nothing listening: connection failed.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = closed.local_addr().unwrap().to_string();
    drop(closed);
    let app2 = crate::helpers::TestApp::spawn_with(|c| c.ssrf_allowlist = vec![dead.clone()]).await;
    let site = ai_site(&app2, "dead").await;
    configure(&app2, &site, &format!("http://{dead}/v1"), json!({})).await;
    let problem =
        assert_problem(act(&app2, &site, "suggest", &app2.admin_key, body).await, 503, "AI_PROVIDER_UNAVAILABLE").await;
    assert!(problem["detail"].as_str().unwrap().contains("connection failed"), "{problem}");
    provider.stop().await;
}

#[actix_web::test]
async fn a_site_has_at_most_four_calls_in_flight() {
    let (provider, app) = start().await;
    let site = ai_site(&app, "busy").await;
    configure(&app, &site, &provider.base_url("slow/v1"), json!({"timeout_secs": 10})).await;
    let calls =
        (0..5).map(|_| act(&app, &site, "suggest", &app.admin_key, json!({"field": "title", "content": ARTICLE})));
    let answers = futures_util::future::join_all(calls).await;
    let mut statuses: Vec<u16> = Vec::new();
    for res in answers {
        let status = res.status().as_u16();
        if status == 503 {
            let problem: Value = res.json().await.unwrap();
            assert!(problem["detail"].as_str().unwrap().contains("too many AI requests in flight"), "{problem}");
        }
        statuses.push(status);
    }
    statuses.sort();
    assert_eq!(statuses, [200, 200, 200, 200, 503]);
    // Another site is not held up by this one's calls.
    let other = ready_site(&app, &provider, "calm").await;
    let res = act(&app, &other, "suggest", &app.admin_key, json!({"field": "title", "content": ARTICLE})).await;
    assert_eq!(res.status(), 200);
    provider.stop().await;
}
