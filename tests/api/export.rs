//! Site export over HTTP: roles, one job at a time, the archive, tokens,
//! expiry and a job left running by a stopped process.

use std::io::Read;

use plinth_entities::export_job;
use sea_orm::{ActiveValue::Set, EntityTrait};
use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

async fn wait_until_done(app: &TestApp, site: &str, job: &str) -> Value {
    for _ in 0..200 {
        let job: Value = app.get(&format!("/sites/{site}/export/{job}"), &app.admin_key).await.json().await.unwrap();
        if job["status"] == "ready" || job["status"] == "failed" {
            return job;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the export did not finish");
}

fn running_job(site: &str) -> export_job::ActiveModel {
    export_job::ActiveModel {
        id: Set(uuid::Uuid::new_v4()),
        site_id: Set(site.parse().unwrap()),
        status: Set(plinth_entities::values::ExportStatus::Running),
        storage_key: Set(None),
        size: Set(None),
        error: Set(None),
        created_by: Set(None),
        created_at: Set(chrono::Utc::now()),
        started_at: Set(Some(chrono::Utc::now())),
        built_at: Set(None),
        expires_at: Set(None),
    }
}

#[actix_web::test]
async fn a_site_exports_to_a_zip_with_its_content_and_media() {
    let app = TestApp::spawn().await;
    let key = app.admin_key.clone();
    let site = app.create_site_id("exported").await;
    for title in ["First", "Second"] {
        app.post("/blogs", &key, json!({"site_ids": [site], "title": title})).await;
    }
    app.post("/pages", &key, json!({"site_ids": [site], "title": "About", "route": "/about"})).await;
    let photo = crate::media::jpeg(40, 30);
    let media = crate::media::uploaded(&app, &site, "photo.jpg", photo).await;

    let reader = app.create_key("Read", Some(&site)).await;
    assert_problem(app.post(&format!("/sites/{site}/export"), &reader, json!({})).await, 403, "SITE_EXPORT_FORBIDDEN")
        .await;
    let res = app.post(&format!("/sites/{site}/export"), &key, json!({})).await;
    assert_eq!(res.status(), 202);
    let job: Value = res.json().await.unwrap();
    assert_eq!((job["status"].as_str(), job["download_url"].as_str()), (Some("queued"), None));
    let id = job["id"].as_str().unwrap().to_string();
    let done = wait_until_done(&app, &site, &id).await;
    assert_eq!(done["status"], "ready", "{done}");
    let url = done["download_url"].as_str().unwrap();
    assert!(done["expires_at"].is_string());

    let without_token = format!("/sites/{site}/export/{id}/download");
    assert_problem(app.get(&without_token, &key).await, 404, "SITE_EXPORT_JOB_NOT_FOUND").await;
    let res = app.client.get(url).header("X-API-Key", &reader).send().await.unwrap();
    assert_problem(res, 403, "SITE_EXPORT_FORBIDDEN").await;
    let res = app.client.get(url).header("X-API-Key", &key).send().await.unwrap();
    assert_eq!(res.headers()["content-type"], "application/zip");
    let zip_bytes = res.bytes().await.unwrap();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip_bytes.to_vec())).unwrap();
    let mut json_text = String::new();
    archive.by_name("archive.json").unwrap().read_to_string(&mut json_text).unwrap();
    let exported: Value = serde_json::from_str(&json_text).unwrap();
    assert_eq!(exported["site"]["slug"], "exported");
    assert_eq!((exported["blogs"].as_array().unwrap().len(), exported["pages"].as_array().unwrap().len()), (2, 1));
    assert_eq!(exported["media"][0]["id"], media["id"]);
    let name = format!("media/{}.jpg", media["checksum"].as_str().unwrap());
    let mut stored = Vec::new();
    archive.by_name(&name).unwrap().read_to_end(&mut stored).unwrap();
    let original = app.client.get(media["public_url"].as_str().unwrap()).send().await.unwrap().bytes().await.unwrap();
    assert_eq!(stored, original.to_vec());

    // Seven days after the build, link and archive are gone.
    app.clock.advance(chrono::Duration::days(8));
    assert_problem(app.get(&format!("/sites/{site}/export/{id}"), &key).await, 404, "SITE_EXPORT_JOB_NOT_FOUND").await;
    let res = app.client.get(url).header("X-API-Key", &key).send().await.unwrap();
    assert_problem(res, 404, "SITE_EXPORT_JOB_NOT_FOUND").await;
}

#[actix_web::test]
async fn one_export_at_a_time_and_a_job_left_running_is_resumed() {
    let app = TestApp::spawn().await;
    let key = app.admin_key.clone();
    let site = app.create_site_id("resumed").await;
    // What a process that died mid-build leaves behind.
    let stuck = export_job::Entity::insert(running_job(&site)).exec_with_returning(&app.state.db).await.unwrap();
    assert_problem(
        app.post(&format!("/sites/{site}/export"), &key, json!({})).await,
        409,
        "SITE_EXPORT_ALREADY_RUNNING",
    )
    .await;
    let (dir, database_url) = app.stop().await;
    let mut config = crate::helpers::test_config(&dir, &database_url);
    config.bootstrap_api_key = Some(key.clone());
    let app = TestApp::start(config, dir).await;
    let done = wait_until_done(&app, &site, &stuck.id.to_string()).await;
    assert_eq!(done["status"], "ready", "{done}");
    // Ready jobs do not block a new one.
    assert_eq!(app.post(&format!("/sites/{site}/export"), &key, json!({})).await.status(), 202);
}

pub async fn export_zip(app: &TestApp, site: &str) -> Vec<u8> {
    let job: Value = app.post(&format!("/sites/{site}/export"), &app.admin_key, json!({})).await.json().await.unwrap();
    let done = wait_until_done(app, site, job["id"].as_str().unwrap()).await;
    let res = app
        .client
        .get(done["download_url"].as_str().unwrap())
        .header("X-API-Key", &app.admin_key)
        .send()
        .await
        .unwrap();
    res.bytes().await.unwrap().to_vec()
}

fn archive_json(zip_bytes: &[u8]) -> Value {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip_bytes.to_vec())).unwrap();
    let mut text = String::new();
    archive.by_name("archive.json").unwrap().read_to_string(&mut text).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The archive without what an import renews: ids, timestamps, the slug.
fn comparable(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| {
                    !(k.as_str() == "id" || k.ends_with("_id") || k.ends_with("_at") || k.as_str() == "slug")
                })
                .map(|(k, v)| (k.clone(), comparable(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(comparable).collect()),
        Value::String(s) if s.parse::<uuid::Uuid>().is_ok() => Value::String("<id>".into()),
        other => other.clone(),
    }
}

#[actix_web::test]
async fn an_export_imports_into_a_new_site_elsewhere_and_exports_the_same() {
    // From SQLite; into PostgreSQL when PLINTH_TEST_DATABASE_URL names one.
    let source =
        TestApp::spawn_with(|c| c.database_url = format!("sqlite://{}/source.db?mode=rwc", c.data_dir.display())).await;
    let key = source.admin_key.clone();
    let site = source.create_site_id("moving").await;
    let media = crate::media::uploaded(&source, &site, "cover.jpg", crate::media::jpeg(30, 20)).await;
    let post: Value = source
        .post(
            "/blogs",
            &key,
            json!({"site_ids": [site], "title": "Hello", "cover_image_id": media["id"], "status": "Published"}),
        )
        .await
        .json()
        .await
        .unwrap();
    source
        .post("/pages", &key, json!({"site_ids": [site], "title": "About", "route": "/about", "sections": [{"section_type": "hero", "cover_image_id": media["id"]}]}))
        .await;
    // The other kinds, each under its own name.
    let modules = json!({"module_portfolio_enabled": true, "module_legal_enabled": true});
    source.put(&format!("/sites/{site}/settings"), &key, modules).await;
    let skill = source.post("/skills", &key, json!({"site_ids": [site], "name": "Rust", "proficiency": 90})).await;
    assert_eq!(skill.status(), 201);
    let project = json!({"site_ids": [site], "title": "Bridge", "media_ids": [media["id"]]});
    assert_eq!(source.post("/projects", &key, project).await.status(), 201);
    let cv = json!({"site_ids": [site], "title": "MSc", "entry_type": "education", "start_date": "2015-10-01"});
    assert_eq!(source.post("/cv", &key, cv).await.status(), 201);
    let legal = json!({"site_ids": [site], "title": "Privacy", "document_type": "privacy",
        "groups": [{"cookie_name": "analytics", "items": [{"cookie_name": "_ga"}]}]});
    assert_eq!(source.post("/legal", &key, legal).await.status(), 201);
    let template = json!({"name": "Release notes", "description": "What changed", "body": "## Changes"});
    assert_eq!(source.post(&format!("/sites/{site}/content-templates"), &key, template).await.status(), 201);
    let first = export_zip(&source, &site).await;
    let document = archive_json(&first);
    for (section, title) in [("projects", "Bridge"), ("cv_entries", "MSc"), ("skills", "Rust"), ("legal", "Privacy")] {
        assert_eq!(document[section][0]["title"], title, "{section}");
    }
    assert_eq!(document["projects"][0]["fields"]["media_ids"][0], media["id"], "{}", document["projects"]);
    assert_eq!(document["legal"][0]["fields"]["groups"][0]["items"][0]["cookie_name"], "_ga");
    assert_eq!(document["content_templates"][0]["name"], "Release notes");

    let target = TestApp::spawn().await;
    let form = reqwest::multipart::Form::new()
        .part("archive", reqwest::multipart::Part::bytes(first.clone()).file_name("moving.zip"));
    let res = target
        .client
        .post(target.url("/sites/import"))
        .header("X-API-Key", &target.admin_key)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let imported: Value = res.json().await.unwrap();
    assert_eq!(imported["slug"], "moving");
    let new_site = imported["id"].as_str().unwrap().to_string();
    assert_ne!(new_site, site);
    let blogs: Value = target.get(&format!("/sites/{new_site}/blogs"), &target.admin_key).await.json().await.unwrap();
    let blog = &blogs["data"][0];
    assert_eq!(blog["title"], "Hello");
    assert_ne!(blog["id"], post["id"]);
    let media_list: Value =
        target.get(&format!("/sites/{new_site}/media"), &target.admin_key).await.json().await.unwrap();
    let new_media = &media_list["data"][0];
    assert_eq!(blog["cover_image_id"], new_media["id"], "covers follow their media");
    let bytes = target.client.get(new_media["public_url"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(bytes.status(), 200);
    assert_eq!(new_media["variants"].as_array().map(Vec::len), Some(4), "variants made again");
    let thumb = target.client.get(new_media["variants"][0]["public_url"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(thumb.status(), 200);

    // Templates and consent groups come along, under ids of their own.
    let templates: Value =
        target.get(&format!("/sites/{new_site}/content-templates"), &target.admin_key).await.json().await.unwrap();
    assert_eq!(
        (templates["data"][0]["name"].as_str(), templates["data"][0]["body"].as_str()),
        (Some("Release notes"), Some("## Changes"))
    );
    let legal: Value = target.get(&format!("/sites/{new_site}/legal"), &target.admin_key).await.json().await.unwrap();
    let legal_id = legal["data"][0]["id"].as_str().unwrap();
    let groups: Vec<Value> =
        target.get(&format!("/legal/{legal_id}/groups"), &target.admin_key).await.json().await.unwrap();
    let group_id = groups[0]["id"].as_str().unwrap();
    assert_ne!(group_id, document["legal"][0]["fields"]["groups"][0]["id"].as_str().unwrap());
    let items: Vec<Value> =
        target.get(&format!("/legal/groups/{group_id}/items"), &target.admin_key).await.json().await.unwrap();
    assert_eq!(items[0]["cookie_name"], "_ga", "the new ids are found");

    let second = export_zip(&target, &new_site).await;
    assert_eq!(comparable(&archive_json(&second)), comparable(&archive_json(&first)));
    let project = &archive_json(&second)["projects"][0];
    assert_eq!(project["fields"]["media_ids"][0], new_media["id"], "a project's gallery follows its media");

    // The same archive again: the next free slug.
    let again = reqwest::multipart::Form::new().part("archive", reqwest::multipart::Part::bytes(first.clone()));
    let res = target.client.post(target.url("/sites/import")).header("X-API-Key", &target.admin_key).multipart(again);
    let again: Value = res.send().await.unwrap().json().await.unwrap();
    assert_eq!(again["slug"], "moving-2", "{again}");
    let bad = reqwest::multipart::Form::new().part("archive", reqwest::multipart::Part::bytes(b"not a zip".to_vec()));
    let res = target
        .client
        .post(target.url("/sites/import"))
        .header("X-API-Key", &target.admin_key)
        .multipart(bad)
        .send()
        .await
        .unwrap();
    assert_problem(res, 400, "BAD_REQUEST").await;
}
