use serde_json::{json, Value};

use super::{jpeg, upload, uploaded};
use crate::helpers::{assert_problem, TestApp};

async fn json_of(res: reqwest::Response, status: u16) -> Value {
    assert_eq!(res.status(), status);
    res.json().await.unwrap()
}

#[actix_web::test]
async fn records_are_listed_searched_tagged_and_described() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("library").await;
    let key = app.admin_key.clone();
    let photo = uploaded(&app, &site, "sunset.jpg", jpeg(64, 48)).await;
    let external = json_of(
        app.post(
            "/media",
            &key,
            json!({"filename": "talk.mp4", "public_url": "https://cdn.example.org/talk.mp4", "file_size": 1000, "site_ids": [site]}),
        )
        .await,
        201,
    )
    .await;
    assert_eq!(
        (external["mime_type"].as_str(), external["storage_provider"].as_str()),
        (Some("video/mp4"), Some("external"))
    );
    assert_eq!(external["public_url"], "https://cdn.example.org/talk.mp4");
    uploaded(&app, &site, "notes.md", b"# Notes\n".to_vec()).await;

    let list = json_of(app.get(&format!("/sites/{site}/media"), &key).await, 200).await;
    assert_eq!(list["meta"]["total"], 3);
    let images = json_of(app.get(&format!("/sites/{site}/media?mime_category=image"), &key).await, 200).await;
    assert_eq!(images["data"].as_array().unwrap().len(), 1);
    let documents = json_of(app.get(&format!("/sites/{site}/media?mime_category=document"), &key).await, 200).await;
    assert_eq!(documents["data"][0]["mime_type"], "text/markdown");
    assert_problem(
        app.get(&format!("/sites/{site}/media?mime_category=spreadsheet"), &key).await,
        422,
        "VALIDATION_ERROR",
    )
    .await;

    // Metadata per locale; the spec lets readers keep it.
    let locale: Value = json_of(app.get("/locales", &key).await, 200).await;
    let locale_id = locale.as_array().unwrap()[0]["id"].as_str().unwrap().to_string();
    let reader = app.create_key("Read", Some(&site)).await;
    let photo_id = photo["id"].as_str().unwrap();
    let meta = json_of(
        app.post(
            &format!("/media/{photo_id}/metadata"),
            &reader,
            json!({"locale_id": locale_id, "alt_text": "Red Sky over the bay"}),
        )
        .await,
        201,
    )
    .await;
    assert_problem(
        // By its code, the same locale: one record per file and locale.
        app.post(
            &format!("/media/{photo_id}/metadata"),
            &key,
            json!({"locale_id": locale.as_array().unwrap()[0]["code"]}),
        )
        .await,
        409,
        "CONFLICT",
    )
    .await;
    let too_long = "x".repeat(501);
    assert_problem(
        app.put(&format!("/media/metadata/{}", meta["id"].as_str().unwrap()), &key, json!({"alt_text": too_long}))
            .await,
        422,
        "VALIDATION_ERROR",
    )
    .await;
    let found = json_of(app.get(&format!("/sites/{site}/media?search=red%20sky"), &key).await, 200).await;
    assert_eq!(
        found["data"].as_array().unwrap().iter().map(|m| m["id"].clone()).collect::<Vec<_>>(),
        [photo["id"].clone()]
    );
    let by_name = json_of(app.get(&format!("/sites/{site}/media?search=TALK"), &key).await, 200).await;
    assert_eq!(by_name["meta"]["total"], 1);
    let metas = json_of(app.get(&format!("/media/{photo_id}/metadata"), &key).await, 200).await;
    assert_eq!(metas.as_array().unwrap().len(), 1);
    assert_eq!(app.delete(&format!("/media/metadata/{}", meta["id"].as_str().unwrap()), &reader).await.status(), 204);

    // Tags, focal point.
    let tagged = json_of(
        app.put(
            &format!("/media/{photo_id}"),
            &key,
            json!({"tags": ["Sunset", "sea side", "sunset"], "filename": "Sunset"}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(tagged["tags"], json!(["Sunset", "sea side"]));
    assert_problem(
        app.put(&format!("/media/{photo_id}"), &key, json!({"tags": ["no/slash"]})).await,
        400,
        "MEDIA_TAG_INVALID",
    )
    .await;
    let many: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
    assert_problem(
        app.put(&format!("/media/{photo_id}"), &key, json!({"tags": many})).await,
        400,
        "MEDIA_TOO_MANY_TAGS",
    )
    .await;
    let thumb_before = photo["variants"][0]["public_url"].clone();
    let moved =
        json_of(app.put(&format!("/media/{photo_id}"), &key, json!({"focal_x": 0.1, "focal_y": 0.9})).await, 200).await;
    assert_eq!((moved["focal_x"].as_f64(), moved["focal_y"].as_f64()), (Some(0.1), Some(0.9)));
    assert_ne!(moved["variants"][0]["public_url"], thumb_before, "a new crop has a new URL");
    assert_eq!(
        app.client.get(moved["variants"][0]["public_url"].as_str().unwrap()).send().await.unwrap().status(),
        200
    );
    assert_problem(app.put(&format!("/media/{photo_id}"), &key, json!({"focal_x": 2})).await, 422, "VALIDATION_ERROR")
        .await;
    assert_problem(
        app.put(&format!("/media/{photo_id}"), &reader, json!({"filename": "x"})).await,
        403,
        "AUTH_INSUFFICIENT_ROLE",
    )
    .await;
}

#[actix_web::test]
async fn folders_nest_without_cycles_and_deleting_one_keeps_its_files() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("folders").await;
    let key = app.admin_key.clone();
    let path = format!("/sites/{site}/media-folders");
    let root = json_of(app.post(&path, &key, json!({"name": "Photos", "display_order": 2})).await, 201).await;
    let child =
        json_of(app.post(&path, &key, json!({"name": "2026", "parent_id": root["id"], "display_order": 1})).await, 201)
            .await;
    let folders = json_of(app.get(&path, &key).await, 200).await;
    assert_eq!(
        folders.as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect::<Vec<_>>(),
        ["2026", "Photos"]
    );
    let res = app
        .put(&format!("/media-folders/{}", root["id"].as_str().unwrap()), &key, json!({"parent_id": child["id"]}))
        .await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    let other_site = app.create_site_id("folders-other").await;
    let res = app
        .post(&format!("/sites/{other_site}/media-folders"), &key, json!({"name": "x", "parent_id": root["id"]}))
        .await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;

    let form = reqwest::multipart::Form::new()
        .text("site_ids", format!("[\"{site}\"]"))
        .text("folder_id", child["id"].as_str().unwrap().to_string())
        .part("file", reqwest::multipart::Part::bytes(jpeg(10, 10)).file_name("in-folder.jpg"));
    let res = app.client.post(app.url("/media/upload")).header("X-API-Key", &key).multipart(form).send().await.unwrap();
    let file = json_of(res, 201).await;
    assert_eq!(file["folder_id"], child["id"]);
    let in_folder =
        json_of(app.get(&format!("/sites/{site}/media?folder_id={}", child["id"].as_str().unwrap()), &key).await, 200)
            .await;
    assert_eq!(in_folder["meta"]["total"], 1);
    assert_eq!(app.delete(&format!("/media-folders/{}", child["id"].as_str().unwrap()), &key).await.status(), 204);
    let kept = json_of(app.get(&format!("/media/{}", file["id"].as_str().unwrap()), &key).await, 200).await;
    assert_eq!(kept["folder_id"], Value::Null);
}

#[actix_web::test]
async fn referenced_media_is_deleted_only_with_force_then_restored_and_purged() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("usage").await;
    let key = app.admin_key.clone();
    let mut events = app.state.events.subscribe();
    let file = uploaded(&app, &site, "cover.jpg", jpeg(40, 40)).await;
    let id = file["id"].as_str().unwrap();
    let post = json_of(
        app.post("/blogs", &key, json!({"site_ids": [site], "title": "Post", "cover_image_id": id})).await,
        201,
    )
    .await;
    let page = json!({"site_ids": [site], "title": "About", "route": "/about", "sections": [{"section_type": "hero", "cover_image_id": id}]});
    assert_eq!(app.post("/pages", &key, page).await.status(), 201);
    app.put(&format!("/sites/{site}"), &key, json!({"logo_url": file["public_url"]})).await;
    let usage = json_of(app.get(&format!("/media/{id}/usage"), &key).await, 200).await;
    assert_eq!(usage["usage_count"], 3, "{usage}");
    assert_eq!(
        usage["references"][0],
        json!({"content_type": "blog", "content_id": post["id"], "title": "Post", "usage": "cover_image"})
    );
    assert_eq!(
        (usage["references"][1]["content_type"].as_str(), usage["references"][1]["usage"].as_str()),
        (Some("page"), Some("section_cover"))
    );
    assert_eq!(usage["references"][2]["usage"], "logo");

    let refused = assert_problem(app.delete(&format!("/media/{id}"), &key).await, 409, "CONFLICT").await;
    assert_eq!(refused["usage_count"], 3);
    assert_eq!(app.delete(&format!("/media/{id}?force=true"), &key).await.status(), 204);
    assert_problem(app.get(&format!("/media/{id}"), &key).await, 404, "ENTITY_NOT_FOUND").await;
    let mut seen = Vec::new();
    while let Ok(event) = events.try_recv() {
        if event.event.subject == plinth::events::Subject::Media {
            assert_eq!((event.site_id.to_string(), event.data["id"].as_str()), (site.clone(), Some(id)));
            seen.push(event.event.to_string());
        }
    }
    assert_eq!(seen, ["media.created", "media.deleted"]);
    let trash = json_of(app.get(&format!("/sites/{site}/trash"), &key).await, 200).await;
    assert!(trash["items"].as_array().unwrap().iter().any(|i| i["entity_type"] == "media" && i["id"] == file["id"]));
    let restored =
        json_of(app.post(&format!("/trash/{id}/restore?entity_type=media"), &key, json!({})).await, 200).await;
    assert_eq!(restored["is_deleted"], false);
    app.delete(&format!("/media/{id}?force=true"), &key).await;
    let url = file["public_url"].as_str().unwrap();
    assert_eq!(app.client.get(url).send().await.unwrap().status(), 200);
    assert_eq!(app.delete(&format!("/trash/{id}?entity_type=media"), &key).await.status(), 204);
    assert_eq!(app.client.get(url).send().await.unwrap().status(), 404, "purged bytes are gone");
}

#[actix_web::test]
async fn another_sites_callers_neither_see_nor_touch_a_sites_media() {
    let app = TestApp::spawn().await;
    let mine = app.create_site_id("iso-mine").await;
    let theirs = app.create_site_id("iso-theirs").await;
    let file = uploaded(&app, &mine, "private.jpg", jpeg(20, 20)).await;
    let id = file["id"].as_str().unwrap();
    let foreign = app.create_key("Admin", Some(&theirs)).await;
    let locale: Value = app.get("/locales", &app.admin_key).await.json().await.unwrap();
    let locale_id = locale[0]["id"].clone();
    for res in [
        app.get(&format!("/media/{id}"), &foreign).await,
        app.get(&format!("/media/{id}/usage"), &foreign).await,
        app.get(&format!("/media/{id}/metadata"), &foreign).await,
        app.post(&format!("/media/{id}/metadata"), &foreign, json!({"locale_id": locale_id})).await,
        app.put(&format!("/media/{id}"), &foreign, json!({"filename": "mine now"})).await,
        app.delete(&format!("/media/{id}?force=true"), &foreign).await,
        app.get(&format!("/sites/{mine}/media"), &foreign).await,
        app.get(&format!("/sites/{mine}/media-folders"), &foreign).await,
        app.post(&format!("/sites/{mine}/media-folders"), &foreign, json!({"name": "x"})).await,
        app.post(&format!("/trash/{id}/restore?entity_type=media"), &foreign, json!({})).await,
        upload(&app, &foreign, &[&mine], "x.jpg", jpeg(5, 5)).await,
    ] {
        assert_eq!(res.status(), 403, "{}", res.url());
    }
    let their_list: Value = app.get(&format!("/sites/{theirs}/media"), &foreign).await.json().await.unwrap();
    assert_eq!(their_list["meta"]["total"], 0);
    // The same bytes uploaded by the other site make its own record.
    let res = upload(&app, &foreign, &[&theirs], "copy.jpg", jpeg(20, 20)).await;
    let copy: Value = json_of(res, 201).await;
    assert_ne!(copy["id"], file["id"]);
    assert_eq!(copy["site_ids"], json!([theirs]));
}
