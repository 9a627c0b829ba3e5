use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn redirects_refuse_self_targets_and_loops_and_resolve_chains() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("moves").await;
    let path = format!("/sites/{site}/redirects");
    let res = app.post(&path, &app.admin_key, json!({"source_path": "/old/", "destination": "/new"})).await;
    assert_eq!(res.status(), 201);
    let first: Value = res.json().await.unwrap();
    assert_eq!((first["source_path"].as_str(), first["status_code"].as_i64()), (Some("/old"), Some(301)));
    // The origin service's admin reads the destination as `destination_path`.
    assert_eq!((first["destination"].as_str(), first["destination_path"].as_str()), (Some("/new"), Some("/new")));

    assert_problem(
        app.post(&path, &app.admin_key, json!({"source_path": "/same", "destination": "/same/"})).await,
        400,
        "REDIRECT_SAME_PATH",
    )
    .await;
    assert_problem(
        app.post(&path, &app.admin_key, json!({"source_path": "/old", "destination": "/x"})).await,
        409,
        "CONFLICT",
    )
    .await;
    app.post(&path, &app.admin_key, json!({"source_path": "/new", "destination": "/newer", "status_code": 308})).await;
    // /newer → /old would close /old → /new → /newer → /old.
    assert_problem(
        app.post(&path, &app.admin_key, json!({"source_path": "/newer", "destination": "/old"})).await,
        409,
        "CONFLICT",
    )
    .await;
    let res =
        app.post(&path, &app.admin_key, json!({"source_path": "/a", "destination": "/b", "status_code": 303})).await;
    assert_eq!(assert_problem(res, 422, "VALIDATION_ERROR").await["errors"][0]["field"], "status_code");
    assert_problem(
        app.post(&path, &app.admin_key, json!({"source_path": "nope", "destination": "/b"})).await,
        422,
        "VALIDATION_ERROR",
    )
    .await;
    assert_eq!(
        app.post(
            &path,
            &app.admin_key,
            json!({"source_path": "/ext", "destination": "https://example.org/x", "status_code": 302})
        )
        .await
        .status(),
        201
    );

    let resolved: Value = app.get(&format!("{path}/resolve?path=/old"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(resolved, json!({"path": "/old", "destination": "/newer", "status_code": 301, "hops": 2}));
    assert_problem(app.get(&format!("{path}/resolve?path=/nowhere"), &app.admin_key).await, 404, "ENTITY_NOT_FOUND")
        .await;

    let id = first["id"].as_str().unwrap();
    let off: Value =
        app.put(&format!("/redirects/{id}"), &app.admin_key, json!({"is_active": false})).await.json().await.unwrap();
    assert_eq!(off["is_active"], false);
    assert_problem(app.get(&format!("{path}/resolve?path=/old"), &app.admin_key).await, 404, "ENTITY_NOT_FOUND").await;
    let listed: Value = app.get(&path, &app.admin_key).await.json().await.unwrap();
    assert_eq!(listed["meta"]["total"], 3);

    let reader = app.create_key("Read", Some(&site)).await;
    assert_eq!(app.get(&format!("/redirects/{id}"), &reader).await.status(), 200);
    assert_problem(app.delete(&format!("/redirects/{id}"), &reader).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let other = app.create_key("Admin", Some(&app.create_site_id("other-moves").await)).await;
    assert_problem(app.get(&format!("/redirects/{id}"), &other).await, 403, "AUTH_API_KEY_SITE_DENIED").await;
    assert_eq!(app.delete(&format!("/redirects/{id}"), &app.admin_key).await.status(), 204);
}
