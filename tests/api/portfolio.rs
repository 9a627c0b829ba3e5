use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn cv_entries_have_their_fields_rules_filter_and_events() {
    let app = TestApp::spawn().await;
    let off = app.create_site_id("no-portfolio").await;
    let res = app
        .post(
            "/cv",
            &app.admin_key,
            json!({"site_ids": [off], "title": "x", "entry_type": "work", "start_date": "2020-01-01"}),
        )
        .await;
    assert_problem(res, 403, "MODULE_NOT_ENABLED").await;

    let site = app.create_site_with_module("cv", "portfolio").await;
    let mut events = app.state.events.subscribe();
    let body = json!({"site_ids": [site], "entry_type": "work", "title": "Engineer", "organization": "ACME", "start_date": "2021-03-01", "is_current": true});
    let res = app.post("/cv", &app.admin_key, body).await;
    assert_eq!(res.status(), 201);
    let job: Value = res.json().await.unwrap();
    assert_eq!(
        (
            job["entry_type"].as_str(),
            job["organization"].as_str(),
            job["start_date"].as_str(),
            job["is_current"].as_bool()
        ),
        (Some("work"), Some("ACME"), Some("2021-03-01"), Some(true))
    );
    assert!(job["end_date"].is_null());
    let event = events.recv().await.unwrap();
    assert_eq!((event.event.to_string().as_str(), event.data["title"].as_str()), ("cv.created", Some("Engineer")));

    let id = job["id"].as_str().unwrap();
    let plain: Value = app.get(&format!("/cv/{id}"), &app.admin_key).await.json().await.unwrap();
    let detail: Value = app.get(&format!("/cv/{id}/detail"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(plain, detail, "the spec gives both the same shape");

    // entry_type is optional (work), as in the service the spec was written from.
    let untyped =
        app.post("/cv", &app.admin_key, json!({"site_ids": [site], "title": "x", "start_date": "2020-01-01"})).await;
    assert_eq!(untyped.status(), 201);
    let untyped: Value = untyped.json().await.unwrap();
    assert_eq!(untyped["entry_type"], "work");
    app.delete(&format!("/cv/{}", untyped["id"].as_str().unwrap()), &app.admin_key).await;
    for (bad, field) in [
        (json!({"site_ids": [site], "title": "x", "entry_type": "work"}), "start_date"),
        (
            json!({"site_ids": [site], "title": "x", "entry_type": "work", "start_date": "2020-01-01", "is_current": true, "end_date": "2021-01-01"}),
            "end_date",
        ),
        (
            json!({"site_ids": [site], "title": "x", "entry_type": "work", "start_date": "2020-01-01", "end_date": "2019-01-01"}),
            "end_date",
        ),
        (
            json!({"site_ids": [site], "title": "x", "entry_type": "work", "start_date": "2020-01-01", "route": "/x"}),
            "route",
        ),
    ] {
        let problem = assert_problem(app.post("/cv", &app.admin_key, bad).await, 422, "VALIDATION_ERROR").await;
        assert_eq!(problem["errors"][0]["field"], field, "{problem}");
    }
    assert_problem(
        app.post(
            "/cv",
            &app.admin_key,
            json!({"site_ids": [site], "title": "x", "entry_type": "pirate", "start_date": "2020-01-01"}),
        )
        .await,
        422,
        "VALIDATION_ERROR",
    )
    .await;

    // Ending the job: is_current off and an end date, in one update.
    let ended: Value = app
        .put(&format!("/cv/{id}"), &app.admin_key, json!({"is_current": false, "end_date": "2024-06-30"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (ended["is_current"].as_bool(), ended["end_date"].as_str(), ended["organization"].as_str()),
        (Some(false), Some("2024-06-30"), Some("ACME"))
    );
    let res = app.put(&format!("/cv/{id}"), &app.admin_key, json!({"is_current": true})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;

    app.post("/cv", &app.admin_key, json!({"site_ids": [site], "entry_type": "education", "title": "MSc", "start_date": "2015-10-01", "end_date": "2017-09-30"})).await;
    let schooling: Value =
        app.get(&format!("/sites/{site}/cv?entry_type=education"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(schooling["meta"]["total"], 1);
    assert_eq!(schooling["data"][0]["title"], "MSc");
    let all: Value = app.get(&format!("/sites/{site}/cv"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(all["meta"]["total"], 2);
    assert_problem(app.get(&format!("/sites/{site}/cv?entry_type=hobby"), &app.admin_key).await, 400, "BAD_REQUEST")
        .await;
    assert_problem(app.get(&format!("/sites/{site}/blogs?entry_type=work"), &app.admin_key).await, 400, "BAD_REQUEST")
        .await;

    let res = app
        .post(&format!("/sites/{site}/cv/bulk"), &app.admin_key, json!({"action": "UpdateStatus", "ids": [id]}))
        .await;
    assert_problem(res, 400, "CV_BULK_STATUS_REQUIRED").await;

    // Trash round trip with the spec's entity type.
    assert_eq!(app.delete(&format!("/cv/{id}"), &app.admin_key).await.status(), 204);
    let trash: Value = app.get(&format!("/sites/{site}/trash"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(trash["items"][0]["entity_type"], "cv_entry");
    let res = app.post(&format!("/trash/{id}/restore?entity_type=cv_entry"), &app.admin_key, json!({})).await;
    assert_eq!(res.status(), 200);
    assert_eq!(app.get(&format!("/cv/{id}"), &app.admin_key).await.status(), 200);
}

#[actix_web::test]
async fn projects_live_in_the_portfolio_module() {
    let app = TestApp::spawn().await;
    let site = app.create_site_with_module("projects", "portfolio").await;
    let mut events = app.state.events.subscribe();
    let body = json!({
        "site_ids": [site], "title": "Bridge", "client": "City", "status": "Published",
        "links": [{"label": "Case study", "url": "https://example.org/bridge"}], "media_ids": [uuid::Uuid::new_v4()]
    });
    let project: Value = app.post("/projects", &app.admin_key, body).await.json().await.unwrap();
    assert_eq!(
        (project["slug"].as_str(), project["client"].as_str(), project["status"].as_str()),
        (Some("bridge"), Some("City"), Some("Published"))
    );
    assert_eq!(project["links"][0]["label"], "Case study");
    let names = [events.recv().await.unwrap().event, events.recv().await.unwrap().event];
    assert_eq!(names, ["project.created", "project.published"]);

    let res = app
        .post(
            "/projects",
            &app.admin_key,
            json!({"site_ids": [site], "title": "Bad", "links": [{"label": "x", "url": "javascript:alert(1)"}]}),
        )
        .await;
    assert_eq!(assert_problem(res, 422, "VALIDATION_ERROR").await["errors"][0]["field"], "links[0].url");
    let res =
        app.post("/projects", &app.admin_key, json!({"site_ids": [site], "title": "Bad", "entry_type": "work"})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let res = app
        .post(
            &format!("/sites/{site}/projects/bulk"),
            &app.admin_key,
            json!({"action": "UpdateStatus", "ids": [project["id"]]}),
        )
        .await;
    assert_problem(res, 400, "PROJECT_BULK_STATUS_REQUIRED").await;
    let published: Value =
        app.get(&format!("/sites/{site}/projects/published"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(published["meta"]["total"], 1);

    app.put(&format!("/sites/{site}/settings"), &app.admin_key, json!({"module_portfolio_enabled": false})).await;
    assert_problem(
        app.get(&format!("/projects/{}", project["id"].as_str().unwrap()), &app.admin_key).await,
        403,
        "MODULE_NOT_ENABLED",
    )
    .await;

    let doc: Value =
        app.client.get(format!("{}/api-docs/openapi.json", app.base)).send().await.unwrap().json().await.unwrap();
    for (method, path) in [
        ("get", "/api/v1/sites/{site_id}/cv"),
        ("get", "/api/v1/cv/{id}/detail"),
        ("post", "/api/v1/cv"),
        ("post", "/api/v1/projects/{id}/review"),
    ] {
        assert!(doc["paths"][path][method].is_object(), "{method} {path}");
    }
    assert_eq!(doc["paths"]["/api/v1/sites/{site_id}/cv/bulk"]["post"]["operationId"], "bulk_cv");
    // Each kind's list item is its own schema, with the fields of its kind.
    let listed = &doc["paths"]["/api/v1/sites/{site_id}/cv"]["get"]["responses"]["200"]["content"]["application/json"];
    assert_eq!(listed["schema"]["$ref"], "#/components/schemas/Paginated_CvEntryListItem");
    let schemas = &doc["components"]["schemas"];
    let cv_item = serde_json::to_string(&schemas["CvEntryListItem"]).unwrap();
    assert!(cv_item.contains("entry_type") && cv_item.contains("ContentListItem"), "{cv_item}");
    assert!(serde_json::to_string(&schemas["Paginated_CvEntryListItem"]).unwrap().contains("CvEntryListItem"));
    let skills = &doc["paths"]["/api/v1/sites/{site_id}/skills"]["get"]["responses"]["200"]["content"];
    assert_eq!(skills["application/json"]["schema"]["$ref"], "#/components/schemas/Paginated_SkillListItem");
    assert!(serde_json::to_string(&schemas["SkillListItem"]).unwrap().contains("proficiency"));
    // And its create and update bodies hold its own fields, not the other kinds'.
    let created = &doc["paths"]["/api/v1/cv"]["post"]["requestBody"]["content"]["application/json"]["schema"];
    assert_eq!(created["$ref"], "#/components/schemas/CreateCvEntry");
    let cv_body = &schemas["CreateCvEntry"]["properties"];
    assert!(cv_body["entry_type"].is_object() && cv_body["route"].is_null() && cv_body["proficiency"].is_null());
    let updated = &doc["paths"]["/api/v1/blogs/{id}"]["put"]["requestBody"]["content"]["application/json"]["schema"];
    assert_eq!(updated["$ref"], "#/components/schemas/UpdateBlog");
    assert!(schemas["UpdateBlog"]["properties"]["entry_type"].is_null());
    assert!(schemas["UpdateBlog"]["properties"]["title"].is_object());
}

#[actix_web::test]
async fn skills_have_names_proficiency_and_their_own_page_size() {
    let app = TestApp::spawn().await;
    let site = app.create_site_with_module("skills", "portfolio").await;
    let mut events = app.state.events.subscribe();
    let res = app
        .post(
            "/skills",
            &app.admin_key,
            json!({"site_ids": [site], "name": "Rust", "category": "languages", "proficiency": 90}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let skill: Value = res.json().await.unwrap();
    assert_eq!(
        (
            skill["name"].as_str(),
            skill["slug"].as_str(),
            skill["category"].as_str(),
            skill["proficiency"].as_i64(),
            skill["status"].as_str()
        ),
        (Some("Rust"), Some("rust"), Some("languages"), Some(90), Some("Published"))
    );
    assert!(events.try_recv().is_err(), "the spec defines no skill events");

    let res = app.post("/skills", &app.admin_key, json!({"site_ids": [site], "name": "Go", "proficiency": 101})).await;
    assert_eq!(assert_problem(res, 422, "VALIDATION_ERROR").await["errors"][0]["field"], "proficiency");
    let listed: Value = app.get(&format!("/sites/{site}/skills"), &app.admin_key).await.json().await.unwrap();
    assert_eq!((listed["meta"]["per_page"].as_u64(), listed["meta"]["total"].as_u64()), (Some(25), Some(1)));

    let found: Value = app.get("/skills/by-slug/rust", &app.admin_key).await.json().await.unwrap();
    assert_eq!(found["id"], skill["id"]);
    assert_problem(app.get("/skills/by-slug/cobol", &app.admin_key).await, 404, "ENTITY_NOT_FOUND").await;
    let stranger = app.create_key("Read", Some(&app.create_site_id("elsewhere").await)).await;
    assert_problem(app.get("/skills/by-slug/rust", &stranger).await, 403, "AUTH_API_KEY_SITE_DENIED").await;

    let id = skill["id"].as_str().unwrap();
    let better: Value = app
        .put(&format!("/skills/{id}"), &app.admin_key, json!({"proficiency": 95, "name": "Rust (systems)"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (better["proficiency"].as_i64(), better["name"].as_str(), better["slug"].as_str()),
        (Some(95), Some("Rust (systems)"), Some("rust"))
    );
    assert_eq!(app.delete(&format!("/skills/{id}"), &app.admin_key).await.status(), 204);
    let trash: Value = app.get(&format!("/sites/{site}/trash"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(trash["items"][0]["entity_type"], "skill");
}
