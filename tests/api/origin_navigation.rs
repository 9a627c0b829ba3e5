//! Navigation as the origin service's admin drives it: menus with a depth,
//! description, state and names per locale; items with icon, new-tab flag and
//! labels by locale id; flat lists, trees, reordering, and a site's `primary`
//! menu.

use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

#[actix_web::test]
async fn the_origin_admin_builds_menus_and_trees_at_its_paths() {
    let app = TestApp::spawn().await;
    let key = &app.admin_key;
    let site = app.create_site_id("origin-nav").await;
    let de = app.locale_id("de").await;
    app.post(&format!("/sites/{site}/locales"), key, json!({"locale_id": de})).await;

    // CreateNavigationMenuRequest: slug, description, max_depth, localizations.
    let menu = app
        .create(
            &format!("/sites/{site}/menus"),
            key,
            json!({"slug": "primary", "description": "Top bar", "max_depth": 2,
                "localizations": [{"locale_id": de, "name": "Hauptmenü"}]}),
        )
        .await;
    assert_eq!((menu["name"].as_str(), menu["max_depth"].as_i64()), (Some("Hauptmenü"), Some(2)));
    assert_eq!((menu["is_active"].as_bool(), menu["item_count"].as_u64()), (Some(true), Some(0)));
    assert_eq!(menu["localizations"][0]["locale_id"], de);
    let localization_id: uuid::Uuid = menu["localizations"][0]["id"].as_str().unwrap().parse().unwrap();
    assert_eq!(localization_id.get_version_num(), 8, "a valid UUID (RFC 9562, custom), not the XOR of two");
    assert_eq!(localization_id.get_variant(), uuid::Variant::RFC4122);
    assert_eq!(menu["description"], "Top bar");
    let menu_id = id(&menu);
    let res = app.post(&format!("/sites/{site}/menus"), key, json!({"slug": "deep", "max_depth": 11})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;

    // CreateNavigationItemRequest, through the menu and through the site.
    let page = app.create("/pages", key, json!({"site_ids": [site], "title": "About", "slug": "about"})).await;
    let items_path = format!("/menus/{menu_id}/items");
    let home = app
        .create(
            &items_path,
            key,
            json!({"external_url": "https://example.org", "icon": "home", "display_order": 1, "open_in_new_tab": true,
                "site_id": site, "menu_id": menu_id, "localizations": [{"locale_id": de, "title": "Start"}]}),
        )
        .await;
    assert_eq!((home["title"].as_str(), home["icon"].as_str()), (Some("Start"), Some("home")));
    assert_eq!(
        (home["menu_id"].as_str(), home["external_url"].as_str()),
        (Some(menu_id.as_str()), Some("https://example.org"))
    );
    assert_eq!(home["open_in_new_tab"], true);
    let about = app
        .create(
            &format!("/sites/{site}/navigation"),
            key,
            json!({"page_id": page["id"], "display_order": 2, "open_in_new_tab": false, "site_id": site,
                "localizations": [{"locale_id": de, "title": "Über uns"}]}),
        )
        .await;
    assert_eq!((&about["page_id"], about["menu_id"].as_str()), (&page["id"], Some(menu_id.as_str())));
    let team = app
        .create(
            &items_path,
            key,
            json!({"external_url": "/about/team", "parent_id": about["id"], "display_order": 0,
            "open_in_new_tab": false, "localizations": [{"locale_id": de, "title": "Team"}]}),
        )
        .await;
    assert!(team["external_url"].is_null(), "a path on the site is no external URL");
    // Two levels at most: nothing under the team.
    let res = app.post(&items_path, key, json!({"url": "/x", "label": "Deeper", "parent_id": team["id"]})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let res = app.post(&items_path, key, json!({"url": "/x", "label": "Elsewhere", "menu_id": site})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;

    let flat: Vec<Value> = app.get(&items_path, key).await.json().await.unwrap();
    assert_eq!(flat.iter().map(id).collect::<Vec<_>>(), [id(&team), id(&home), id(&about)]);
    let on_site: Vec<Value> = app.get(&format!("/sites/{site}/navigation"), key).await.json().await.unwrap();
    assert_eq!(on_site.len(), 3);
    let tree: Vec<Value> = app.get(&format!("/menus/{menu_id}/tree?locale=de"), key).await.json().await.unwrap();
    assert_eq!(tree.iter().map(|n| n["title"].as_str().unwrap()).collect::<Vec<_>>(), ["Start", "Über uns"]);
    assert_eq!(
        (tree[1]["page_slug"].as_str(), tree[1]["children"][0]["title"].as_str()),
        (Some("about"), Some("Team"))
    );
    let menus: Vec<Value> = app.get(&format!("/sites/{site}/menus"), key).await.json().await.unwrap();
    assert_eq!(menus[0]["item_count"], 3);

    // A lower limit must still hold the items: two levels now.
    let menu_path = format!("/menus/{menu_id}");
    assert_problem(app.put(&menu_path, key, json!({"max_depth": 1})).await, 422, "VALIDATION_ERROR").await;

    // Reorder the tree: the team to the top, first; a cycle or a third level is refused whole.
    let reorder = format!("/menus/{menu_id}/items/reorder");
    let cycle = json!({"items": [{"id": about["id"], "parent_id": team["id"], "display_order": 0}]});
    assert_problem(app.post(&reorder, key, cycle).await, 422, "VALIDATION_ERROR").await;
    let moved = json!({"items": [{"id": team["id"], "display_order": 0}, {"id": home["id"], "display_order": 5}]});
    assert_eq!(app.post(&reorder, key, moved).await.status(), 204);
    let tree: Vec<Value> = app.get(&format!("/menus/{menu_id}/tree"), key).await.json().await.unwrap();
    assert_eq!(tree.iter().map(id).collect::<Vec<_>>(), [id(&team), id(&about), id(&home)]);
    let other = app.create_site_id("origin-nav-other").await;
    let elsewhere = app.create(&format!("/sites/{other}/menus"), key, json!({"slug": "primary"})).await;
    let stranger =
        app.create(&format!("/menus/{}/items", id(&elsewhere)), key, json!({"url": "/", "label": "Home"})).await;
    let foreign = json!({"items": [{"id": stranger["id"], "display_order": 1}]});
    assert_problem(app.post(&reorder, key, foreign.clone()).await, 404, "ENTITY_NOT_FOUND").await;
    let site_reorder = format!("/sites/{site}/navigation/reorder");
    assert_problem(app.post(&site_reorder, key, foreign).await, 404, "ENTITY_NOT_FOUND").await;
    // In place: a nested item keeps its parent.
    let history = app
        .create(&items_path, key, json!({"url": "/about/history", "label": "History", "parent_id": about["id"]}))
        .await;
    let in_place =
        json!({"items": [{"id": home["id"], "display_order": -1}, {"id": history["id"], "display_order": 7}]});
    assert_eq!(app.post(&site_reorder, key, in_place).await.status(), 204);
    let flat: Vec<Value> = app.get(&items_path, key).await.json().await.unwrap();
    assert_eq!(id(&flat[0]), id(&home));
    let history = flat.iter().find(|i| i["id"] == history["id"]).unwrap();
    assert_eq!((&history["parent_id"], history["display_order"].as_i64()), (&about["id"], Some(7)));

    // An item at /navigation/{id}, its labels by locale id.
    let one = format!("/navigation/{}", id(&home));
    let changed: Value =
        app.put(&one, key, json!({"icon": null, "open_in_new_tab": false})).await.json().await.unwrap();
    assert_eq!((changed["icon"].is_null(), changed["open_in_new_tab"].as_bool()), (true, Some(false)));
    let labels: Vec<Value> = app.get(&format!("{one}/localizations"), key).await.json().await.unwrap();
    assert_eq!((labels.len(), labels[0]["title"].as_str()), (1, Some("Start")));
    assert_eq!(labels[0]["navigation_item_id"], home["id"]);
    let put: Vec<Value> = app
        .put(&format!("{one}/localizations"), key, json!([{"locale_id": de, "title": "Anfang"}]))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!((put[0]["title"].as_str(), put[0]["id"].clone()), (Some("Anfang"), labels[0]["id"].clone()));
    // By code, the same locale; a code the site lacks is refused naming the ones it has.
    let by_code = json!([{"locale_id": "de", "title": "Start!"}]);
    let put: Vec<Value> = app.put(&format!("{one}/localizations"), key, by_code).await.json().await.unwrap();
    assert_eq!((put[0]["title"].as_str(), put[0]["id"].clone()), (Some("Start!"), labels[0]["id"].clone()));
    let res = app.put(&format!("{one}/localizations"), key, json!([{"locale_id": "pt-BR", "title": "Início"}])).await;
    let problem = assert_problem(res, 422, "VALIDATION_ERROR").await;
    assert!(problem["errors"][0]["message"].as_str().is_some_and(|m| m.contains("de")), "{problem}");
    // More entries than the site has locales: refused whole.
    let many: Vec<Value> = (0..3).map(|_| json!({"locale_id": de, "title": "Zu viel"})).collect();
    assert_problem(app.put(&format!("{one}/localizations"), key, json!(many)).await, 422, "VALIDATION_ERROR").await;
    let unknown = uuid::Uuid::new_v4();
    let res = app.put(&format!("{one}/localizations"), key, json!([{"locale_id": unknown, "title": "Début"}])).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;

    // The menu: still two levels deep (the history under about); names replaced.
    assert_problem(app.put(&menu_path, key, json!({"max_depth": 1})).await, 422, "VALIDATION_ERROR").await;
    assert_eq!(app.put(&menu_path, key, json!({"max_depth": 2})).await.status(), 200);
    let updated: Value = app
        .put(&menu_path, key, json!({"is_active": false, "description": null, "localizations": []}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!((updated["is_active"].as_bool(), updated["description"].is_null()), (Some(false), true));
    assert_eq!(updated["localizations"], json!([]));

    let reader = app.create_key("Read", Some(&site)).await;
    assert_eq!(app.get(&format!("{one}/localizations"), &reader).await.status(), 200);
    assert_problem(app.delete(&one, &reader).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
    assert_eq!(app.delete(&one, key).await.status(), 204);
    assert_problem(app.get(&one, key).await, 404, "ENTITY_NOT_FOUND").await;
}
