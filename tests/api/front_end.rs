//! A hosted site's front end reads through the API with a Read key, which
//! sees drafts too: its published-only lookups must not show them.

use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn published_only_lookups_answer_404_for_anything_not_published() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("front").await;
    let reader = app.create_key("Read", Some(&site)).await;
    let body = |title: &str, status: &str| json!({"site_ids": [site], "title": title, "status": status});
    let live = app.create("/blogs", &app.admin_key, body("Live", "Published")).await;
    let draft = app.create("/blogs", &app.admin_key, body("Draft", "Draft")).await;
    let by_id = |item: &Value| format!("/blogs/{}", item["id"].as_str().unwrap());
    let by_slug = |item: &Value| format!("/sites/{site}/blogs/by-slug/{}", item["slug"].as_str().unwrap());

    for path in [by_id(&live), by_slug(&live)] {
        let res = app.get(&format!("{path}?status=published"), &reader).await;
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(res.json::<Value>().await.unwrap()["title"], "Live");
    }
    for path in [by_id(&draft), by_slug(&draft)] {
        let problem =
            assert_problem(app.get(&format!("{path}?status=published"), &reader).await, 404, "ENTITY_NOT_FOUND").await;
        // Worded as for nothing at all there.
        let nowhere =
            path.replace(draft["id"].as_str().unwrap(), &uuid::Uuid::new_v4().to_string()).replace("draft", "nowhere");
        let absent =
            assert_problem(app.get(&format!("{nowhere}?status=published"), &reader).await, 404, "ENTITY_NOT_FOUND")
                .await;
        assert_eq!(
            problem["detail"].as_str().map(|d| d.contains("draft") || d.contains(draft["id"].as_str().unwrap())),
            Some(true),
            "{problem}"
        );
        assert_eq!(problem["title"], absent["title"]);
        // Without it, the spec's read: any status.
        assert_eq!(app.get(&path, &reader).await.status(), 200, "{path}");
    }
    let res = app.get(&format!("{}?status=draft", by_id(&live)), &reader).await;
    assert_eq!(res.status(), 400, "only published is a front end's status");
}

/// A site speaking English (its default) and German under `/de`; answers its id.
async fn bilingual_site(app: &TestApp, slug: &str) -> String {
    let (en, de) = (app.locale_id("en").await, app.locale_id("de").await);
    let locales = json!([
        {"locale_id": en, "is_default": true},
        {"locale_id": de, "is_default": false, "url_prefix": "de"}
    ]);
    let site =
        app.create("/sites", &app.admin_key, json!({"name": "Zweisprachig", "slug": slug, "locales": locales})).await;
    site["id"].as_str().unwrap().to_string()
}

#[actix_web::test]
async fn a_german_blog_index_and_a_post_page_take_two_requests() {
    let app = TestApp::spawn().await;
    let site = bilingual_site(&app, "zweisprachig").await;
    let de = app.locale_id("de").await;
    let reader = app.create_key("Read", Some(&site)).await;

    // Ten published posts with covers (of ten heights: an upload of the same
    // bytes answers the file there is); eight in German (the first without a
    // German excerpt), two in English only. One draft, in German too.
    let mut posts = Vec::new();
    for n in 0..10 {
        let cover = crate::media::uploaded(&app, &site, &format!("cover-{n}.png"), crate::media::png(64, 40 + n)).await;
        let cover_id = cover["id"].as_str().unwrap().to_string();
        let alt = json!({"locale_id": de, "alt_text": format!("Bild {n}")});
        assert_eq!(app.post(&format!("/media/{cover_id}/metadata"), &app.admin_key, alt).await.status(), 201);
        let body = json!({"site_ids": [site], "title": format!("Post {n}"), "excerpt": format!("Excerpt {n}"),
            "body": format!("Body {n}"), "status": "Published", "cover_image_id": cover_id});
        let post = app.create("/blogs", &app.admin_key, body).await;
        if n < 8 {
            let excerpt = if n == 0 { String::new() } else { format!("Auszug {n}") };
            let german = json!({"locale_id": de, "title": format!("Beitrag {n}"), "excerpt": excerpt,
                "body": format!("Text {n}"), "meta_title": format!("Meta {n}")});
            let path = format!("/blogs/{}/localizations", post["id"].as_str().unwrap());
            assert_eq!(app.post(&path, &app.admin_key, german).await.status(), 201);
        }
        posts.push((post, cover_id));
    }
    let draft = app.create("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Entwurf"})).await;

    // Request 1: the index.
    let index: Value = app
        .get(&format!("/sites/{site}/blogs/published?locale=de&include=media&per_page=10"), &reader)
        .await
        .json()
        .await
        .unwrap();
    let items = index["data"].as_array().unwrap();
    assert_eq!(items.len(), 10, "{index}");
    for (post, cover_id) in &posts {
        let n: u32 = post["title"].as_str().unwrap().trim_start_matches("Post ").parse().unwrap();
        let item = items.iter().find(|i| i["id"] == post["id"]).unwrap();
        let (title, excerpt, locale) = match n {
            0 => ("Beitrag 0".to_string(), "Excerpt 0".to_string(), "de"),
            1..=7 => (format!("Beitrag {n}"), format!("Auszug {n}"), "de"),
            _ => (format!("Post {n}"), format!("Excerpt {n}"), "en"),
        };
        assert_eq!((item["title"].as_str(), item["excerpt"].as_str()), (Some(&*title), Some(&*excerpt)), "{item}");
        assert_eq!(item["locale"], locale, "the locale that served it: {item}");
        let media = &item["media"][cover_id.as_str()];
        assert_eq!((media["width"].as_i64(), media["height"].as_i64()), (Some(64), Some(40 + i64::from(n))), "{item}");
        assert_eq!(
            (media["mime_type"].as_str(), media["alt_text"].clone()),
            (Some("image/png"), json!(format!("Bild {n}")))
        );
        assert!(media["thumbhash"].is_string() && media["dominant_color"].is_string(), "{media}");
        let variants = media["variants"].as_array().unwrap();
        for url in variants.iter().map(|v| &v["url"]).chain([&media["url"]]) {
            let res = app.client.get(url.as_str().unwrap()).send().await.unwrap();
            assert_eq!(res.status(), 200, "{url}");
        }
    }

    // Request 2: a post page, published only, with its meta fields.
    let (first, _) = &posts[1];
    let page = format!(
        "/sites/{site}/blogs/by-slug/{}?status=published&locale=de&include=media",
        first["slug"].as_str().unwrap()
    );
    let item: Value = app.get(&page, &reader).await.json().await.unwrap();
    assert_eq!(
        (item["title"].as_str(), item["body"].as_str(), item["meta_title"].as_str(), item["locale"].as_str()),
        (Some("Beitrag 1"), Some("Text 1"), Some("Meta 1"), Some("de")),
        "{item}"
    );
    assert_eq!(item["media"].as_object().map(|m| m.len()), Some(1), "{item}");
    let drafted = format!("/sites/{site}/blogs/by-slug/{}?status=published&locale=de", draft["slug"].as_str().unwrap());
    assert_problem(app.get(&drafted, &reader).await, 404, "ENTITY_NOT_FOUND").await;

    // The same by id; and without the parameters, the spec's shape.
    let by_id: Value =
        app.get(&format!("/blogs/{}?locale=de", first["id"].as_str().unwrap()), &reader).await.json().await.unwrap();
    assert_eq!(by_id["title"], "Beitrag 1");
    let plain: Value = app.get(&format!("/sites/{site}/blogs/published"), &reader).await.json().await.unwrap();
    let plain_item = plain["data"][0].as_object().unwrap();
    assert!(!plain_item.contains_key("locale") && !plain_item.contains_key("media"), "{plain}");

    // A German edit shows at once: the cached page is dropped.
    let german = app.get(&format!("/blogs/{}/localizations", first["id"].as_str().unwrap()), &app.admin_key).await;
    let german: Value = german.json().await.unwrap();
    let german = german.as_array().unwrap().iter().find(|l| l["locale_id"] == de.as_str()).unwrap().clone();
    let edit = json!({"title": "Beitrag eins"});
    let res = app.put(&format!("/blogs/localizations/{}", german["id"].as_str().unwrap()), &app.admin_key, edit).await;
    assert_eq!(res.status(), 200);
    let index: Value =
        app.get(&format!("/sites/{site}/blogs/published?locale=de&per_page=10"), &reader).await.json().await.unwrap();
    assert!(index["data"].as_array().unwrap().iter().any(|i| i["title"] == "Beitrag eins"), "{index}");
}

#[actix_web::test]
async fn locales_are_named_by_code_and_a_wrong_one_names_the_sites_codes() {
    let app = TestApp::spawn().await;
    // A site made with its locales named by code.
    let locales = json!([{"locale_id": "en", "is_default": true}, {"locale_id": "DE", "url_prefix": "de"}]);
    let site =
        app.create("/sites", &app.admin_key, json!({"name": "Codes", "slug": "codes", "locales": locales})).await;
    let site = site["id"].as_str().unwrap().to_string();
    let unknown = json!({"name": "Nope", "slug": "nope", "locales": [{"locale_id": "xx-nope", "is_default": true}]});
    let problem = assert_problem(app.post("/sites", &app.admin_key, unknown).await, 422, "VALIDATION_ERROR").await;
    assert!(problem["detail"].as_str().is_some_and(|d| d.contains("GET /locales")), "{problem}");
    let de = app.locale_id("de").await;
    let post = app
        .create("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Hello", "status": "Published"}))
        .await;
    app.create("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Only English", "status": "Published"}))
        .await;
    // A body names a locale by code as well as by UUID; a wrong one names the site's codes.
    let localizations = format!("/blogs/{}/localizations", post["id"].as_str().unwrap());
    let french = app.post(&localizations, &app.admin_key, json!({"locale_id": "fr", "title": "Salut"})).await;
    let problem = assert_problem(french, 422, "VALIDATION_ERROR").await;
    assert!(problem["errors"][0]["message"].as_str().is_some_and(|m| m.contains("de, en")), "{problem}");
    let german = json!({"locale_id": "de", "title": "Hallo"});
    let created: Value = app.post(&localizations, &app.admin_key, german).await.json().await.unwrap();
    assert_eq!(created["locale_id"], de.as_str(), "{created}");

    // `locale_id` keeps its meaning (a filter), by code as by UUID.
    for named in ["de", "DE", de.as_str()] {
        let page: Value = app
            .get(&format!("/sites/{site}/blogs/published?locale_id={named}"), &app.admin_key)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(page["meta"]["total"], 1, "{named}: {page}");
    }
    // `locale` by UUID, as by code.
    let page: Value =
        app.get(&format!("/sites/{site}/blogs/published?locale={de}"), &app.admin_key).await.json().await.unwrap();
    assert!(page["data"].as_array().unwrap().iter().any(|i| i["title"] == "Hallo" && i["locale"] == "de"), "{page}");

    for query in ["locale=fr", "locale_id=fr", "locale=de&fallback=xx", "include=authors"] {
        let res = app.get(&format!("/sites/{site}/blogs/published?{query}"), &app.admin_key).await;
        let problem = assert_problem(res, 422, "VALIDATION_ERROR").await;
        let detail = problem.to_string();
        let names_the_fix = if query.starts_with("include") {
            detail.contains("media")
        } else {
            detail.contains("de, en") || detail.contains("en, de")
        };
        assert!(names_the_fix, "{query}: {problem}");
    }

    // The feed in German: titles, language and links under `/de`.
    let feed = app.get(&format!("/sites/{site}/feed.rss?locale=de"), &app.admin_key).await.text().await.unwrap();
    assert!(feed.contains("<title>Hallo</title>") && feed.contains("<language>de</language>"), "{feed}");
    assert!(feed.contains("/de/blog/"), "{feed}");
    assert!(feed.contains("<title>Only English</title>"), "the fallback: {feed}");
    let english = app.get(&format!("/sites/{site}/feed.rss"), &app.admin_key).await.text().await.unwrap();
    assert!(english.contains("<title>Hello</title>") && !english.contains("/de/blog/"), "{english}");
}
