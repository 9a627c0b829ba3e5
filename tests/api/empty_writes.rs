//! Writes that find nothing to change (a bulk action naming no items, sample
//! posts removed from a site that has none, a reorder naming no entry or only
//! entries already in place) answer as a change of nothing would, and leave
//! no audit entry: they wrote nothing. (A debug build refuses to commit a
//! write that records no entry unless it says it found nothing to change.)

use serde_json::{json, Value};

use crate::helpers::TestApp;

/// How many entries the site's audit trail holds.
async fn audit_entries(app: &TestApp, site: &str) -> usize {
    let trail: Value = app.get(&format!("/sites/{site}/audit"), &app.admin_key).await.json().await.unwrap();
    trail["data"].as_array().map_or(0, Vec::len)
}

#[actix_web::test]
async fn a_bulk_action_naming_no_items_changes_nothing() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("empty-bulk").await;
    let before = audit_entries(&app, &site).await;
    let res =
        app.post(&format!("/sites/{site}/blogs/bulk"), &app.admin_key, json!({"action": "Delete", "ids": []})).await;
    assert_eq!(res.status(), 200);
    let answer: Value = res.json().await.unwrap();
    assert_eq!((answer["affected"].as_u64(), answer["total"].as_u64()), (Some(0), Some(0)));
    assert_eq!(audit_entries(&app, &site).await, before);
}

#[actix_web::test]
async fn removing_sample_posts_from_a_site_without_any_removes_none() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("no-samples").await;
    let res = app.delete(&format!("/sites/{site}/blogs/samples"), &app.admin_key).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap(), json!({"deleted": 0}));
}

#[actix_web::test]
async fn a_reorder_naming_no_entry_moves_nothing() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("empty-reorder").await;
    let before = audit_entries(&app, &site).await;
    for path in [format!("/sites/{site}/navigation/reorder"), format!("/sites/{site}/social/reorder")] {
        assert_eq!(app.post(&path, &app.admin_key, json!({"items": []})).await.status(), 204, "{path}");
    }
    assert_eq!(audit_entries(&app, &site).await, before);
}

#[actix_web::test]
async fn a_reorder_keeping_every_place_moves_nothing() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("same-order").await;
    let link = app
        .create(
            &format!("/sites/{site}/social-links"),
            &app.admin_key,
            json!({"platform": "github", "url": "https://github.com/acme", "display_order": 2}),
        )
        .await;
    let before = audit_entries(&app, &site).await;
    let same = json!({"items": [{"id": link["id"], "display_order": 2}]});
    assert_eq!(app.post(&format!("/sites/{site}/social/reorder"), &app.admin_key, same).await.status(), 204);
    assert_eq!(audit_entries(&app, &site).await, before);
}
