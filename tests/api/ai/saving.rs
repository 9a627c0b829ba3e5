//! Saving results: a translation becomes the item's localization through the
//! content engine; alt text becomes the file's metadata; tags join the file's.

use serde_json::{json, Value};

use super::{act, ready_site, start};
use crate::helpers::assert_problem;

async fn created(res: reqwest::Response) -> Value {
    assert_eq!(res.status(), 201);
    res.json().await.unwrap()
}

#[actix_web::test]
async fn a_saved_translation_is_the_items_localization() {
    let (provider, app) = start().await;
    let site = ready_site(&app, &provider, "travel").await;
    let key = app.create_key("Write", Some(&site)).await;
    let blog = created(
        app.post(
            "/blogs",
            &key,
            json!({"site_ids": [site], "title": "Sailing the Baltic", "excerpt": "Wind and waves", "body": "# Day one\nWe left Kiel."}),
        )
        .await,
    )
    .await;
    let id = blog["id"].as_str().unwrap();
    let translate = json!({"content_id": id, "target_locale": "de", "save": true});

    // The locale must be one of the item's sites' before the provider is asked.
    let res = act(&app, &site, "translate", &key, translate.clone()).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    assert!(provider.requests().is_empty());
    let de = app.locale_id("de").await;
    let res = app.post(&format!("/sites/{site}/locales"), &app.admin_key, json!({"locale_id": de})).await;
    assert_eq!(res.status(), 201);

    let mut events = app.state.events.subscribe();
    let res = act(&app, &site, "translate", &key, translate.clone()).await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(
        body["translations"],
        json!({"title": "[de] Sailing the Baltic", "excerpt": "[de] Wind and waves", "body": "[de] # Day one\nWe left Kiel."})
    );
    let saved = body["saved_localization_id"].as_str().unwrap().to_string();
    let sent: Value = serde_json::from_str(provider.last().user().as_str().unwrap()).unwrap();
    assert_eq!(
        sent,
        json!({"title": "Sailing the Baltic", "excerpt": "Wind and waves", "body": "# Day one\nWe left Kiel."})
    );
    let event = events.recv().await.unwrap();
    assert_eq!(event.event, "blog.updated");

    let list: Vec<Value> = app.get(&format!("/blogs/{id}/localizations"), &key).await.json().await.unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!((list[0]["id"].as_str(), list[0]["locale_id"].as_str()), (Some(saved.as_str()), Some(de.as_str())));
    assert_eq!(list[0]["title"], "[de] Sailing the Baltic");

    // Saving again updates that localization; fields not sent stay.
    let res = act(
        &app,
        &site,
        "translate",
        &key,
        json!({"content_id": id, "target_locale": "de", "fields": ["excerpt"], "save": true}),
    )
    .await;
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["saved_localization_id"].as_str(), Some(saved.as_str()));
    assert_eq!(body["translations"], json!({"excerpt": "[de] Wind and waves"}));
    let list: Vec<Value> = app.get(&format!("/blogs/{id}/localizations"), &key).await.json().await.unwrap();
    assert_eq!((list.len(), list[0]["title"].as_str()), (1, Some("[de] Sailing the Baltic")));

    // A source locale the item has a localization in is translated from it.
    let res = act(
        &app,
        &site,
        "translate",
        &key,
        json!({"content_id": id, "source_locale": "de", "target_locale": "en", "fields": ["title"]}),
    )
    .await;
    assert_eq!(res.status(), 200);
    let sent: Value = serde_json::from_str(provider.last().user().as_str().unwrap()).unwrap();
    assert_eq!(sent, json!({"title": "[de] Sailing the Baltic"}));

    // Without save nothing is stored; an item of another site is not found.
    let res =
        act(&app, &site, "translate", &key, json!({"content_id": id, "target_locale": "en", "fields": ["title"]}))
            .await;
    assert_eq!(res.json::<Value>().await.unwrap()["translations"], json!({"title": "[de] Sailing the Baltic"}));
    let other = app.create_site_id("elsewhere").await;
    let theirs =
        created(app.post("/blogs", &app.admin_key, json!({"site_ids": [other], "title": "Theirs"})).await).await;
    let res = act(&app, &site, "translate", &key, json!({"content_id": theirs["id"], "target_locale": "de"})).await;
    assert_problem(res, 404, "ENTITY_NOT_FOUND").await;
    // A new localization needs its title.
    let fresh =
        created(app.post("/blogs", &key, json!({"site_ids": [site], "title": "Fresh", "excerpt": "Short"})).await)
            .await;
    let res = act(
        &app,
        &site,
        "translate",
        &key,
        json!({"content_id": fresh["id"], "target_locale": "de", "fields": ["excerpt"], "save": true}),
    )
    .await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    provider.stop().await;
}

#[actix_web::test]
async fn alt_text_and_tags_are_saved_on_a_media_file_of_the_site() {
    let (provider, app) = start().await;
    let site = ready_site(&app, &provider, "gallery").await;
    let key = app.create_key("Write", Some(&site)).await;
    let url = "https://cdn.example.org/cat.jpg";
    let media = created(
        app.post(
            "/media",
            &key,
            json!({"filename": "cat.jpg", "public_url": url, "site_ids": [site], "tags": ["pets"]}),
        )
        .await,
    )
    .await;
    let media_id = media["id"].as_str().unwrap();

    // Stored in the site's default locale unless one is named.
    let res = act(&app, &site, "alt_text", &key, json!({"media_id": media_id, "save": true})).await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["alt_text"], "A black cat asleep on a red sofa");
    assert_eq!(provider.last().user()[1]["image_url"]["url"], url);
    let metadata: Vec<Value> = app.get(&format!("/media/{media_id}/metadata"), &key).await.json().await.unwrap();
    assert_eq!(metadata.len(), 1);
    assert_eq!(metadata[0]["id"], body["saved_metadata_id"]);
    assert_eq!(
        (metadata[0]["alt_text"].as_str(), metadata[0]["locale_id"].as_str()),
        (Some("A black cat asleep on a red sofa"), Some(app.locale_id("en").await.as_str()))
    );
    // Again: the same record is updated; another locale gets its own.
    let res = act(&app, &site, "alt_text", &key, json!({"media_id": media_id, "save": true, "locale": "en"})).await;
    assert_eq!(res.json::<Value>().await.unwrap()["saved_metadata_id"], metadata[0]["id"]);
    let res = act(&app, &site, "alt_text", &key, json!({"media_id": media_id, "save": true, "locale": "de"})).await;
    assert_ne!(res.json::<Value>().await.unwrap()["saved_metadata_id"], metadata[0]["id"]);
    assert!(provider.last().system().contains("(de)"));

    let res = act(&app, &site, "auto_tag", &key, json!({"media_id": media_id, "save": true})).await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["tags"], json!(["cat", "sofa", "black cat"]));
    assert_eq!(body["saved_tags"], json!(["pets", "cat", "sofa", "black cat"]));
    let shown: Value = app.get(&format!("/media/{media_id}"), &key).await.json().await.unwrap();
    assert_eq!(shown["tags"], json!(["pets", "cat", "sofa", "black cat"]));

    // A file of another site, or not an image, is refused before the provider is asked.
    let calls = provider.requests().len();
    let other = app.create_site_id("other-gallery").await;
    let theirs = created(
        app.post(
            "/media",
            &app.admin_key,
            json!({"filename": "dog.jpg", "public_url": "https://cdn.example.org/dog.jpg", "site_ids": [other]}),
        )
        .await,
    )
    .await;
    let res = act(&app, &site, "auto_tag", &key, json!({"media_id": theirs["id"]})).await;
    assert_problem(res, 404, "ENTITY_NOT_FOUND").await;
    let video = created(
        app.post(
            "/media",
            &key,
            json!({"filename": "talk.mp4", "public_url": "https://cdn.example.org/talk.mp4", "site_ids": [site]}),
        )
        .await,
    )
    .await;
    let res = act(&app, &site, "alt_text", &key, json!({"media_id": video["id"]})).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
    assert_eq!(provider.requests().len(), calls);
    provider.stop().await;
}
