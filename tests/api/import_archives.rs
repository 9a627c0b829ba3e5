//! `POST /sites/import` of format 2 and of format 1 (archives taken before
//! format 2 stay importable), hostile entry names, bytes that do not match
//! their checksum, the site's quota, and an import left unfinished.

use std::io::{Read, Write};

use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

/// A format-1 export taken with the exporter of format 1 (see the commit
/// that added it): settings, locales en and de, a localized blog with cover,
/// category and tag, a draft, a page with a hero section, a three-item menu.
const VERSION_1: &[u8] = include_bytes!("fixtures/site-export-v1.zip");

pub async fn import(app: &TestApp, archive: Vec<u8>) -> reqwest::Response {
    let form =
        reqwest::multipart::Form::new().part("archive", reqwest::multipart::Part::bytes(archive).file_name("site.zip"));
    app.client.post(app.url("/sites/import")).header("X-API-Key", &app.admin_key).multipart(form).send().await.unwrap()
}

const SECTIONS: [&str; 14] = [
    "format",
    "exported_at",
    "site",
    "settings",
    "locales",
    "media",
    "taxonomy",
    "blogs",
    "pages",
    "projects",
    "cv_entries",
    "skills",
    "legal",
    "navigation",
];

fn document_text(zip_bytes: &[u8]) -> String {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip_bytes.to_vec())).unwrap();
    let mut text = String::new();
    archive.by_name("archive.json").unwrap().read_to_string(&mut text).unwrap();
    text
}

fn document(zip_bytes: &[u8]) -> Value {
    serde_json::from_str(&document_text(zip_bytes)).unwrap()
}

/// The document's sections in the order format 2 reads them (a `Value`
/// forgets the order of its keys).
fn ordered(document: &Value) -> String {
    let Some(map) = document.as_object() else { return document.to_string() };
    let sections: Vec<String> =
        SECTIONS.iter().filter_map(|k| map.get(*k).map(|v| format!("{}: {v}", json!(k)))).collect();
    format!("{{{}}}", sections.join(",\n"))
}

/// A ZIP of `archive.json` holding `text`.
fn zip_text(text: &str) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file("archive.json", zip::write::SimpleFileOptions::default()).unwrap();
    zip.write_all(text.as_bytes()).unwrap();
    zip.finish().unwrap().into_inner()
}

/// A ZIP of `archive.json` and the given entries.
fn zip_of(document: &Value, entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    zip.start_file("archive.json", options).unwrap();
    zip.write_all(ordered(document).as_bytes()).unwrap();
    for (name, bytes) in entries {
        zip.start_file(*name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

async fn site_count(app: &TestApp) -> usize {
    let sites: Value = app.get("/sites", &app.admin_key).await.json().await.unwrap();
    sites["data"].as_array().or(sites.as_array()).map_or(0, Vec::len)
}

/// Rows of `sites` in the database, visible or not.
async fn site_rows(app: &TestApp) -> usize {
    use sea_orm::{EntityTrait, PaginatorTrait};
    plinth_entities::site::Entity::find().count(&app.state.db).await.unwrap() as usize
}

#[actix_web::test]
async fn a_version_1_archive_still_imports_with_everything_in_it() {
    let app = TestApp::spawn().await;
    let key = app.admin_key.clone();
    let res = import(&app, VERSION_1.to_vec()).await;
    assert_eq!(res.status(), 201);
    let site: Value = res.json().await.unwrap();
    assert_eq!(site["slug"], "legacy");
    let id = site["id"].as_str().unwrap();

    let settings: Value = app.get(&format!("/sites/{id}/settings"), &key).await.json().await.unwrap();
    assert_eq!(
        (settings["theme_color"].as_str(), settings["analytics_enabled"].as_bool()),
        (Some("#336699"), Some(true))
    );
    let locales: Vec<Value> = app.get(&format!("/sites/{id}/locales"), &key).await.json().await.unwrap();
    assert_eq!(locales.len(), 2, "{locales:?}");
    let media: Value = app.get(&format!("/sites/{id}/media"), &key).await.json().await.unwrap();
    let cover = &media["data"][0];
    assert_eq!(cover["variants"].as_array().map(Vec::len), Some(4), "variants made again");
    assert_eq!(app.client.get(cover["public_url"].as_str().unwrap()).send().await.unwrap().status(), 200);

    let blogs: Value = app.get(&format!("/sites/{id}/blogs"), &key).await.json().await.unwrap();
    let mut titles: Vec<&str> =
        blogs["data"].as_array().unwrap().iter().map(|b| b["title"].as_str().unwrap()).collect();
    titles.sort();
    assert_eq!(titles, ["Draft two", "Hello"]);
    let hello = blogs["data"].as_array().unwrap().iter().find(|b| b["title"] == "Hello").unwrap();
    assert_eq!(hello["cover_image_id"], cover["id"]);
    let detail: Value =
        app.get(&format!("/blogs/{}/detail", hello["id"].as_str().unwrap()), &key).await.json().await.unwrap();
    assert_eq!(detail["localizations"][0]["title"], "Hallo", "{detail}");
    assert_eq!(detail["categories"][0]["name"], "Travel", "{detail}");
    assert_eq!(detail["tag_ids"].as_array().map(Vec::len), Some(1), "{detail}");

    let menus: Value = app.get(&format!("/sites/{id}/menus"), &key).await.json().await.unwrap();
    let menu = menus.as_array().or(menus["data"].as_array()).unwrap()[0].clone();
    let tree: Value = app.get(&format!("/menus/{}", menu["id"].as_str().unwrap()), &key).await.json().await.unwrap();
    let top: Vec<&str> = tree["items"].as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert_eq!(top, ["Home", "About"], "{tree}");
    assert_eq!(tree["items"][1]["children"][0]["label"], "Team");

    // Exported again, it is format 2 and the page's section follows its new media.
    let text = document_text(&crate::export::export_zip(&app, id).await);
    let exported: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(exported["format"], "plinth-site-export/2");
    let at: Vec<usize> = SECTIONS.iter().map(|k| text.find(&format!("\"{k}\": ")).unwrap()).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "sections in their order: {at:?}");
    assert_eq!(exported["pages"][0]["fields"]["sections"][0]["cover_image_id"], cover["id"], "{exported}");
    assert_eq!(
        exported["taxonomy"]["categories"][0]["localizations"][0],
        json!({"locale": "de", "name": "Reisen", "description": "", "created_at": exported["taxonomy"]["categories"][0]["localizations"][0]["created_at"], "updated_at": exported["taxonomy"]["categories"][0]["localizations"][0]["updated_at"]})
    );
}

#[actix_web::test]
async fn hostile_entry_names_and_garbage_write_nothing() {
    let app = TestApp::spawn().await;
    let mut version_2 = {
        let res = import(&app, VERSION_1.to_vec()).await;
        let id = res.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
        document(&crate::export::export_zip(&app, &id).await)
    };
    let before = (site_count(&app).await, site_rows(&app).await);
    let outside = std::env::temp_dir().join(format!("plinth-evil-{}.jpg", uuid::Uuid::new_v4().simple()));
    let sum = version_2["media"][0]["checksum"].as_str().unwrap().to_string();
    let jpeg = crate::media::jpeg(8, 8);

    // A record naming its bytes outside media/ (relative or absolute).
    for name in [format!("media/../../{sum}.jpg"), outside.display().to_string(), format!("../{sum}.jpg")] {
        version_2["media"][0]["entry"] = json!(name);
        let res = import(&app, zip_of(&version_2, &[(name.as_str(), &jpeg)])).await;
        let problem = assert_problem(res, 400, "BAD_REQUEST").await;
        assert!(problem["detail"].as_str().unwrap().contains("media/<sha-256>"), "{problem}");
    }
    // Entries nobody names are never read, whatever their names.
    version_2["media"] = json!([]);
    let res = import(&app, zip_of(&version_2, &[(outside.to_str().unwrap(), &jpeg), ("../../evil.jpg", &jpeg)])).await;
    assert_eq!(res.status(), 201);
    assert!(!outside.exists());
    let root = app.state.config.data_dir.parent().unwrap().to_path_buf();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            assert!(!path.to_string_lossy().contains("evil"), "{} was written", path.display());
            if path.is_dir() {
                stack.push(path);
            }
        }
    }
    let after_good = (site_count(&app).await, site_rows(&app).await);
    assert_eq!(after_good, (before.0 + 1, before.1 + 1));

    // Garbage: not a ZIP, not JSON, JSON cut short, bytes that are not their checksum.
    let mut cut = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    cut.start_file("archive.json", zip::write::SimpleFileOptions::default()).unwrap();
    cut.write_all(br#"{"format": "plinth-site-export/2", "site": {"#).unwrap();
    let cut = cut.finish().unwrap().into_inner();
    let post = version_2["blogs"][0].clone();
    let mut twice = version_2.clone();
    twice["blogs"] = json!([post, post]);
    let mut same_slug = twice.clone();
    same_slug["blogs"][1]["id"] = json!(uuid::Uuid::new_v4());
    for (archive, why) in [
        (zip_of(&twice, &[]), "one id twice"),
        (zip_of(&same_slug, &[]), "one slug twice"),
        (b"\x00\x01garbage".to_vec(), "not a ZIP"),
        (zip_of(&json!("no object"), &[]), "not an object"),
        (
            zip_text(&format!(r#"{{"site": {}, "format": "plinth-site-export/2"}}"#, version_2["site"])),
            "format not first",
        ),
        (cut, "cut short"),
    ] {
        let problem = assert_problem(import(&app, archive).await, 400, "BAD_REQUEST").await;
        assert!(problem["detail"].as_str().unwrap().starts_with("not a Plinth site export"), "{why}: {problem}");
    }
    assert_eq!((site_count(&app).await, site_rows(&app).await), after_good, "nothing half-written");
}

#[actix_web::test]
async fn bytes_that_are_not_their_checksum_and_media_past_the_quota_leave_no_site() {
    let app = TestApp::spawn_with(|c| c.media.site_quota_bytes = 400).await;
    let key = app.admin_key.clone();
    let site = app.create_site_id("small").await;
    // Written under a generous quota elsewhere: a 24x16 JPEG is some 750 bytes.
    let source = TestApp::spawn().await;
    let other = source.create_site_id("big").await;
    crate::media::uploaded(&source, &other, "photo.jpg", crate::media::jpeg(24, 16)).await;
    for n in 0..3 {
        source.post("/blogs", &source.admin_key, json!({"site_ids": [other], "title": format!("Post {n}")})).await;
    }
    let archive = crate::export::export_zip(&source, &other).await;
    let rows = site_rows(&app).await;
    let problem = assert_problem(import(&app, archive.clone()).await, 413, "STORAGE_QUOTA_EXCEEDED").await;
    assert!(problem["detail"].as_str().unwrap().contains("quota"), "{problem}");
    assert_eq!(site_rows(&app).await, rows);

    // The same archive with other bytes under the media's name.
    let target = TestApp::spawn().await;
    let doc = document(&archive);
    let name = doc["media"][0]["entry"].as_str().unwrap().to_string();
    let forged = zip_of(&doc, &[(name.as_str(), b"other bytes")]);
    let rows = site_rows(&target).await;
    let problem = assert_problem(import(&target, forged).await, 400, "BAD_REQUEST").await;
    assert!(problem["detail"].as_str().unwrap().contains("checksum"), "{problem}");
    assert_eq!(site_rows(&target).await, rows, "the site written so far is removed");
    assert!(app.get(&format!("/sites/{site}"), &key).await.status().is_success());
}

#[actix_web::test]
async fn an_import_left_unfinished_is_invisible_and_removed_by_the_janitor() {
    use sea_orm::{ActiveModelTrait, ActiveValue::Set, EntityTrait};
    let app = TestApp::spawn().await;
    let key = app.admin_key.clone();
    let res = import(&app, VERSION_1.to_vec()).await;
    let site: Value = res.json().await.unwrap();
    let id: uuid::Uuid = site["id"].as_str().unwrap().parse().unwrap();
    let blogs: Value = app.get(&format!("/sites/{id}/blogs"), &key).await.json().await.unwrap();
    assert_eq!(blogs["data"].as_array().map(Vec::len), Some(2));
    // What a process stopped between two batches leaves: rows under a lease nobody renews.
    let row = plinth_entities::site::Entity::find_by_id(id).one(&app.state.db).await.unwrap().unwrap();
    let mut row: plinth_entities::site::ActiveModel = row.into();
    row.import_lease_until = Set(Some(chrono::Utc::now() + chrono::Duration::minutes(5)));
    let touched = [plinth::db::Touched::Site(id)];
    app.state.db.write(&touched, async |txn| row.update(txn).await).await.unwrap();

    assert_problem(app.get(&format!("/sites/{id}"), &key).await, 404, "ENTITY_NOT_FOUND").await;
    assert_eq!(site_count(&app).await, 0);
    assert_eq!(app.get(&format!("/sites/{id}/blogs"), &key).await.status(), 404);
    let public =
        app.client.post(app.url("/public/forms/contact/submit")).header("X-Site-Domain", "legacy").json(&json!({}));
    let problem = assert_problem(public.send().await.unwrap(), 404, "ENTITY_NOT_FOUND").await;
    assert!(problem["detail"].as_str().unwrap().contains("legacy"), "the site is not found by its slug: {problem}");
    // A live lease is another instance still importing: the Janitor leaves it.
    app.advance_and_run_janitor(chrono::Duration::minutes(1)).await;
    assert_eq!(site_rows(&app).await, 1);
    app.advance_and_run_janitor(chrono::Duration::minutes(10)).await;
    assert_eq!(site_rows(&app).await, 0, "the unfinished site went");
    use sea_orm::PaginatorTrait;
    assert_eq!(plinth_entities::content::Entity::find().count(&app.state.db).await.unwrap(), 0, "with its content");
    assert_eq!(plinth_entities::media_file::Entity::find().count(&app.state.db).await.unwrap(), 0, "and media records");
    // Its slug is free again.
    assert_eq!(import(&app, VERSION_1.to_vec()).await.json::<Value>().await.unwrap()["slug"], "legacy");
}

#[actix_web::test]
async fn while_a_big_import_writes_its_site_is_invisible_and_other_writes_go_on() {
    use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
    let app = TestApp::spawn().await;
    let key = app.admin_key.clone();
    let other = app.create_site_id("busy").await;
    // Format 2 of the fixture, its posts 5,000 times over (new ids and slugs).
    let mut big = {
        let res = import(&app, VERSION_1.to_vec()).await;
        let id = res.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
        document(&crate::export::export_zip(&app, &id).await)
    };
    let posts: Vec<Value> = big["blogs"].as_array().unwrap().clone();
    let many: Vec<Value> = (0..5_000)
        .flat_map(|n| {
            posts.iter().map(move |p| {
                let mut p = p.clone();
                p["id"] = json!(uuid::Uuid::new_v4());
                p["placement"]["slug"] = json!(format!("{}-{n}", p["placement"]["slug"].as_str().unwrap()));
                p
            })
        })
        .collect();
    big["blogs"] = json!(many);
    big["media"] = json!([]);
    let archive = zip_of(&big, &[]);
    let visible = site_count(&app).await;

    let importing = {
        let (client, url, key) = (app.client.clone(), app.url("/sites/import"), key.clone());
        actix_web::rt::spawn(async move {
            let form = reqwest::multipart::Form::new().part("archive", reqwest::multipart::Part::bytes(archive));
            client.post(url).header("X-API-Key", key).multipart(form).send().await.unwrap()
        })
    };
    let leased = || {
        plinth_entities::site::Entity::find()
            .filter(plinth_entities::site::Column::ImportLeaseUntil.is_not_null())
            .count(&app.state.db)
    };
    let mut waited = 0;
    while leased().await.unwrap() == 0 {
        assert!(waited < 3_000 && !importing.is_finished(), "the import never showed its lease");
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        waited += 5;
    }
    // The import is under way, batch after batch: another site's write is not held until it ends.
    let started = std::time::Instant::now();
    let res = app.post("/blogs", &key, json!({"site_ids": [other], "title": "Meanwhile"})).await;
    assert_eq!(res.status(), 201);
    assert!(!importing.is_finished(), "the write waited for the whole import ({:?})", started.elapsed());
    assert_eq!(site_count(&app).await, visible, "the site being imported is listed");

    let res = importing.await.unwrap();
    assert_eq!(res.status(), 201);
    let site: Value = res.json().await.unwrap();
    assert_eq!(site_count(&app).await, visible + 1);
    assert_eq!(leased().await.unwrap(), 0);
    let blogs: Value =
        app.get(&format!("/sites/{}/blogs", site["id"].as_str().unwrap()), &key).await.json().await.unwrap();
    assert_eq!(blogs["meta"]["total"], 10_000, "{}", blogs["meta"]);
}

/// A row whose status no item can have is refused with the archive, instead of
/// arriving as an item that reads back as something else.
#[actix_web::test]
async fn an_item_with_an_unknown_status_refuses_the_archive() {
    let app = TestApp::spawn().await;
    let before = (site_count(&app).await, site_rows(&app).await);
    let text = document_text(VERSION_1);
    assert!(text.contains(r#""status": "Published""#), "the fixture has a published item");
    let tampered = text.replacen(r#""status": "Published""#, r#""status": "Deleted""#, 1);
    let problem = assert_problem(import(&app, with_document(VERSION_1, &tampered)).await, 400, "BAD_REQUEST").await;
    assert!(problem["detail"].as_str().unwrap_or_default().contains("Deleted"), "{problem}");
    assert_eq!((site_count(&app).await, site_rows(&app).await), before, "nothing half-written");
    // The same archive untouched imports.
    assert_eq!(import(&app, with_document(VERSION_1, &text)).await.status(), 201);
}

/// `zip_bytes` with its `archive.json` replaced by `text`, every other entry kept.
fn with_document(zip_bytes: &[u8], text: &str) -> Vec<u8> {
    let mut source = zip::ZipArchive::new(std::io::Cursor::new(zip_bytes.to_vec())).unwrap();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for i in 0..source.len() {
        let mut entry = source.by_index(i).unwrap();
        let name = entry.name().unwrap().to_string();
        zip.start_file(name.as_str(), zip::write::SimpleFileOptions::default()).unwrap();
        if name == "archive.json" {
            zip.write_all(text.as_bytes()).unwrap();
        } else {
            std::io::copy(&mut entry, &mut zip).unwrap();
        }
    }
    zip.finish().unwrap().into_inner()
}
