use serde_json::{json, Value};

use super::{gif, jpeg, jpeg_with_exif, png, png_bomb, upload, uploaded, webp};
use crate::helpers::{assert_problem, TestApp};

fn variant<'a>(record: &'a Value, name: &str) -> &'a Value {
    record["variants"].as_array().unwrap().iter().find(|v| v["variant_name"] == name).unwrap()
}

#[actix_web::test]
async fn an_upload_is_sniffed_oriented_resized_stripped_and_served() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("photos").await;
    let photo = jpeg_with_exif(2400, 1200);
    let record = uploaded(&app, &site, "holiday.jpg", photo.clone()).await;
    assert_eq!(record["mime_type"], "image/jpeg");
    assert_eq!(record["file_size"], photo.len());
    assert_eq!(record["site_ids"], json!([site]));
    // EXIF orientation 6: the upright picture is 1200 wide and 2400 high.
    assert_eq!((record["width"].as_i64(), record["height"].as_i64()), (Some(1200), Some(2400)));
    let names: Vec<&str> =
        record["variants"].as_array().unwrap().iter().map(|v| v["variant_name"].as_str().unwrap()).collect();
    assert_eq!(names, ["thumbnail", "small", "medium", "large"]);
    for (name, w, h) in [("thumbnail", 150, 150), ("small", 240, 480), ("medium", 512, 1024), ("large", 960, 1920)] {
        let v = variant(&record, name);
        assert_eq!((v["width"].as_i64(), v["height"].as_i64()), (Some(w), Some(h)), "{name}");
    }
    assert!(record["thumbhash"].as_str().is_some_and(|t| t.len() > 10));
    assert!(record["dominant_color"].as_str().is_some_and(|c| c.starts_with('#') && c.len() == 7));

    // The original is served without its GPS position but still upright.
    let url = record["public_url"].as_str().unwrap();
    let res = app.client.get(url).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let headers = res.headers().clone();
    assert_eq!(headers["content-type"], "image/jpeg");
    assert_eq!(headers["cache-control"], "public, max-age=31536000, immutable");
    assert!(headers["content-security-policy"].to_str().unwrap().contains("sandbox"));
    let served = res.bytes().await.unwrap();
    assert!(!served.windows(6).any(|w| w == b"48.208"), "the GPS position was served");
    assert!(served.windows(6).any(|w| w == b"Exif\0\0"), "the orientation tag is kept");
    let as_shot = image::load_from_memory(&served).unwrap();
    assert_eq!((as_shot.width(), as_shot.height()), (2400, 1200), "pixels are stored as shot");
    let etag = headers["etag"].to_str().unwrap().to_string();
    let res = app.client.get(url).header("If-None-Match", &etag).send().await.unwrap();
    assert_eq!(res.status(), 304);
    let res = app.client.get(url).header("Range", "bytes=0-9").send().await.unwrap();
    assert_eq!(res.status(), 206);
    assert_eq!(res.headers()["content-range"], format!("bytes 0-9/{}", served.len()));
    assert_eq!(res.bytes().await.unwrap().as_ref(), &served[..10]);
    let res = app.client.get(url).header("Range", format!("bytes={}-", served.len() + 10)).send().await.unwrap();
    assert_problem(res, 416, "RANGE_NOT_SATISFIABLE").await;
    let thumb = app.client.get(variant(&record, "thumbnail")["public_url"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(thumb.status(), 200);
    let thumb = image::load_from_memory(&thumb.bytes().await.unwrap()).unwrap();
    assert_eq!((thumb.width(), thumb.height()), (150, 150));

    // The same bytes again on the same site: the existing record, 200.
    let again = upload(&app, &app.admin_key, &[&site], "copy.jpg", photo.clone()).await;
    assert_eq!(again.status(), 200);
    assert_eq!(again.json::<Value>().await.unwrap()["id"], record["id"]);
    // On another site: a new record sharing the stored files.
    let other = app.create_site_id("photos-two").await;
    let shared = uploaded(&app, &other, "holiday.jpg", photo).await;
    assert_ne!(shared["id"], record["id"]);
    assert_eq!(shared["public_url"], record["public_url"]);
    assert_eq!(shared["variants"].as_array().unwrap().len(), 4);
}

#[actix_web::test]
async fn png_gif_and_webp_make_variants_and_small_images_are_never_enlarged() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("formats").await;
    for (name, bytes, mime, variant_mime) in [
        ("alpha.png", png(300, 200), "image/png", "image/png"),
        ("anim.gif", gif(64, 48), "image/gif", "image/png"),
        ("photo.webp", webp(500, 500), "image/webp", "image/png"),
        ("small.jpg", jpeg(100, 80), "image/jpeg", "image/jpeg"),
    ] {
        let record = uploaded(&app, &site, name, bytes).await;
        assert_eq!(record["mime_type"], mime, "{name}");
        let large = variant(&record, "large");
        assert_eq!(
            (large["width"].clone(), large["height"].clone()),
            (record["width"].clone(), record["height"].clone()),
            "{name}"
        );
        assert_eq!(large["mime_type"], variant_mime, "{name}");
        let side = record["width"].as_i64().unwrap().min(record["height"].as_i64().unwrap()).min(150);
        assert_eq!(variant(&record, "thumbnail")["width"], side, "{name}");
    }
}

#[actix_web::test]
async fn a_misnamed_file_is_stored_and_served_as_what_its_bytes_are() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("misnamed").await;
    let record = uploaded(&app, &site, "photo.jpg", png(40, 30)).await;
    assert_eq!(
        (record["mime_type"].as_str(), record["filename"].as_str(), record["original_filename"].as_str()),
        (Some("image/png"), Some("photo.png"), Some("photo.jpg"))
    );
    assert_eq!((record["width"].as_i64(), record["height"].as_i64()), (Some(40), Some(30)));
    let public_url = record["public_url"].as_str().unwrap();
    assert!(public_url.ends_with(".png"), "{public_url}");
    let res = app.client.get(public_url).send().await.unwrap();
    assert_eq!((res.status().as_u16(), res.headers()["content-type"].to_str().unwrap()), (200, "image/png"));
    // Text posing as a picture stays refused.
    let res = upload(&app, &app.admin_key, &[&site], "photo.jpg", b"<html><script>x</script></html>".to_vec()).await;
    assert_problem(res, 400, "MEDIA_UPLOAD_INVALID_TYPE").await;
}

#[actix_web::test]
async fn hostile_and_wrong_files_are_refused_cleanly() {
    let app = TestApp::spawn_with(|c| c.media.site_quota_bytes = 60_000).await;
    let site = app.create_site_id("hostile").await;
    let key = app.admin_key.clone();
    let refused = |name: &str| format!("{name} should be refused");

    let res = upload(&app, &key, &[&site], "cat.png", b"this is only text, not a picture".to_vec()).await;
    assert_problem(res, 400, "MEDIA_UPLOAD_INVALID_TYPE").await;
    let res = upload(&app, &key, &[&site], "bomb.png", png_bomb()).await;
    let body = assert_problem(res, 400, "MEDIA_UPLOAD_TOO_LARGE").await;
    assert!(body["detail"].as_str().unwrap().contains("100000x100000"), "{body}");
    let res = upload(&app, &key, &[&site], "tool", b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0".to_vec()).await;
    assert_problem(res, 400, "MEDIA_UPLOAD_INVALID_TYPE").await;
    let res = upload(&app, &key, &[&site], "empty.jpg", Vec::new()).await;
    assert_problem(res, 400, "MEDIA_UPLOAD_EMPTY").await;
    let form = reqwest::multipart::Form::new().text("site_ids", format!("[\"{site}\"]"));
    let res = app.client.post(app.url("/media/upload")).header("X-API-Key", &key).multipart(form).send().await.unwrap();
    assert_problem(res, 400, "MEDIA_UPLOAD_NO_DATA").await;
    let res = app
        .client
        .post(app.url("/media/upload"))
        .header("X-API-Key", &key)
        .json(&json!({"file": "x"}))
        .send()
        .await
        .unwrap();
    assert_problem(res, 400, "MEDIA_UPLOAD_NO_DATA").await;

    // An SVG with a script is kept, but served so that it cannot run.
    let svg = br#"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>"#;
    let record = uploaded(&app, &site, "logo.svg", svg.to_vec()).await;
    assert_eq!(record["mime_type"], "image/svg+xml");
    let res = app.client.get(record["public_url"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(res.headers()["content-type"], "image/svg+xml");
    assert!(res.headers()["content-security-policy"].to_str().unwrap().contains("sandbox"));
    assert!(res.headers()["content-disposition"].to_str().unwrap().starts_with("attachment"));

    // The site's size limit, checked while streaming.
    let res = app.put(&format!("/sites/{site}/settings"), &key, json!({"max_media_file_size": 2000})).await;
    assert_eq!(res.status(), 200);
    let res = upload(&app, &key, &[&site], "big.jpg", jpeg(400, 400)).await;
    assert_problem(res, 400, "MEDIA_UPLOAD_TOO_LARGE").await;
    app.put(&format!("/sites/{site}/settings"), &key, json!({"max_media_file_size": 52_428_800})).await;
    // The quota (60,000 bytes here): files that fit, then one that does not.
    let mut stored = 0;
    for i in 0..20 {
        let res = upload(&app, &key, &[&site], &format!("n{i}.txt"), vec![b'a' + i as u8; 20_000]).await;
        if res.status() == 413 {
            assert_problem(res, 413, "STORAGE_QUOTA_EXCEEDED").await;
            break;
        }
        assert_eq!(res.status(), 201, "{}", refused("an upload past the quota"));
        stored += 1;
    }
    assert_eq!(stored, 2, "two 20 kB files fit beside the svg, the third does not");
    // The server is unharmed.
    assert_eq!(app.get("/health", &key).await.status(), 200);
}

#[actix_web::test]
async fn uploading_needs_author_rights_on_every_named_site() {
    let app = TestApp::spawn().await;
    let mine = app.create_site_id("up-mine").await;
    let theirs = app.create_site_id("up-theirs").await;
    let reader = app.create_key("Read", Some(&mine)).await;
    let writer = app.create_key("Write", Some(&mine)).await;
    assert_problem(upload(&app, &reader, &[&mine], "a.jpg", jpeg(20, 20)).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let res = upload(&app, &writer, &[&mine, &theirs], "a.jpg", jpeg(20, 20)).await;
    assert_eq!(res.status(), 403);
    assert_eq!(upload(&app, &writer, &[&mine], "a.jpg", jpeg(20, 20)).await.status(), 201);
    // The file part before site_ids: checked once the form is read.
    let form = reqwest::multipart::Form::new()
        .part("file", reqwest::multipart::Part::bytes(jpeg(30, 30)).file_name("late.jpg"))
        .text("site_ids", format!("[\"{theirs}\"]"));
    let res =
        app.client.post(app.url("/media/upload")).header("X-API-Key", &writer).multipart(form).send().await.unwrap();
    assert_eq!(res.status(), 403);
    let res = upload(&app, &writer, &[], "a.jpg", jpeg(20, 20)).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
}
