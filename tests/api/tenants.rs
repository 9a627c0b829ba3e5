//! Tenants that cannot hurt each other: a site's hung webhook endpoints hold
//! no slot another site needs, and an endpoint that keeps failing is held by
//! its circuit instead of taking slots.

use std::time::Duration;

use plinth_actors::site_supervisor::faults;
use plinth_actors::{Clock, Work};
use plinth_entities::values::DeliveryStatus;
use plinth_entities::webhook_delivery;
use sea_orm::EntityTrait;
use serde_json::{json, Value};

use crate::helpers::TestApp;
use crate::receiver::Receiver;

const METRICS_TOKEN: &str = "tenants-metrics-token";

async fn create_webhook(app: &TestApp, site: &str, url: &str) -> Value {
    let res = app.post(&format!("/sites/{site}/webhooks"), &app.admin_key, json!({"url": url})).await;
    assert_eq!(res.status(), 201);
    res.json().await.unwrap()
}

#[actix_web::test]
async fn a_sites_hung_endpoints_hold_no_slot_another_site_needs() {
    let hung = Receiver::start();
    hung.answer_after(Duration::from_secs(30));
    let healthy = Receiver::start();
    let allowed = vec![hung.host_port.clone(), healthy.host_port.clone()];
    let app = TestApp::spawn_with(move |c| {
        c.ssrf_allowlist = allowed;
        c.tenants.webhook_send_slots = 4;
        c.tenants.webhook_sends_per_endpoint = 4;
        c.webhooks.timeout_secs = 30;
    })
    .await;
    let (noisy, quiet) = (app.create_site_id("noisy").await, app.create_site_id("quiet").await);
    for n in 0..2 {
        create_webhook(&app, &noisy, &format!("{}/{n}", hung.url)).await;
    }
    create_webhook(&app, &quiet, &healthy.url).await;

    // Site noisy's sends fill every slot and hang, with more of its own waiting.
    for n in 0..6 {
        app.create_post(&noisy, &format!("noisy {n}")).await;
    }
    let lanes = &app.webhooks;
    // The dispatcher claims the noisy site's deliveries in batches, so the
    // pool can be full before the rest of them queue for it: wait for both.
    for _ in 0..250 {
        let lanes_now = lanes.send_lanes();
        if lanes_now.in_use >= 4 && lanes_now.waiting > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(lanes.send_lanes().in_use, 4, "the noisy site holds the whole pool");
    assert!(lanes.send_lanes().waiting > 0, "and waits for more");

    // Site quiet's delivery is sent on top of the full pool, not behind it.
    app.create_post(&quiet, "quiet").await;
    let got = healthy.wait_for(1).await;
    assert_eq!(got.len(), 1, "the quiet site's delivery arrived");
    assert_eq!(got[0].body["event"], "blog.created");
    // The hung receiver records a request once it answers: none has.
    assert!(hung.received().is_empty(), "while every noisy send still hangs");
    // (The quiet site's own send may not have handed its slot back yet.)
    assert!(lanes.send_lanes().in_use >= 4, "and holds its slots");
    app.server.stop(false).await;
}

#[actix_web::test]
async fn failures_in_a_row_open_a_circuit_that_holds_deliveries_without_attempts() {
    let receiver = Receiver::start();
    receiver.answer_with(500);
    let allowed = vec![receiver.host_port.clone()];
    let app = TestApp::spawn_with(move |c| {
        c.ssrf_allowlist = allowed;
        c.tenants.circuit_failures = 2;
        c.tenants.circuit_cooldown_secs = 60;
        c.observability.metrics_token = Some(METRICS_TOKEN.into());
    })
    .await;
    let site = app.create_site_id("circuit").await;
    let hook = create_webhook(&app, &site, &receiver.url).await;
    let hook_id = hook["id"].as_str().unwrap();
    assert!(hook.get("circuit").is_none(), "only the webhook's own answer shows it");

    // Two failed attempts open the circuit; the third delivery is held.
    for n in 0..2 {
        app.create_post(&site, &format!("failing {n}")).await;
        app.wait_for_logged_attempts(hook_id, "blog.created", n + 1).await;
    }
    let shown: Value = app.get(&format!("/webhooks/{hook_id}"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(shown["circuit"]["state"], "open", "{shown}");
    assert_eq!(shown["circuit"]["consecutive_failures"], 2);
    assert_eq!(shown["circuit"]["recent_success_rate"], 0.0);
    assert_eq!(shown["circuit"]["last_error"], "the endpoint answered 500 Internal Server Error");

    app.create_post(&site, "held").await;
    // The event reaches the dispatcher in the background: wait for its
    // delivery to be stored and given back by the circuit.
    let mut deliveries = Vec::new();
    for _ in 0..250 {
        deliveries = webhook_delivery::Entity::find().all(&*app.state.db).await.unwrap();
        if deliveries.len() == 3 && deliveries.iter().all(|d| d.claimed_by.is_none()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    app.settle().await;
    assert_eq!(receiver.received().len(), 2, "the held delivery was not sent");
    let held: Vec<_> = deliveries.iter().filter(|d| d.attempts == 0).collect();
    assert_eq!((deliveries.len(), held.len()), (3, 1), "one delivery waits with no attempt counted");
    assert_eq!(held[0].status, DeliveryStatus::Pending);
    assert_eq!(held[0].claimed_by, None, "no instance holds it");
    let due = held[0].next_attempt_at.unwrap() - app.clock.now();
    assert!(due > chrono::Duration::seconds(50), "due when the cool-down ends, in {due}");
    let metrics = app.client.get(format!("{}/metrics", app.base)).bearer_auth(METRICS_TOKEN).send().await.unwrap();
    let metrics = metrics.text().await.unwrap();
    assert!(metrics.contains("plinth_webhook_circuits{state=\"open\"} 1"), "{metrics}");

    // After the cool-down the held delivery is the probe; its success closes it.
    receiver.answer_with(200);
    app.clock.advance(chrono::Duration::seconds(61));
    app.retry_webhooks().await;
    app.settle().await;
    assert_eq!(receiver.received().len(), 3, "the probe was sent");
    let shown: Value = app.get(&format!("/webhooks/{hook_id}"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(shown["circuit"]["state"], "closed", "{shown}");
    assert_eq!(shown["circuit"]["consecutive_failures"], 0);
}

#[actix_web::test]
async fn a_panic_in_one_sites_work_fails_that_work_alone_and_restarts_the_sites_supervisor() {
    let receiver = Receiver::start();
    let allowed = vec![receiver.host_port.clone()];
    let app = TestApp::spawn_with(move |c| {
        c.ssrf_allowlist = allowed;
        c.observability.metrics_token = Some(METRICS_TOKEN.into());
    })
    .await;
    let (faulty, other) = (app.create_site_id("faulty").await, app.create_site_id("other").await);
    let faulty_id: uuid::Uuid = faulty.parse().unwrap();
    create_webhook(&app, &faulty, &format!("{}/faulty", receiver.url)).await;
    create_webhook(&app, &other, &format!("{}/other", receiver.url)).await;
    let supervisors = &app.state.supervisors;
    assert!(supervisors.is_running(faulty_id), "the site's first requests started its supervisor");
    let restarts_before = supervisors.counts().restarts;

    // A request of the faulty site panics: it alone answers 500 problem+json.
    faults().panic_next(faulty_id, Work::Request);
    let failed = app.get(&format!("/sites/{faulty}"), &app.admin_key).await;
    assert_eq!(failed.status(), 500);
    assert_eq!(failed.headers()["content-type"], "application/problem+json");
    let problem: Value = failed.json().await.unwrap();
    assert_eq!(problem["code"], "INTERNAL_ERROR", "{problem}");
    assert_eq!(app.get(&format!("/sites/{other}"), &app.admin_key).await.status(), 200);
    assert_eq!(app.get(&format!("/sites/{faulty}"), &app.admin_key).await.status(), 200, "the fault was once");

    // A delivery of the faulty site panics: the other site's is sent, and
    // the faulty one is sent by the retry pass once its claim lapses.
    faults().panic_next(faulty_id, Work::Delivery);
    app.create_post(&faulty, "faulty").await;
    app.create_post(&other, "other").await;
    let got = receiver.wait_for(1).await;
    assert!(got[0].path.ends_with("/other"), "{}", got[0].path);
    app.settle().await;
    assert_eq!(receiver.received().len(), 1, "the faulty site's send failed");
    app.clock.advance(chrono::Duration::seconds(app.state.config.webhooks.claim_lease_secs as i64 + 1));
    app.retry_webhooks().await;
    app.settle().await;
    let paths: Vec<String> =
        receiver.received().iter().map(|r| r.path.rsplit('/').next().unwrap().to_owned()).collect();
    assert_eq!(paths, ["other", "faulty"], "sent again, once");

    // Each panic restarted the faulty site's supervisor, which still runs.
    for _ in 0..100 {
        if supervisors.counts().restarts == restarts_before + 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(supervisors.counts().restarts, restarts_before + 2);
    assert!(supervisors.is_running(faulty_id) && supervisors.is_running(other.parse().unwrap()));
    let metrics = app.client.get(format!("{}/metrics", app.base)).bearer_auth(METRICS_TOKEN).send().await.unwrap();
    let metrics = metrics.text().await.unwrap();
    assert!(metrics.contains("plinth_site_supervisors{measure=\"panics\"} 2"), "{metrics}");
    let failed = "plinth_http_request_duration_seconds_count{method=\"GET\",route=\"failed\",status=\"5xx\"} 1";
    assert!(metrics.contains(failed), "the panicked request is counted: {metrics}");
}
