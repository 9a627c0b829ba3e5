use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn menus_hold_localized_item_trees_with_events_and_trash() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("nav").await;
    let other = app.create_site_id("nav-other").await;
    let mut events = app.state.events.subscribe();
    let res = app.post(&format!("/sites/{site}/menus"), &app.admin_key, json!({"name": "Main"})).await;
    assert_eq!(res.status(), 201);
    let menu: Value = res.json().await.unwrap();
    assert_eq!(menu["slug"], "main");
    assert_eq!(events.recv().await.unwrap().event, "navigation.updated");
    let res = app.post(&format!("/sites/{site}/menus"), &app.admin_key, json!({"name": "Again", "slug": "main"})).await;
    assert_eq!(assert_problem(res, 409, "ENTITY_SLUG_TAKEN").await["entity_type"], "menu");

    let items = format!("/menus/{}/items", menu["id"].as_str().unwrap());
    let home: Value = app
        .post(&items, &app.admin_key, json!({"label": "Home", "url": "/", "display_order": 1}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(events.recv().await.unwrap().event, "navigation.created");
    let page: Value =
        app.post("/pages", &app.admin_key, json!({"site_ids": [site], "title": "About"})).await.json().await.unwrap();
    let res = app
        .post(&items, &app.admin_key, json!({"label": "About", "content_id": page["id"], "labels": {"de": "Über uns"}}))
        .await;
    assert_eq!(assert_problem(res, 422, "VALIDATION_ERROR").await["errors"][0]["field"], "labels.de");
    let locales: Vec<Value> = app.get("/locales", &app.admin_key).await.json().await.unwrap();
    let de = locales.iter().find(|l| l["code"] == "de").unwrap()["id"].clone();
    app.post(&format!("/sites/{site}/locales"), &app.admin_key, json!({"locale_id": de})).await;
    let about: Value = app
        .post(
            &items,
            &app.admin_key,
            json!({"label": "About", "content_id": page["id"], "labels": {"de": "Über uns"}, "display_order": 2}),
        )
        .await
        .json()
        .await
        .unwrap();
    let team: Value = app
        .post(&items, &app.admin_key, json!({"label": "Team", "url": "/about/team", "parent_id": about["id"]}))
        .await
        .json()
        .await
        .unwrap();

    for (bad, field) in [
        (json!({"label": "Both", "url": "/x", "content_id": page["id"]}), "url"),
        (json!({"label": "Neither"}), "url"),
        (json!({"label": "Bad", "url": "javascript:alert(1)"}), "url"),
    ] {
        let problem = assert_problem(app.post(&items, &app.admin_key, bad).await, 422, "VALIDATION_ERROR").await;
        assert_eq!(problem["errors"][0]["field"], field);
    }
    let foreign: Value = app
        .post("/pages", &app.admin_key, json!({"site_ids": [other], "title": "Elsewhere"}))
        .await
        .json()
        .await
        .unwrap();
    let res = app.post(&items, &app.admin_key, json!({"label": "X", "content_id": foreign["id"]})).await;
    assert_eq!(assert_problem(res, 422, "VALIDATION_ERROR").await["errors"][0]["field"], "content_id");

    let tree: Value = app
        .get(&format!("/menus/{}?locale=de", menu["id"].as_str().unwrap()), &app.admin_key)
        .await
        .json()
        .await
        .unwrap();
    let top: Vec<&str> = tree["items"].as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert_eq!(top, ["Home", "Über uns"]);
    assert_eq!(tree["items"][1]["children"][0]["label"], "Team");
    assert_eq!(tree["items"][1]["labels"], json!({"de": "Über uns"}));

    // About cannot move under its own child.
    let res = app
        .put(
            &format!("/menu-items/{}", about["id"].as_str().unwrap()),
            &app.admin_key,
            json!({"parent_id": team["id"]}),
        )
        .await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let reader = app.create_key("Read", Some(&site)).await;
    assert_problem(app.post(&items, &reader, json!({"label": "No", "url": "/"})).await, 403, "AUTH_INSUFFICIENT_ROLE")
        .await;

    // Deleting About takes Team with it; both are in the trash; Team comes back on top.
    while events.try_recv().is_ok() {}
    assert_eq!(
        app.delete(&format!("/menu-items/{}", about["id"].as_str().unwrap()), &app.admin_key).await.status(),
        204
    );
    assert_eq!(
        [events.recv().await.unwrap().event, events.recv().await.unwrap().event],
        ["navigation.deleted", "navigation.deleted"]
    );
    let count: Value = app.get(&format!("/sites/{site}/trash/count"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(count, json!({"count": 2}));
    let res = app
        .post(
            &format!("/trash/{}/restore?entity_type=menu_item", team["id"].as_str().unwrap()),
            &app.admin_key,
            json!({}),
        )
        .await;
    assert_eq!(res.json::<Value>().await.unwrap()["parent_id"], Value::Null);
    let tree: Value =
        app.get(&format!("/menus/{}", menu["id"].as_str().unwrap()), &app.admin_key).await.json().await.unwrap();
    let top: Vec<&str> = tree["items"].as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert_eq!(top, ["Team", "Home"]);
    assert_eq!(
        app.delete(&format!("/trash/{}?entity_type=menu_item", about["id"].as_str().unwrap()), &app.admin_key)
            .await
            .status(),
        204
    );

    assert_eq!(app.delete(&format!("/menus/{}", menu["id"].as_str().unwrap()), &app.admin_key).await.status(), 204);
    assert_problem(
        app.get(&format!("/menus/{}", menu["id"].as_str().unwrap()), &app.admin_key).await,
        404,
        "ENTITY_NOT_FOUND",
    )
    .await;
    let trash: Value = app.get(&format!("/sites/{site}/trash"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(trash["items"][0]["entity_type"], "menu");
    let restored = app
        .post(&format!("/trash/{}/restore?entity_type=menu", menu["id"].as_str().unwrap()), &app.admin_key, json!({}))
        .await;
    assert_eq!(restored.status(), 200);
    assert_eq!(home["label"], "Home");
}
