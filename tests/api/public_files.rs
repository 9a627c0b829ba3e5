use serde_json::json;

use crate::helpers::{assert_problem, TestApp};

#[actix_web::test]
async fn the_sitemap_lists_published_pages_posts_and_legal_documents() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("mapped").await;
    // No Site URL yet: the sitemap asks for one.
    let res = app.client.get(app.url("/sites/mapped/sitemap.xml")).send().await.unwrap();
    let problem = assert_problem(res, 404, "RESOURCE_NOT_FOUND").await;
    assert!(problem["detail"].as_str().unwrap().contains("Site URL"));

    app.put(&format!("/sites/{site}"), &app.admin_key, json!({"base_url": "https://mapped.example"})).await;
    app.put(
        &format!("/sites/{site}/settings"),
        &app.admin_key,
        json!({"module_legal_enabled": true, "module_portfolio_enabled": true}),
    )
    .await;
    let locales: Vec<serde_json::Value> = app.get("/locales", &app.admin_key).await.json().await.unwrap();
    let de = locales.iter().find(|l| l["code"] == "de").unwrap()["id"].clone();
    app.post(&format!("/sites/{site}/locales"), &app.admin_key, json!({"locale_id": de})).await;

    let about: serde_json::Value = app
        .post(
            "/pages",
            &app.admin_key,
            json!({"site_ids": [site], "title": "About", "route": "/about", "status": "Published"}),
        )
        .await
        .json()
        .await
        .unwrap();
    app.post(
        &format!("/pages/{}/localizations", about["id"].as_str().unwrap()),
        &app.admin_key,
        json!({"locale_id": de, "title": "Über uns"}),
    )
    .await;
    app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Hello", "status": "Published"})).await;
    app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Draft only"})).await;
    let legal = app
        .post(
            "/legal",
            &app.admin_key,
            json!({"site_ids": [site], "title": "Privacy", "document_type": "privacy", "body": "…", "status": "Published"}),
        )
        .await;
    assert_eq!(legal.status(), 201);
    app.post(
        "/projects",
        &app.admin_key,
        json!({"site_ids": [site], "title": "Not in sitemap", "status": "Published"}),
    )
    .await;

    let res = app.client.get(app.url("/sites/mapped/sitemap.xml")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-type"].to_str().unwrap().starts_with("application/xml"));
    assert_eq!(res.headers()["cache-control"], "public, max-age=3600");
    let xml = res.text().await.unwrap();
    assert_eq!(xml.matches("<url>").count(), 3, "{xml}");
    assert!(
        xml.contains("<loc>https://mapped.example/about</loc>")
            && xml.contains("<changefreq>monthly</changefreq><priority>0.8</priority>")
    );
    assert!(
        xml.contains("<loc>https://mapped.example/blog/hello</loc>")
            && xml.contains("<changefreq>weekly</changefreq><priority>0.6</priority>")
    );
    assert!(
        xml.contains("<loc>https://mapped.example/legal/privacy</loc>")
            && xml.contains("<changefreq>yearly</changefreq><priority>0.4</priority>")
    );
    assert!(
        xml.contains(r#"<xhtml:link rel="alternate" hreflang="de" href="https://mapped.example/de/about"/>"#),
        "{xml}"
    );
    assert!(xml.contains(r#"<xhtml:link rel="alternate" hreflang="en" href="https://mapped.example/about"/>"#));
    assert_eq!(xml.matches("hreflang").count(), 2, "only the translated page has alternates");
    assert!(!xml.contains("draft-only") && !xml.contains("not-in-sitemap"));

    // A newly published post shows at once (the cached file is dropped).
    app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Fresh", "status": "Published"})).await;
    let xml = app.client.get(app.url("/sites/mapped/sitemap.xml")).send().await.unwrap().text().await.unwrap();
    assert!(xml.contains("/blog/fresh"));
    assert_problem(app.client.get(app.url("/sites/nope/sitemap.xml")).send().await.unwrap(), 404, "ENTITY_NOT_FOUND")
        .await;
}
