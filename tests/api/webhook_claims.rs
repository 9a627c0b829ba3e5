//! A delivery caught in flight by a crash: the restarted instance sends its own
//! at once (it keeps its id in the data directory); another instance's claim is
//! left alone until its lease lapses. Every resend keeps the `webhook-id`.

use chrono::Duration;
use plinth_entities::webhook_delivery;
use sea_orm::{ActiveModelTrait, ActiveValue::Set};
use serde_json::{json, Value};
use uuid::Uuid;

use crate::helpers::{test_config, TestApp};
use crate::receiver::Receiver;

async fn in_flight(app: &TestApp, hook: &Value, claimed_by: Uuid, title: &str) -> Uuid {
    let now = plinth_actors::Clock::now(app.clock.as_ref());
    let id = Uuid::new_v4();
    let payload = json!({"event": "blog.created", "data": {"title": title}});
    webhook_delivery::ActiveModel {
        id: Set(id),
        webhook_id: Set(Uuid::parse_str(hook["id"].as_str().unwrap()).unwrap()),
        site_id: Set(Uuid::parse_str(hook["site_id"].as_str().unwrap()).unwrap()),
        event: Set("blog.created".into()),
        payload: Set(payload.to_string()),
        status: Set(plinth_entities::values::DeliveryStatus::Pending),
        attempts: Set(0),
        next_attempt_at: Set(Some(now + Duration::seconds(30))),
        claimed_by: Set(Some(claimed_by)),
        last_status_code: Set(None),
        last_error: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&app.state.db)
    .await
    .unwrap();
    id
}

/// An app that may send to `receiver`, with a site and a webhook on `blog.created`.
async fn app_with_webhook(receiver: &Receiver, slug: &str) -> (TestApp, Value) {
    let allowed = receiver.host_port.clone();
    let app = TestApp::spawn_with(|c| c.ssrf_allowlist = vec![allowed]).await;
    let site = app.create_site_id(slug).await;
    let hook: Value = app
        .post(
            &format!("/sites/{site}/webhooks"),
            &app.admin_key,
            json!({"url": receiver.url, "events": ["blog.created"]}),
        )
        .await
        .json()
        .await
        .unwrap();
    (app, hook)
}

/// The webhook's delivery log, as its API lists it.
async fn deliveries(app: &TestApp, hook: &Value) -> Value {
    app.get(&format!("/webhooks/{}/deliveries", hook["id"].as_str().unwrap()), &app.admin_key)
        .await
        .json()
        .await
        .unwrap()
}

#[actix_web::test]
async fn a_restarted_instance_sends_what_it_held_at_once_and_waits_out_other_claims() {
    let receiver = Receiver::start();
    let (app, hook) = app_with_webhook(&receiver, "claims").await;
    let own_instance = plinth::webhooks::claims::instance_id(&app.state.config.data_dir).unwrap();
    // What the process was sending when it died, and what another instance is sending.
    let own = in_flight(&app, &hook, own_instance, "mine").await;
    let foreign = in_flight(&app, &hook, Uuid::new_v4(), "theirs").await;

    let admin_key = app.admin_key.clone();
    let (dir, database_url) = app.stop().await;
    let mut config = test_config(&dir, &database_url);
    config.bootstrap_api_key = Some(admin_key);
    config.ssrf_allowlist = vec![receiver.host_port.clone()];
    let app = TestApp::start(config, dir).await;

    // No clock movement: the own claim is taken back on start and sent.
    let received = receiver.wait_for(1).await;
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].headers["webhook-id"], own.to_string());
    app.retry_webhooks().await;
    assert_eq!(receiver.received().len(), 1, "another instance's claim is not due before its lease ends");

    app.clock.advance(Duration::seconds(31));
    app.retry_webhooks().await;
    let received = receiver.wait_for(2).await;
    assert_eq!(received[1].headers["webhook-id"], foreign.to_string());
    let listed = deliveries(&app, &hook).await;
    assert!(listed["data"].as_array().unwrap().iter().all(|d| d["success"] == true), "{listed}");
    app.settle().await;
}

#[actix_web::test]
async fn a_claim_lease_no_longer_than_the_send_timeout_is_refused() {
    let env = |name: &str| (name == "PLINTH_WEBHOOK_CLAIM_LEASE_SECS").then(|| "10".to_string());
    let refused = plinth::Config::from_sources(None, env).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(refused.contains("claim_lease_secs"), "{refused}");
}

/// Results are written in batches; one whose delivery was deleted while it was
/// being sent (its webhook deleted, cascading) used to fail the whole batch
/// ("None of the records are updated"), so every other result in it was lost
/// and its delivery sent again.
#[actix_web::test]
async fn a_result_for_a_delivery_deleted_mid_send_does_not_lose_the_rest_of_its_batch() {
    use plinth::webhooks::delivery::AttemptResult;
    use plinth::webhooks::results::{flush, Outcome};
    use sea_orm::EntityTrait;

    let receiver = Receiver::start();
    let (app, hook) = app_with_webhook(&receiver, "deleted-mid-send").await;
    let instance = plinth::webhooks::claims::instance_id(&app.state.config.data_dir).unwrap();
    let kept = in_flight(&app, &hook, instance, "kept").await;
    let deleted = in_flight(&app, &hook, instance, "deleted").await;
    let now = plinth_actors::Clock::now(app.clock.as_ref());
    // Both read before the one is deleted, as the sender holds them; deleted
    // before the results are pushed, since the background flusher may write
    // them any time after a push.
    let mut sent = Vec::new();
    for id in [deleted, kept] {
        sent.push(webhook_delivery::Entity::find_by_id(id).one(&app.state.db).await.unwrap().unwrap());
    }
    webhook_delivery::Entity::delete_by_id(deleted).exec(&app.state.db).await.unwrap();
    for delivery in sent {
        let result = AttemptResult {
            success: true,
            status_code: Some(200),
            duration_ms: 3,
            error: None,
            response_excerpt: None,
        };
        app.webhooks.results.sending();
        app.webhooks.results.push(Outcome { delivery, result, at: now });
    }

    let written = flush(&app.webhooks).await;
    assert!(written.is_ok(), "the batch was refused: {:?}", written.err());
    // The background flusher may have taken the batch first: wait for it.
    for _ in 0..200 {
        if app.webhooks.results.is_idle() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let row = webhook_delivery::Entity::find_by_id(kept).one(&app.state.db).await.unwrap().unwrap();
    assert_eq!((row.status.as_str(), row.attempts, row.claimed_by), ("success", 1, None));
    let listed = deliveries(&app, &hook).await;
    assert_eq!(listed["data"].as_array().unwrap().len(), 1, "{listed}");
    app.settle().await;
}
