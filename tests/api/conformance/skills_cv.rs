//! Spec "Endpoints › Skills and CV entries".

use serde_json::{json, Value};

use super::{assert_paginated, expect_json, s};
use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn skill_rows() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;
    let site = app.create_site_with_module("skills", "portfolio").await;

    // POST /skills body {site_ids, name, slug, category, proficiency}: 201.
    let body = json!({"site_ids": [site], "name": "Rust", "slug": "rust", "category": "languages", "proficiency": 90});
    let skill = expect_json(app.post("/skills", key, body).await, 201).await;
    assert_eq!(
        (skill["name"].as_str(), skill["slug"].as_str(), skill["category"].as_str(), skill["proficiency"].as_i64()),
        (Some("Rust"), Some("rust"), Some("languages"), Some(90))
    );
    assert_eq!(skill["site_ids"], json!([site]));
    let id = s(&skill, "id");
    for i in 0..26 {
        let body = json!({"site_ids": [site], "name": format!("Skill {i}"), "slug": format!("skill-{i}"),
                          "category": "tools", "proficiency": i});
        expect_json(app.post("/skills", key, body).await, 201).await;
    }

    // GET /sites/{site_id}/skills?page&per_page: paginated, default per_page 25.
    let page = expect_json(app.get(&format!("/sites/{site}/skills"), key).await, 200).await;
    assert_paginated(&page, 1, 25, 27);
    let page = expect_json(app.get(&format!("/sites/{site}/skills?page=3&per_page=10"), key).await, 200).await;
    assert_paginated(&page, 3, 10, 27);

    // GET /skills/{id}, /skills/by-slug/{slug}: skill.
    let by_id = expect_json(app.get(&format!("/skills/{id}"), key).await, 200).await;
    let by_slug = expect_json(app.get("/skills/by-slug/rust", key).await, 200).await;
    assert_eq!(by_id, by_slug);
    assert_eq!(by_id["name"], "Rust");

    // PUT /skills/{id}: update; DELETE: soft delete.
    let updated = expect_json(app.put(&format!("/skills/{id}"), key, json!({"proficiency": 95})).await, 200).await;
    assert_eq!((updated["proficiency"].as_i64(), updated["name"].as_str()), (Some(95), Some("Rust")));
    assert!(app.delete(&format!("/skills/{id}"), key).await.status().is_success());
    assert_problem(app.get(&format!("/skills/{id}"), key).await, 404, "ENTITY_NOT_FOUND").await;
    let trash = expect_json(app.get(&format!("/sites/{site}/trash"), key).await, 200).await;
    assert_eq!(
        (trash["items"][0]["id"].as_str(), trash["items"][0]["entity_type"].as_str()),
        (Some(id.as_str()), Some("skill"))
    );

    // The section's 403: a Read key cannot create.
    let reader = app.create_key("Read", Some(&site)).await;
    let body = json!({"site_ids": [site], "name": "Go", "slug": "go", "category": "languages", "proficiency": 50});
    assert_problem(app.post("/skills", &reader, body).await, 403, "AUTH_INSUFFICIENT_ROLE").await;

    // The portfolio module off: MODULE_NOT_ENABLED (403 for modules other than forms).
    let plain = app.create_site_id("no-portfolio").await;
    let body = json!({"site_ids": [plain], "name": "Go", "slug": "go", "category": "languages", "proficiency": 50});
    assert_problem(app.post("/skills", key, body).await, 403, "MODULE_NOT_ENABLED").await;
    assert_problem(app.get(&format!("/sites/{plain}/skills"), key).await, 403, "MODULE_NOT_ENABLED").await;
}

#[actix_web::test]
async fn cv_entry_rows() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;
    let site = app.create_site_with_module("cv", "portfolio").await;

    // POST /cv body {site_ids, entry_type, title, organization, start_date, is_current}: 201.
    let cv = |entry_type: &str, title: &str, current: bool| {
        json!({"site_ids": [site], "entry_type": entry_type, "title": title, "organization": "ACME",
               "start_date": "2020-01-01", "is_current": current})
    };
    let job = expect_json(app.post("/cv", key, cv("work", "Engineer", true)).await, 201).await;
    assert_eq!(
        (job["entry_type"].as_str(), job["title"].as_str(), job["organization"].as_str()),
        (Some("work"), Some("Engineer"), Some("ACME"))
    );
    assert_eq!((job["start_date"].as_str(), job["is_current"].as_bool()), (Some("2020-01-01"), Some(true)));
    expect_json(app.post("/cv", key, cv("education", "MSc", false)).await, 201).await;
    expect_json(app.post("/cv", key, cv("education", "BSc", false)).await, 201).await;
    let id = s(&job, "id");

    // GET /sites/{site_id}/cv?entry_type&page&per_page: paginated, filtered.
    let all = expect_json(app.get(&format!("/sites/{site}/cv"), key).await, 200).await;
    assert_paginated(&all, 1, 10, 3);
    let education =
        expect_json(app.get(&format!("/sites/{site}/cv?entry_type=education&page=1&per_page=1"), key).await, 200).await;
    let data = assert_paginated(&education, 1, 1, 2);
    let first = expect_json(app.get(&format!("/cv/{}", s(&data[0], "id")), key).await, 200).await;
    assert_eq!(first["entry_type"], "education");

    // GET /cv/{id}, /cv/{id}/detail: identical shape.
    let plain = expect_json(app.get(&format!("/cv/{id}"), key).await, 200).await;
    let detail = expect_json(app.get(&format!("/cv/{id}/detail"), key).await, 200).await;
    assert_eq!(plain, detail);

    // PUT /cv/{id}: update; DELETE: soft delete.
    let body = json!({"is_current": false, "end_date": "2024-06-30"});
    let updated = expect_json(app.put(&format!("/cv/{id}"), key, body).await, 200).await;
    assert_eq!((updated["is_current"].as_bool(), updated["end_date"].as_str()), (Some(false), Some("2024-06-30")));
    assert!(app.delete(&format!("/cv/{id}"), key).await.status().is_success());
    assert_problem(app.get(&format!("/cv/{id}"), key).await, 404, "ENTITY_NOT_FOUND").await;

    // Bulk UpdateStatus without status: CV_BULK_STATUS_REQUIRED.
    let ids: Vec<Value> = data.iter().map(|e| e["id"].clone()).collect();
    let res = app.post(&format!("/sites/{site}/cv/bulk"), key, json!({"action": "UpdateStatus", "ids": ids})).await;
    assert_problem(res, 400, "CV_BULK_STATUS_REQUIRED").await;
}
