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
        status: Set("running".into()),
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
    assert_eq!(exported["contents"].as_array().unwrap().len(), 3);
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
