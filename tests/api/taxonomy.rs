use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

async fn term(app: &TestApp, site: &str, taxonomy: &str, name: &str) -> String {
    let res = app.post(&format!("/sites/{site}/{taxonomy}"), &app.admin_key, json!({"name": name})).await;
    assert_eq!(res.status(), 201);
    res.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string()
}

#[actix_web::test]
async fn categories_and_tags_are_managed_per_site() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("terms").await;
    let other = app.create_site_id("terms-other").await;
    let reader = app.create_key("Read", Some(&site)).await;

    let res = app.post(&format!("/sites/{site}/categories"), &app.admin_key, json!({"name": "Straße & Verkehr"})).await;
    let category: Value = res.json().await.unwrap();
    assert_eq!(category["slug"], "strasse-verkehr");
    let res = app
        .post(&format!("/sites/{site}/categories"), &app.admin_key, json!({"name": "Other", "slug": "strasse-verkehr"}))
        .await;
    assert_eq!(assert_problem(res, 409, "ENTITY_SLUG_TAKEN").await["entity_type"], "category");
    // The same slug as a tag, or on another site, is fine.
    term(&app, &site, "tags", "Straße & Verkehr").await;
    term(&app, &other, "categories", "Straße & Verkehr").await;

    let listed: Vec<Value> = app.get(&format!("/sites/{site}/categories"), &reader).await.json().await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_problem(
        app.post(&format!("/sites/{site}/tags"), &reader, json!({"name": "x"})).await,
        403,
        "AUTH_INSUFFICIENT_ROLE",
    )
    .await;
    let id = category["id"].as_str().unwrap();
    let renamed: Value =
        app.put(&format!("/categories/{id}"), &app.admin_key, json!({"name": "Traffic"})).await.json().await.unwrap();
    assert_eq!((renamed["name"].as_str(), renamed["slug"].as_str()), (Some("Traffic"), Some("strasse-verkehr")));
    assert_problem(
        app.put(&format!("/tags/{id}"), &app.admin_key, json!({"name": "x"})).await,
        404,
        "ENTITY_NOT_FOUND",
    )
    .await;
    assert_eq!(app.delete(&format!("/categories/{id}"), &app.admin_key).await.status(), 204);
}

#[actix_web::test]
async fn similar_posts_follow_the_scoring_and_ties_go_newest_first() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("similar").await;
    let (t1, t2) = (term(&app, &site, "tags", "rust").await, term(&app, &site, "tags", "web").await);
    let (c1, c2) = (term(&app, &site, "categories", "code").await, term(&app, &site, "categories", "life").await);
    let post = |title: &str, body: Value| {
        let mut b = json!({"site_ids": [site], "title": title, "status": "Published"});
        b.as_object_mut().unwrap().extend(body.as_object().unwrap().clone());
        b
    };
    let target = app
        .post(
            "/blogs",
            &app.admin_key,
            post(
                "Target",
                json!({"tag_ids": [t1, t2], "category_ids": [c1], "primary_category_id": c1, "author": "ann"}),
            ),
        )
        .await;
    let target: Value = target.json().await.unwrap();
    // Scores: two tags (6); primary category (2 + 3 = 5); same author (1); nothing (0); a draft (excluded).
    let two_tags: Value =
        app.post("/blogs", &app.admin_key, post("Two tags", json!({"tag_ids": [t1, t2]}))).await.json().await.unwrap();
    let primary: Value = app
        .post("/blogs", &app.admin_key, post("Primary", json!({"category_ids": [c1, c2], "primary_category_id": c1})))
        .await
        .json()
        .await
        .unwrap();
    let author_old: Value =
        app.post("/blogs", &app.admin_key, post("Author old", json!({"author": "ann"}))).await.json().await.unwrap();
    let author_new: Value =
        app.post("/blogs", &app.admin_key, post("Author new", json!({"author": "ann"}))).await.json().await.unwrap();
    app.post("/blogs", &app.admin_key, post("Unrelated", json!({}))).await;
    app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Draft", "tag_ids": [t1, t2]})).await;

    let id = target["id"].as_str().unwrap();
    let similar: Vec<Value> =
        app.get(&format!("/sites/{site}/blogs/{id}/similar?limit=10"), &app.admin_key).await.json().await.unwrap();
    let ids: Vec<&Value> = similar.iter().map(|s| &s["id"]).collect();
    assert_eq!(ids, [&two_tags["id"], &primary["id"], &author_new["id"], &author_old["id"]]);
    let default: Vec<Value> =
        app.get(&format!("/sites/{site}/blogs/{id}/similar"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(default.len(), 3);

    let detail: Value = app.get(&format!("/blogs/{id}/detail"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(detail["categories"], json!([{"id": c1, "slug": "code", "name": "code", "is_primary": true}]));
    let res = app
        .post(
            "/blogs",
            &app.admin_key,
            json!({"site_ids": [site], "title": "Bad", "category_ids": [c2], "primary_category_id": c1}),
        )
        .await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
}

#[actix_web::test]
async fn categories_and_tags_are_localizable() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("terms-i18n").await;
    let locales: Vec<Value> = app.get("/locales", &app.admin_key).await.json().await.unwrap();
    let de = locales.iter().find(|l| l["code"] == "de").unwrap()["id"].as_str().unwrap().to_string();
    let category = term(&app, &site, "categories", "Travel").await;
    let tag = term(&app, &site, "tags", "Mountains").await;

    let path = format!("/categories/{category}/localizations");
    assert_problem(
        app.post(&path, &app.admin_key, json!({"locale_id": de, "name": "Reisen"})).await,
        422,
        "VALIDATION_ERROR",
    )
    .await;
    app.post(&format!("/sites/{site}/locales"), &app.admin_key, json!({"locale_id": de})).await;
    let res = app.post(&path, &app.admin_key, json!({"locale_id": de, "name": "Reisen"})).await;
    assert_eq!(res.status(), 201);
    let loc: Value = res.json().await.unwrap();
    let res = app.post(&path, &app.admin_key, json!({"locale_id": de, "name": "Nochmal"})).await;
    assert_eq!(assert_problem(res, 400, "ENTITY_LOCALIZATION_EXISTS").await["entity_type"], "category");
    let res = app
        .post(&format!("/tags/{tag}/localizations"), &app.admin_key, json!({"locale_id": de, "name": "Berge"}))
        .await;
    assert_eq!(res.status(), 201);

    let german: Vec<Value> =
        app.get(&format!("/sites/{site}/categories?locale_id={de}"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(german[0]["name"], "Reisen");
    let canonical: Vec<Value> =
        app.get(&format!("/sites/{site}/categories"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(canonical[0]["name"], "Travel");
    let tags: Vec<Value> =
        app.get(&format!("/sites/{site}/tags?locale_id={de}"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(tags[0]["name"], "Berge");

    let loc_path = format!("/categories/localizations/{}", loc["id"].as_str().unwrap());
    let updated: Value =
        app.put(&loc_path, &app.admin_key, json!({"name": "Reisen & Urlaub"})).await.json().await.unwrap();
    assert_eq!(updated["name"], "Reisen & Urlaub");
    assert_problem(
        app.put(&format!("/tags/localizations/{}", loc["id"].as_str().unwrap()), &app.admin_key, json!({"name": "x"}))
            .await,
        404,
        "ENTITY_LOCALIZATION_NOT_FOUND",
    )
    .await;
    assert_eq!(app.delete(&loc_path, &app.admin_key).await.status(), 204);
    assert_problem(app.delete(&loc_path, &app.admin_key).await, 404, "ENTITY_LOCALIZATION_NOT_FOUND").await;

    let doc: Value =
        app.client.get(format!("{}/api-docs/openapi.json", app.base)).send().await.unwrap().json().await.unwrap();
    let op = &doc["paths"]["/api/v1/tags/{id}/localizations"]["post"];
    assert_eq!(op["operationId"], "create_tag_localization");
    assert!(doc["paths"]["/api/v1/sites/{site_id}/tags"]["get"].is_object());
}
