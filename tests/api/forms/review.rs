//! Reviewing submissions: lists, counts, detail, the status state machine,
//! notes, soft delete, field-value search and retention.

use sea_orm::EntityTrait;
use serde_json::{json, Value};

use super::{contact_form, create_form, forms_site, submit, valid_data};
use crate::helpers::{assert_problem, TestApp};

async fn submitted(app: &TestApp, domain: &str, slug: &str, email: &str) -> String {
    let mut data = valid_data();
    data["email"] = json!(email);
    let res = submit(app, domain, slug, json!({"data": data})).await;
    assert_eq!(res.status(), 201);
    let code = res.json::<Value>().await.unwrap()["reference_code"].as_str().unwrap().to_string();
    let row = {
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
        plinth_entities::form_submission::Entity::find()
            .filter(plinth_entities::form_submission::Column::ReferenceCode.eq(code))
            .one(&app.state.db)
            .await
            .unwrap()
            .unwrap()
    };
    row.id.to_string()
}

#[actix_web::test]
async fn submissions_move_through_the_review_states_with_notes_and_history() {
    let app = TestApp::spawn().await;
    let key = app.admin_key.clone();
    let site = forms_site(&app, "review").await;
    let form = create_form(&app, &site, contact_form("contact")).await;
    let form_id = form["id"].as_str().unwrap();
    let first = submitted(&app, "review", "contact", "one@example.org").await;
    let second = submitted(&app, "review", "contact", "Two@Example.org").await;
    submitted(&app, "review", "contact", "three@example.org").await;

    let put_status = |id: String, status: &'static str| {
        let app = &app;
        let key = key.clone();
        async move { app.put(&format!("/submissions/{id}/status"), &key, json!({"status": status})).await }
    };
    assert_eq!(put_status(first.clone(), "in_review").await.status(), 200);
    assert_eq!(put_status(first.clone(), "resolved").await.status(), 200);
    assert_problem(put_status(first.clone(), "new").await, 400, "INVALID_STATUS_TRANSITION").await;
    assert_problem(put_status(first.clone(), "resolved").await, 400, "INVALID_STATUS_TRANSITION").await;
    assert_eq!(put_status(second.clone(), "archived").await.status(), 200);
    assert_problem(put_status(second.clone(), "resolved").await, 400, "INVALID_STATUS_TRANSITION").await;
    assert_eq!(put_status(second.clone(), "in_review").await.status(), 200);

    let counts: Value =
        app.get(&format!("/forms/{form_id}/submissions/status-counts"), &key).await.json().await.unwrap();
    assert_eq!(counts, json!({"new": 1, "in_review": 1, "resolved": 1, "archived": 0, "total": 3}));
    let list: Value =
        app.get(&format!("/forms/{form_id}/submissions?status=new&page_size=5"), &key).await.json().await.unwrap();
    assert_eq!((list["meta"]["total"].as_u64(), list["meta"]["per_page"].as_u64()), (Some(1), Some(5)));
    assert_eq!(list["data"][0]["data"]["email"], "three@example.org");

    let res = app.post(&format!("/submissions/{first}/notes"), &key, json!({"body": "Called back"})).await;
    assert_eq!(res.status(), 201);
    let note: Value = res.json().await.unwrap();
    assert_problem(
        app.post(&format!("/submissions/{first}/notes"), &key, json!({"body": "  "})).await,
        422,
        "VALIDATION_ERROR",
    )
    .await;
    let detail: Value = app.get(&format!("/submissions/{first}"), &key).await.json().await.unwrap();
    assert_eq!(detail["notes"][0]["body"], "Called back");
    let history: Vec<(Value, Value)> = detail["status_history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["from_status"].clone(), h["to_status"].clone()))
        .collect();
    assert_eq!(
        history,
        [(Value::Null, json!("new")), (json!("new"), json!("in_review")), (json!("in_review"), json!("resolved"))]
    );
    let note_id = note["id"].as_str().unwrap();
    assert_eq!(app.delete(&format!("/submissions/{first}/notes/{note_id}"), &key).await.status(), 204);
    assert_problem(app.delete(&format!("/submissions/{first}/notes/{note_id}"), &key).await, 404, "ENTITY_NOT_FOUND")
        .await;

    assert_eq!(app.delete(&format!("/submissions/{first}"), &key).await.status(), 204);
    assert_problem(app.get(&format!("/submissions/{first}"), &key).await, 404, "ENTITY_NOT_FOUND").await;
    let counts: Value =
        app.get(&format!("/forms/{form_id}/submissions/status-counts"), &key).await.json().await.unwrap();
    assert_eq!(counts["total"], 2);
}

#[actix_web::test]
async fn queryable_forms_search_by_field_value_and_simple_ones_refuse() {
    let app = TestApp::spawn().await;
    let key = app.admin_key.clone();
    let site = forms_site(&app, "search").await;
    let queryable = create_form(&app, &site, contact_form("contact")).await;
    let mut simple = contact_form("simple");
    simple["storage_mode"] = json!("simple");
    let simple = create_form(&app, &site, simple).await;
    submitted(&app, "search", "contact", "ada@example.org").await;
    submitted(&app, "search", "contact", "Grace@Example.org").await;
    submitted(&app, "search", "simple", "ada@example.org").await;

    let id = queryable["id"].as_str().unwrap();
    let found: Value = app
        .get(&format!("/forms/{id}/submissions?field=email&value=grace@example.org"), &key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(found["meta"]["total"], 1);
    assert_eq!(found["data"][0]["data"]["email"], "Grace@Example.org");
    let rows = plinth_entities::form_submission_value::Entity::find().all(&app.state.db).await.unwrap();
    assert!(rows.iter().all(|r| r.form_id.to_string() == id), "simple forms index nothing");

    let simple_id = simple["id"].as_str().unwrap();
    let res = app.get(&format!("/forms/{simple_id}/submissions?field=email&value=ada@example.org"), &key).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
}

#[actix_web::test]
async fn the_janitor_deletes_submissions_past_their_retention_hourly() {
    let app = TestApp::spawn().await;
    let key = app.admin_key.clone();
    let site = forms_site(&app, "retention").await;
    let mut short = contact_form("short");
    short["retention_days"] = json!(1);
    let short = create_form(&app, &site, short).await;
    let mut kept = contact_form("kept");
    kept["retention_days"] = json!(0);
    let kept = create_form(&app, &site, kept).await;
    submitted(&app, "retention", "short", "a@example.org").await;
    submitted(&app, "retention", "kept", "b@example.org").await;
    assert_problem(
        app.put(&format!("/forms/{}", short["id"].as_str().unwrap()), &key, json!({"retention_days": -1})).await,
        422,
        "VALIDATION_ERROR",
    )
    .await;

    app.advance_and_run_janitor(chrono::Duration::hours(25)).await;
    let count = |id: &str| {
        let path = format!("/forms/{id}/submissions/status-counts");
        let app = &app;
        let key = key.clone();
        async move { app.get(&path, &key).await.json::<Value>().await.unwrap()["total"].as_u64() }
    };
    assert_eq!(count(short["id"].as_str().unwrap()).await, Some(0));
    assert_eq!(count(kept["id"].as_str().unwrap()).await, Some(1));
}
