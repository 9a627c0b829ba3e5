use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn sites_start_with_production_and_staging_and_preview_on_them() {
    let app = TestApp::spawn().await;
    let res = app
        .post("/sites", &app.admin_key, json!({"name": "Env", "slug": "env", "base_url": "https://env.example.org"}))
        .await;
    let site = res.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    let envs: Vec<Value> = app.get(&format!("/sites/{site}/environments"), &app.admin_key).await.json().await.unwrap();
    let summary: Vec<(&str, bool, Option<&str>)> = envs
        .iter()
        .map(|e| (e["name"].as_str().unwrap(), e["is_default"].as_bool().unwrap(), e["base_url"].as_str()))
        .collect();
    assert_eq!(summary, [("production", true, Some("https://env.example.org")), ("staging", false, None)]);
    let staging_id = envs[1]["id"].as_str().unwrap().to_string();

    let post: Value = app
        .post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Preview me"}))
        .await
        .json()
        .await
        .unwrap();
    let page: Value = app
        .post("/pages", &app.admin_key, json!({"site_ids": [site], "title": "About", "route": "/about"}))
        .await
        .json()
        .await
        .unwrap();
    let preview: Value = app
        .get(&format!("/blogs/{}/preview", post["id"].as_str().unwrap()), &app.admin_key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (preview["environment"].as_str(), preview["url"].as_str()),
        (Some("production"), Some("https://env.example.org/blog/preview-me"))
    );

    let res = app
        .get(&format!("/pages/{}/preview?environment_id={staging_id}", page["id"].as_str().unwrap()), &app.admin_key)
        .await;
    assert_problem(res, 400, "BAD_REQUEST").await;
    let res = app
        .put(&format!("/environments/{staging_id}"), &app.admin_key, json!({"base_url": "https://staging.example.org"}))
        .await;
    assert_eq!(res.status(), 200);
    let preview: Value = app
        .get(&format!("/pages/{}/preview?environment_id={staging_id}", page["id"].as_str().unwrap()), &app.admin_key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(preview["url"], "https://staging.example.org/about");

    // Making staging the default moves the default; deleting it leaves none.
    app.put(&format!("/environments/{staging_id}"), &app.admin_key, json!({"is_default": true})).await;
    let default: Value =
        app.get(&format!("/sites/{site}/environments/default"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(default["name"], "staging");
    assert_eq!(app.delete(&format!("/environments/{staging_id}"), &app.admin_key).await.status(), 204);
    assert_problem(
        app.get(&format!("/sites/{site}/environments/default"), &app.admin_key).await,
        404,
        "ENVIRONMENT_NO_DEFAULT",
    )
    .await;
    let res = app.get(&format!("/blogs/{}/preview", post["id"].as_str().unwrap()), &app.admin_key).await;
    assert_problem(res, 400, "CONTENT_NO_DEFAULT_ENVIRONMENT").await;
}

#[actix_web::test]
async fn environments_are_managed_by_site_admins() {
    let app = TestApp::spawn().await;
    let (site, other) = (app.create_site_id("env-a").await, app.create_site_id("env-b").await);
    let writer = app.create_key("Write", Some(&site)).await;
    let body = json!({"name": "qa", "base_url": "https://qa.example.org"});
    assert_problem(
        app.post(&format!("/sites/{site}/environments"), &writer, body.clone()).await,
        403,
        "AUTH_INSUFFICIENT_ROLE",
    )
    .await;
    assert_eq!(app.post(&format!("/sites/{site}/environments"), &app.admin_key, body.clone()).await.status(), 201);
    assert_problem(app.post(&format!("/sites/{site}/environments"), &app.admin_key, body).await, 409, "CONFLICT").await;
    let res = app
        .post(&format!("/sites/{site}/environments"), &app.admin_key, json!({"name": "Bad Name", "base_url": "nope"}))
        .await;
    assert_eq!(assert_problem(res, 422, "VALIDATION_ERROR").await["errors"].as_array().unwrap().len(), 2);

    let post: Value =
        app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Mine"})).await.json().await.unwrap();
    let foreign: Vec<Value> =
        app.get(&format!("/sites/{other}/environments"), &app.admin_key).await.json().await.unwrap();
    let res = app
        .get(
            &format!(
                "/blogs/{}/preview?environment_id={}",
                post["id"].as_str().unwrap(),
                foreign[0]["id"].as_str().unwrap()
            ),
            &app.admin_key,
        )
        .await;
    assert_problem(res, 404, "ENTITY_NOT_FOUND").await;
}

/// The origin service's admin lists environments without a site: each
/// caller hears those of the sites it may see, with a name for people.
#[actix_web::test]
async fn the_global_list_holds_the_environments_of_the_callers_sites() {
    let app = TestApp::spawn().await;
    let alpha = app.create_site_id("env-alpha").await;
    let bravo = app.create_site_id("env-bravo").await;
    let everything: Vec<Value> = app.get("/environments", &app.admin_key).await.json().await.unwrap();
    let sites_of = |list: &[Value]| {
        let mut sites: Vec<String> = list.iter().map(|e| e["site_id"].as_str().unwrap().to_string()).collect();
        sites.dedup();
        sites
    };
    let mut expected = vec![alpha.clone(), bravo.clone()];
    expected.sort();
    assert_eq!(sites_of(&everything), expected, "an unscoped key sees every site's, by site");
    assert_eq!(everything.len(), 4);
    let production = everything.iter().find(|e| e["name"] == "production").unwrap();
    assert_eq!(
        (production["display_name"].as_str(), production["is_default"].as_bool()),
        (Some("Production"), Some(true))
    );

    let scoped = app.create_key("Read", Some(&alpha)).await;
    let own: Vec<Value> = app.get("/environments", &scoped).await.json().await.unwrap();
    assert_eq!(sites_of(&own).as_slice(), std::slice::from_ref(&alpha), "a site's key sees its site's only");
    // A deleted site's environments are gone from the list.
    assert_eq!(app.delete(&format!("/sites/{bravo}"), &app.admin_key).await.status(), 204);
    let after: Vec<Value> = app.get("/environments", &app.admin_key).await.json().await.unwrap();
    assert_eq!(sites_of(&after), [alpha]);
    assert_problem(app.get("/environments", "plk_not_a_key").await, 401, "AUTH_API_KEY_INVALID").await;
}
