use serde_json::{json, Value};

use super::{jpeg, png};
use crate::helpers::{assert_problem, TestApp};

async fn send_favicon(app: &TestApp, key: &str, site: &str, name: &str, bytes: Vec<u8>) -> reqwest::Response {
    let form = reqwest::multipart::Form::new()
        .part("file", reqwest::multipart::Part::bytes(bytes).file_name(name.to_string()));
    app.client
        .post(app.url(&format!("/sites/{site}/favicon")))
        .header("X-API-Key", key)
        .multipart(form)
        .send()
        .await
        .unwrap()
}

#[actix_web::test]
async fn a_favicon_package_is_generated_stored_and_set_on_the_site() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("icons").await;
    let key = app.admin_key.clone();
    assert_problem(app.get(&format!("/sites/{site}/favicon"), &key).await, 404, "RESOURCE_NOT_FOUND").await;

    let res = send_favicon(&app, &key, &site, "logo.png", png(600, 520)).await;
    assert_eq!(res.status(), 200);
    let package: Value = res.json().await.unwrap();
    let sizes: Vec<(String, u64)> = package["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["name"].as_str().unwrap().to_string(), v["width"].as_u64().unwrap()))
        .collect();
    let expected = [
        ("favicon.ico", 48),
        ("favicon-16x16.png", 16),
        ("favicon-32x32.png", 32),
        ("apple-touch-icon.png", 180),
        ("android-chrome-192x192.png", 192),
        ("android-chrome-512x512.png", 512),
    ];
    assert_eq!(sizes, expected.iter().map(|(n, s)| (n.to_string(), *s)).collect::<Vec<_>>());
    assert!(package["head_snippet"].as_str().unwrap().contains("apple-touch-icon"));
    let stored: Value = app.get(&format!("/sites/{site}/favicon"), &key).await.json().await.unwrap();
    assert_eq!(stored, package);
    let site_now: Value = app.get(&format!("/sites/{site}"), &key).await.json().await.unwrap();
    assert_eq!(site_now["favicon_url"], package["variants"][2]["url"]);

    let ico = app.client.get(package["variants"][0]["url"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(ico.headers()["content-type"], "image/x-icon");
    let ico = image::load_from_memory(&ico.bytes().await.unwrap()).unwrap();
    assert_eq!(ico.width(), 48);
    let big =
        app.client.get(package["variants"][5]["url"].as_str().unwrap()).send().await.unwrap().bytes().await.unwrap();
    assert_eq!(image::load_from_memory(&big).unwrap().width(), 512);

    // A new picture replaces the package; the old files go.
    let old_url = package["variants"][1]["url"].as_str().unwrap().to_string();
    let replaced: Value = send_favicon(&app, &key, &site, "new.jpg", jpeg(64, 64)).await.json().await.unwrap();
    assert_ne!(replaced["variants"][1]["url"], json!(old_url));
    assert_eq!(app.client.get(&old_url).send().await.unwrap().status(), 404);

    let reader = app.create_key("Read", Some(&site)).await;
    assert_eq!(app.get(&format!("/sites/{site}/favicon"), &reader).await.status(), 200);
    assert_problem(send_favicon(&app, &reader, &site, "x.png", png(16, 16)).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg"></svg>"#.to_vec();
    assert_problem(send_favicon(&app, &key, &site, "x.svg", svg).await, 400, "MEDIA_UPLOAD_INVALID_TYPE").await;
    assert_problem(send_favicon(&app, &key, &site, "x.png", b"text".to_vec()).await, 400, "MEDIA_UPLOAD_INVALID_TYPE")
        .await;
}
