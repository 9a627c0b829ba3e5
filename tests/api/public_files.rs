use image::ImageEncoder;
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

/// Past the URLs one file may hold (50,000; two here), `sitemap.xml` is an
/// index of child files, each a slice of one kind, newest first.
#[actix_web::test]
async fn a_big_sitemap_becomes_an_index_of_child_files() {
    let app = TestApp::spawn_with(|c| c.sites.sitemap_urls_per_file = 2).await;
    let site = app.create_site_id("big-map").await;
    app.put(&format!("/sites/{site}"), &app.admin_key, json!({"base_url": "https://big.example/"})).await;
    for n in 1..=3 {
        let page =
            json!({"site_ids": [site], "title": format!("Page {n}"), "route": format!("/p{n}"), "status": "Published"});
        assert_eq!(app.post("/pages", &app.admin_key, page).await.status(), 201);
        let post = json!({"site_ids": [site], "title": format!("Post {n}"), "status": "Published"});
        assert_eq!(app.post("/blogs", &app.admin_key, post).await.status(), 201);
    }
    let get = |path: &str| app.client.get(app.url(&format!("/sites/big-map/{path}"))).send();
    let index = get("sitemap.xml").await.unwrap().text().await.unwrap();
    assert!(index.contains("<sitemapindex"), "{index}");
    let children: Vec<String> = (1..=4).map(|n| format!("<loc>https://big.example/sitemap-{n}.xml</loc>")).collect();
    assert!(children.iter().all(|c| index.contains(c.as_str())) && !index.contains("sitemap-5.xml"), "{index}");

    // Pages first (two files: 2 + 1), then posts, newest first.
    let first = get("sitemap-1.xml").await.unwrap().text().await.unwrap();
    assert!(first.contains("<urlset") && first.contains("/p3</loc>") && first.contains("/p2</loc>"), "{first}");
    assert!(!first.contains("/p1</loc>"));
    let posts = get("sitemap-4.xml").await.unwrap().text().await.unwrap();
    assert!(posts.contains("/blog/post-1</loc>") && !posts.contains("/blog/post-2<"), "{posts}");
    assert_problem(get("sitemap-5.xml").await.unwrap(), 404, "ENTITY_NOT_FOUND").await;
    assert_problem(get("sitemap-0.xml").await.unwrap(), 404, "ENTITY_NOT_FOUND").await;
    let robots = get("robots.txt").await.unwrap().text().await.unwrap();
    assert!(robots.contains("Sitemap: https://big.example/sitemap.xml"), "robots.txt names the index: {robots}");
}

#[actix_web::test]
async fn robots_manifest_and_browserconfig_follow_the_settings_and_the_favicon() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("files").await;
    let key = app.admin_key.clone();
    let get = |path: &str| app.client.get(app.url(&format!("/sites/files/{path}"))).send();

    let res = get("robots.txt").await.unwrap();
    assert_eq!(res.headers()["cache-control"], "public, max-age=3600");
    assert!(res.headers()["content-type"].to_str().unwrap().starts_with("text/plain"));
    assert_eq!(res.text().await.unwrap(), "User-agent: *\nAllow: /\n\n");
    app.put(&format!("/sites/{site}"), &key, json!({"base_url": "https://files.example"})).await;
    let rules =
        json!({"robots_txt_rules": [{"user_agent": "*", "rules": [{"directive": "Disallow", "path": "/admin"}]}]});
    app.put(&format!("/sites/{site}/settings"), &key, rules).await;
    let res = get("robots.txt").await.unwrap();
    let etag = res.headers()["etag"].to_str().unwrap().to_string();
    assert_eq!(
        res.text().await.unwrap(),
        "User-agent: *\nDisallow: /admin\n\nSitemap: https://files.example/sitemap.xml\n"
    );
    let res = app.client.get(app.url("/sites/files/robots.txt")).header("If-None-Match", &etag).send().await.unwrap();
    assert_eq!(res.status(), 304);

    let res = get("site.webmanifest").await.unwrap();
    assert_eq!(res.headers()["content-type"], "application/manifest+json");
    let manifest: serde_json::Value = res.json().await.unwrap();
    assert_eq!((manifest["name"].as_str(), manifest["short_name"].as_str()), (Some("Site files"), Some("Site files")));
    assert_eq!(
        (manifest["display"].as_str(), manifest["icons"].as_array().map(Vec::len)),
        (Some("standalone"), Some(0))
    );
    assert!(manifest["theme_color"].is_string() && manifest["background_color"].is_string());

    // A favicon puts its icons in the manifest and the tile.
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(&[200u8; 64 * 64 * 3], 64, 64, image::ExtendedColorType::Rgb8)
        .unwrap();
    let form = reqwest::multipart::Form::new().part("file", reqwest::multipart::Part::bytes(png).file_name("icon.png"));
    let res = app
        .client
        .post(app.url(&format!("/sites/{site}/favicon")))
        .header("X-API-Key", &key)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let manifest: serde_json::Value = get("site.webmanifest").await.unwrap().json().await.unwrap();
    let sizes: Vec<&str> = manifest["icons"].as_array().unwrap().iter().map(|i| i["sizes"].as_str().unwrap()).collect();
    assert_eq!(sizes, ["180x180", "192x192", "512x512"]);
    let res = get("browserconfig.xml").await.unwrap();
    assert_eq!(res.headers()["cache-control"], "public, max-age=3600");
    let xml = res.text().await.unwrap();
    assert!(xml.contains("<square150x150logo src=\"http") && xml.contains("android-chrome-192x192.png"), "{xml}");
    assert!(xml.contains("<TileColor>"));
    let res = app.client.get(app.url("/sites/no-such-site/robots.txt")).send().await.unwrap();
    assert_eq!(res.status(), 404);
}
