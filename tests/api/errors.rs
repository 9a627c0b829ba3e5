use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn unknown_routes_and_wrong_methods_answer_problem_json() {
    let app = TestApp::spawn().await;
    let res = app.get("/no-such-thing", &app.admin_key).await;
    assert_problem(res, 404, "RESOURCE_NOT_FOUND").await;
    let res = app.request(Method::PATCH, "/sites", Some(&app.admin_key), None).await;
    assert_problem(res, 405, "METHOD_NOT_ALLOWED").await;
    let res = app.client.delete(app.url("/health")).send().await.unwrap();
    assert_problem(res, 405, "METHOD_NOT_ALLOWED").await;
}

#[actix_web::test]
async fn malformed_bodies_and_parameters_are_4xx_with_detail() {
    let app = TestApp::spawn().await;
    let res = app
        .client
        .post(app.url("/sites"))
        .header("X-API-Key", &app.admin_key)
        .header("content-type", "application/json")
        .body("{\"name\": ")
        .send()
        .await
        .unwrap();
    assert_problem(res, 400, "BAD_REQUEST").await;

    let res = app.post("/sites", &app.admin_key, json!({"name": 5, "slug": "x"})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;

    // A field the API does not define is ignored, never an error: clients of the
    // service the spec was written from send fields Plinth does not keep.
    let res = app.post("/sites", &app.admin_key, json!({"name": "x", "slug": "x", "surprise": true})).await;
    assert_eq!(res.status(), 201);
    assert!(res.json::<Value>().await.unwrap().get("surprise").is_none());

    let res =
        app.client.post(app.url("/sites")).header("X-API-Key", &app.admin_key).body("name=x").send().await.unwrap();
    assert_problem(res, 415, "UNSUPPORTED_MEDIA_TYPE").await;

    let res = app.get("/sites/not-a-uuid", &app.admin_key).await;
    assert_problem(res, 400, "BAD_REQUEST").await;

    let res = app.get("/api-keys?per_page=lots", &app.admin_key).await;
    assert_problem(res, 400, "BAD_REQUEST").await;
}

#[actix_web::test]
async fn field_validation_lists_each_field_error() {
    let app = TestApp::spawn().await;
    let res =
        app.post("/sites", &app.admin_key, json!({"name": " ", "slug": "Bad Slug", "base_url": "example.org"})).await;
    let body = assert_problem(res, 422, "VALIDATION_ERROR").await;
    let errors = body["errors"].as_array().unwrap();
    let fields: Vec<&str> = errors.iter().map(|e| e["field"].as_str().unwrap()).collect();
    assert_eq!(fields, ["name", "slug", "base_url"]);
    assert_eq!(errors[0]["code"], "VALIDATION_REQUIRED_FIELD");
    assert_eq!(errors[1]["code"], "VALIDATION_INVALID_FORMAT");
    assert!(errors.iter().all(|e| e["message"].is_string()));
    assert!(body.get("entity_type").is_none());
}

#[actix_web::test]
async fn entity_codes_name_their_entity_type_and_nothing_is_half_written() {
    let app = TestApp::spawn().await;
    let res = app.get(&format!("/sites/{}", uuid::Uuid::new_v4()), &app.admin_key).await;
    let body = assert_problem(res, 404, "ENTITY_NOT_FOUND").await;
    assert_eq!(body["entity_type"], "site");
    assert!(body.get("errors").is_none());

    // A site whose second locale is unknown is rejected whole: no site row stays.
    let locales: serde_json::Value = app.get("/locales", &app.admin_key).await.json().await.unwrap();
    let en = locales.as_array().unwrap().iter().find(|l| l["code"] == "en").unwrap()["id"].clone();
    let res = app
        .post(
            "/sites",
            &app.admin_key,
            json!({"name": "Half", "slug": "half", "locales": [
                {"locale_id": en, "is_default": true},
                {"locale_id": uuid::Uuid::new_v4(), "is_default": false}
            ]}),
        )
        .await;
    let body = assert_problem(res, 422, "VALIDATION_ERROR").await;
    assert_eq!(body["errors"][0]["field"], "locales[1].locale_id");
    let res = app.get("/sites/by-slug/half", &app.admin_key).await;
    assert_problem(res, 404, "ENTITY_NOT_FOUND").await;
    let res = app.post("/sites", &app.admin_key, json!({"name": "Half", "slug": "half"})).await;
    assert_eq!(res.status(), 201, "the slug was not left taken by the failed attempt");
}

#[actix_web::test]
async fn every_response_carries_a_request_id() {
    let app = TestApp::spawn().await;
    let res = app.client.get(app.url("/health")).header("X-Request-Id", "trace-me-123").send().await.unwrap();
    assert_eq!(res.headers()["x-request-id"], "trace-me-123");
    let res = app.get("/nothing-here", &app.admin_key).await;
    let id = res.headers()["x-request-id"].to_str().unwrap().to_string();
    assert_eq!(uuid::Uuid::parse_str(&id).map(|u| u.get_version_num()), Ok(4));
}

#[actix_web::test]
async fn a_page_number_past_any_end_answers_an_empty_page_not_a_dropped_connection() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("far").await;
    app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "One"})).await;
    let huge = "9223372036854775808";
    for path in [
        format!("/sites/{site}/trash?page={huge}&page_size=100"),
        format!("/sites/{site}/redirects?page={huge}"),
        format!("/sites/{site}/webhooks?page={huge}"),
        format!("/sites/{site}/blogs?page={huge}&per_page=100"),
        format!("/api-keys?page={huge}&per_page=100"),
    ] {
        let res = app.get(&path, &app.admin_key).await;
        assert_eq!(res.status(), 200, "{path}");
        let body: Value = res.json().await.unwrap();
        let items = body.get("data").or(body.get("items")).unwrap();
        assert_eq!(items, &json!([]), "{path}: {body}");
    }
}

#[actix_web::test]
async fn a_wrong_method_answers_405_with_allow() {
    let app = TestApp::spawn().await;
    let res = app.request(Method::PATCH, "/sites", Some(&app.admin_key), None).await;
    let allow = res.headers().get("allow").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
    assert_eq!(allow, "GET, POST");
    assert_problem(res, 405, "METHOD_NOT_ALLOWED").await;
}
