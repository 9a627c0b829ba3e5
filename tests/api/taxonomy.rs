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

    // Paginated, as the spec has every list.
    let listed: Value = app.get(&format!("/sites/{site}/categories"), &reader).await.json().await.unwrap();
    assert_eq!((listed["data"].as_array().map(Vec::len), listed["meta"]["total"].as_u64()), (Some(1), Some(1)));
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

    let german: Value =
        app.get(&format!("/sites/{site}/categories?locale_id={de}"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(german["data"][0]["name"], "Reisen");
    let canonical: Value = app.get(&format!("/sites/{site}/categories"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(canonical["data"][0]["name"], "Travel");
    let tags: Value =
        app.get(&format!("/sites/{site}/tags?locale_id={de}"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(tags["data"][0]["name"], "Berge");
    // By the locale's code, the same.
    let by_code: Value =
        app.get(&format!("/sites/{site}/tags?locale_id=de"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(by_code["data"], tags["data"]);
    let res = app.get(&format!("/sites/{site}/tags?locale_id=xx"), &app.admin_key).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;

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

/// The origin service's admin manages terms with the site in the body,
/// pages through them, counts a site's blogs per category and puts one
/// category on a post or takes it off.
#[actix_web::test]
async fn the_origin_admin_manages_terms_and_an_items_categories() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("origin-terms").await;
    let other = app.create_site_id("origin-terms-other").await;

    // Created with the admin's bodies: a slug, `is_global: false`, the site.
    let body = json!({"slug": "news", "is_global": false, "site_id": site});
    let res = app.post("/categories", &app.admin_key, body).await;
    assert_eq!(res.status(), 201);
    let news: Value = res.json().await.unwrap();
    assert_eq!(
        (news["slug"].as_str(), news["name"].as_str(), news["is_global"].as_bool()),
        (Some("news"), Some("news"), Some(false))
    );
    assert_eq!(news["site_id"], site.as_str());
    let res = app.post("/tags", &app.admin_key, json!({"slug": "rust", "is_global": false, "site_id": site})).await;
    let rust: Value = res.json().await.unwrap();
    assert_eq!((rust["slug"].as_str(), rust["is_global"].as_bool()), (Some("rust"), Some(false)), "{rust}");
    let life = term(&app, &site, "categories", "Life").await;
    // What Plinth does not keep is refused, and a site is needed.
    let shared = app.post("/tags", &app.admin_key, json!({"slug": "shared", "is_global": true, "site_id": site})).await;
    assert_eq!(assert_problem(shared, 422, "VALIDATION_ERROR").await["errors"][0]["field"], "is_global");
    let child = json!({"slug": "child", "parent_id": life, "site_id": site});
    assert_eq!(
        assert_problem(app.post("/categories", &app.admin_key, child).await, 422, "VALIDATION_ERROR").await["errors"]
            [0]["field"],
        "parent_id"
    );
    let siteless = app.post("/categories", &app.admin_key, json!({"slug": "nowhere"})).await;
    assert_eq!(assert_problem(siteless, 422, "VALIDATION_ERROR").await["errors"][0]["field"], "site_id");
    // A key of another site is refused on the site named in the body.
    let outsider = app.create_key("Admin", Some(&other)).await;
    let res = app.post("/tags", &outsider, json!({"slug": "sneaky", "site_id": site})).await;
    assert_problem(res, 403, "AUTH_API_KEY_SITE_DENIED").await;

    // Pages of the list, with the admin's `page_size`.
    let page: Value =
        app.get(&format!("/sites/{site}/categories?page=2&page_size=1"), &app.admin_key).await.json().await.unwrap();
    assert_eq!((page["meta"]["total"].as_u64(), page["meta"]["per_page"].as_u64()), (Some(2), Some(1)), "{page}");
    assert_eq!(page["data"][0]["slug"], "news", "by name: Life, then news");

    // Posts put in categories one at a time, the primary one named.
    let news_id = news["id"].as_str().unwrap();
    let mut posts = Vec::new();
    for title in ["One", "Two", "Three"] {
        let res = app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": title})).await;
        posts.push(res.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string());
    }
    for post in &posts {
        let res = app
            .post(
                &format!("/content/{post}/categories"),
                &app.admin_key,
                json!({"category_id": news_id, "is_primary": true}),
            )
            .await;
        assert_eq!(res.status(), 204);
    }
    let res =
        app.post(&format!("/content/{}/categories", posts[0]), &app.admin_key, json!({"category_id": life})).await;
    assert_eq!(res.status(), 204);
    let first: Value = app.get(&format!("/blogs/{}", posts[0]), &app.admin_key).await.json().await.unwrap();
    assert_eq!(first["category_ids"].as_array().map(Vec::len), Some(2), "{first}");
    assert_eq!(first["primary_category_id"], news_id);
    // A category of another site is refused by the content write's own check.
    let foreign = term(&app, &other, "categories", "Elsewhere").await;
    let res =
        app.post(&format!("/content/{}/categories", posts[0]), &app.admin_key, json!({"category_id": foreign})).await;
    assert!(res.status().is_client_error(), "a category of another site: {}", res.status());

    // Counted per category over the site's live blogs; the trash does not count.
    assert_eq!(app.delete(&format!("/blogs/{}", posts[2]), &app.admin_key).await.status(), 204);
    let counts: Vec<Value> =
        app.get(&format!("/sites/{site}/categories/blog-counts"), &app.admin_key).await.json().await.unwrap();
    let count_of = |slug: &str| counts.iter().find(|c| c["slug"] == slug).map(|c| c["blog_count"].clone());
    assert_eq!((count_of("life"), count_of("news")), (Some(json!(1)), Some(json!(2))), "{counts:?}");

    // Taken off: the primary one goes with it.
    let res = app.delete(&format!("/content/{}/categories/{news_id}", posts[0]), &app.admin_key).await;
    assert_eq!(res.status(), 204);
    let first: Value = app.get(&format!("/blogs/{}", posts[0]), &app.admin_key).await.json().await.unwrap();
    assert_eq!((first["category_ids"].clone(), first["primary_category_id"].clone()), (json!([life]), Value::Null));
    let counts: Vec<Value> =
        app.get(&format!("/sites/{site}/categories/blog-counts"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(counts.iter().find(|c| c["slug"] == "news").map(|c| c["blog_count"].clone()), Some(json!(1)));
    // A reader may count but not change an item's categories.
    let reader = app.create_key("Read", Some(&site)).await;
    assert_eq!(app.get(&format!("/sites/{site}/categories/blog-counts"), &reader).await.status(), 200);
    let res = app.post(&format!("/content/{}/categories", posts[1]), &reader, json!({"category_id": life})).await;
    assert_problem(res, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let missing = uuid::Uuid::new_v4();
    assert_problem(
        app.post(&format!("/content/{missing}/categories"), &app.admin_key, json!({"category_id": life})).await,
        404,
        "ENTITY_NOT_FOUND",
    )
    .await;
}
