//! Files on S3-compatible storage (`PLINTH_STORAGE_URL=s3://bucket/prefix`),
//! against a local emulator the test starts: moto's server mode
//! (`pip install 'moto[server]==5.2.1'`, `moto_server` on PATH, or its path in
//! `PLINTH_TEST_MOTO_SERVER`). Without it the tests are skipped with a message;
//! with `PLINTH_TEST_MOTO_SERVER` set (as CI does) an emulator that does not
//! start fails them instead.

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use futures_util::TryStreamExt;
use object_store::aws::AmazonS3Builder;
use object_store::ObjectStore;
use plinth::config::StorageConfig;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, test_config, TestApp};
use crate::media::{png, upload, uploaded};

const BUCKET: &str = "plinth-files";
const PREFIX: &str = "cluster-a";
/// What the emulator accepts; any non-empty pair signs requests.
const ACCESS_KEY: &str = "plinth-test";
const SECRET_KEY: &str = "plinth-test-secret";
const MIB: usize = 1024 * 1024;

/// A moto server on a free port of 127.0.0.1, stopped when dropped.
struct Emulator {
    child: Child,
    endpoint: String,
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Emulator {
    /// `None` (after saying why) when no emulator is installed.
    async fn start() -> Option<Emulator> {
        let named = std::env::var("PLINTH_TEST_MOTO_SERVER").ok().filter(|p| !p.is_empty());
        let required = named.is_some();
        let program = named.unwrap_or_else(|| "moto_server".into());
        let skip = |why: String| {
            assert!(!required, "PLINTH_TEST_MOTO_SERVER={program}: {why}");
            eprintln!(
                "SKIPPED S3 storage test: {why}. Install the emulator with \
                 `pip install 'moto[server]==5.2.1'` (moto_server on PATH, or its path in PLINTH_TEST_MOTO_SERVER)"
            );
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(&program)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let mut emulator = match child {
            Ok(child) => Emulator { child, endpoint: format!("http://127.0.0.1:{port}") },
            Err(e) => {
                skip(format!("{program} could not be started ({e})"));
                return None;
            }
        };
        let client = reqwest::Client::new();
        for _ in 0..300 {
            if let Ok(Some(status)) = emulator.child.try_wait() {
                // A pyenv shim without moto behind it, say.
                skip(format!("{program} exited at once ({status})"));
                return None;
            }
            if client.get(&emulator.endpoint).send().await.is_ok_and(|r| r.status().is_success()) {
                let created = client.put(format!("{}/{BUCKET}", emulator.endpoint)).send().await.unwrap();
                assert!(created.status().is_success(), "creating the bucket: {}", created.status());
                return Some(emulator);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("{program} did not answer on {} within 30 s", emulator.endpoint);
    }

    /// What `PLINTH_STORAGE_URL` and the endpoint settings would configure.
    fn storage(&self) -> StorageConfig {
        StorageConfig {
            url: Some(format!("s3://{BUCKET}/{PREFIX}")),
            endpoint: Some(self.endpoint.clone()),
            region: Some("us-east-1".into()),
            access_key_id: Some(ACCESS_KEY.into()),
            secret_access_key: Some(SECRET_KEY.into()),
            // Left to the http:// endpoint to decide, as an operator would.
            allow_http: None,
        }
    }

    /// The bucket as another S3 client sees it, without Plinth's prefix.
    fn bucket(&self) -> Arc<dyn ObjectStore> {
        let store = AmazonS3Builder::new()
            .with_endpoint(&self.endpoint)
            .with_bucket_name(BUCKET)
            .with_region("us-east-1")
            .with_access_key_id(ACCESS_KEY)
            .with_secret_access_key(SECRET_KEY)
            .with_allow_http(true)
            .build()
            .unwrap();
        Arc::new(store)
    }

    /// Every key in the bucket.
    async fn keys(&self) -> Vec<String> {
        let listed: Vec<_> = self.bucket().list(None).try_collect().await.unwrap();
        let mut keys: Vec<String> = listed.into_iter().map(|meta| meta.location.to_string()).collect();
        keys.sort();
        keys
    }

    async fn object(&self, key: &str) -> Vec<u8> {
        let path = object_store::path::Path::from(format!("{PREFIX}/{key}"));
        self.bucket().get(&path).await.unwrap().bytes().await.unwrap().to_vec()
    }

    /// Multipart uploads begun and neither completed nor aborted.
    async fn open_uploads(&self) -> usize {
        let listing = reqwest::get(format!("{}/{BUCKET}?uploads", self.endpoint)).await.unwrap();
        listing.text().await.unwrap().matches("<UploadId>").count()
    }
}

/// Incompressible bytes a content sniffer calls a PDF.
fn pdf(len: usize) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut x: u32 = 0x2545_4446;
    while out.len() < len {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        out.push((x >> 24) as u8);
    }
    out
}

fn under(keys: &[String], dir: &str) -> Vec<String> {
    keys.iter().filter(|k| k.starts_with(&format!("{PREFIX}/{dir}"))).cloned().collect()
}

async fn get_range(app: &TestApp, url: &str, range: &str) -> reqwest::Response {
    app.client.get(url).header("Range", range).send().await.unwrap()
}

async fn inline_document(app: &TestApp, site: &str, name: &str, bytes: &[u8]) -> Value {
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    let body = json!({"document_type": "pdf", "file_data": data, "file_name": name, "mime_type": "application/pdf"});
    let res = app.post(&format!("/sites/{site}/documents"), &app.admin_key, body).await;
    assert_eq!(res.status(), 201);
    res.json().await.unwrap()
}

async fn wait_for_export(app: &TestApp, site: &str, job: &str) -> Value {
    for _ in 0..400 {
        let job: Value = app.get(&format!("/sites/{site}/export/{job}"), &app.admin_key).await.json().await.unwrap();
        if job["status"] == "ready" || job["status"] == "failed" {
            return job;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the export did not finish");
}

#[actix_web::test]
async fn media_documents_favicons_and_exports_live_in_the_bucket() {
    let Some(s3) = Emulator::start().await else { return };
    let app = TestApp::spawn_with(|c| c.storage = s3.storage()).await;
    let key = app.admin_key.clone();
    let site = app.create_site_with_module("on-s3", "documents").await;

    let health: Value = app.client.get(app.url("/health")).send().await.unwrap().json().await.unwrap();
    assert_eq!(
        (health["storage"]["provider"].as_str(), health["storage"]["status"].as_str()),
        (Some("s3"), Some("up")),
        "{health}"
    );
    assert!(health["storage"]["total_bytes"].is_null(), "no disk figures for a bucket: {health}");

    // A picture: original and variants in the bucket, none on local disk, no
    // temporary upload left; served with ranges.
    let picture = uploaded(&app, &site, "dot.png", png(300, 200)).await;
    let checksum = picture["checksum"].as_str().unwrap().to_string();
    let keys = s3.keys().await;
    let stored = under(&keys, &format!("media/{checksum}/"));
    assert!(stored.contains(&format!("{PREFIX}/media/{checksum}/original.png")), "{keys:?}");
    assert!(stored.len() > 1, "variants are stored beside the original: {keys:?}");
    assert!(under(&keys, "uploads/").is_empty(), "a temporary upload was left: {keys:?}");
    assert!(!app.state.config.data_dir.join("files").exists(), "files were written to local disk");
    let url = picture["public_url"].as_str().unwrap();
    let served = app.client.get(url).send().await.unwrap().bytes().await.unwrap();
    assert_eq!(served.to_vec(), s3.object(&format!("media/{checksum}/original.png")).await);
    let res = get_range(&app, url, "bytes=2-11").await;
    assert_eq!(res.status(), 206);
    assert_eq!(res.headers()["content-range"], format!("bytes 2-11/{}", served.len()));
    assert_eq!(res.bytes().await.unwrap().as_ref(), &served[2..12]);
    let res = get_range(&app, url, "bytes=-4").await;
    assert_eq!(res.bytes().await.unwrap().as_ref(), &served[served.len() - 4..]);
    assert_problem(get_range(&app, url, &format!("bytes={}-", served.len() + 5)).await, 416, "RANGE_NOT_SATISFIABLE")
        .await;

    // Past S3's 5 MiB least part size: a streamed upload of several parts.
    let manual = pdf(7 * MIB + 321);
    let record = uploaded(&app, &site, "manual.pdf", manual.clone()).await;
    let manual_url = record["public_url"].as_str().unwrap();
    assert_eq!(app.client.get(manual_url).send().await.unwrap().bytes().await.unwrap().to_vec(), manual);
    let res = get_range(&app, manual_url, &format!("bytes={}-{}", 5 * MIB - 10, 5 * MIB + 9)).await;
    assert_eq!(res.status(), 206);
    assert_eq!(res.bytes().await.unwrap().as_ref(), &manual[5 * MIB - 10..5 * MIB + 10]);
    // Refused after a part was sent: the multipart upload is aborted, not left billed.
    app.put(&format!("/sites/{site}/settings"), &key, json!({"max_media_file_size": 6 * MIB})).await;
    let res = upload(&app, &key, &[&site], "huge.pdf", pdf(6 * MIB + 1)).await;
    assert_problem(res, 400, "MEDIA_UPLOAD_TOO_LARGE").await;
    assert_eq!(s3.open_uploads().await, 0, "an unfinished multipart upload was left in the bucket");

    // A document, public then encrypted at rest (a streamed rewrite), with ranges.
    let terms = b"%PDF-1.4 the terms of service".to_vec();
    let doc = inline_document(&app, &site, "terms.pdf", &terms).await;
    let doc_id = doc["id"].as_str().unwrap().to_string();
    let download = app.url(&format!("/documents/{doc_id}/download"));
    assert_eq!(app.client.get(&download).send().await.unwrap().bytes().await.unwrap().to_vec(), terms);
    let res = get_range(&app, &download, "bytes=9-11").await;
    assert_eq!((res.status().as_u16(), res.bytes().await.unwrap().to_vec()), (206, b"the".to_vec()));
    let res = app.post(&format!("/documents/{doc_id}/privacy"), &key, json!({"password": "s3 secret words"})).await;
    assert_eq!(res.status(), 200);
    let token: Value = app
        .request(
            reqwest::Method::POST,
            &format!("/documents/{doc_id}/verify-access"),
            None,
            Some(json!({"password": "s3 secret words"})),
        )
        .await
        .json()
        .await
        .unwrap();
    let with_token = format!("{download}?token={}", token["access_token"].as_str().unwrap());
    assert_eq!(app.client.get(&with_token).send().await.unwrap().bytes().await.unwrap().to_vec(), terms);
    let documents = under(&s3.keys().await, "documents/");
    assert_eq!(documents.len(), 1, "only the encrypted copy stays: {documents:?}");

    // A favicon package; a new picture replaces it and the old objects go.
    let send_favicon = |bytes: Vec<u8>| {
        let form =
            reqwest::multipart::Form::new().part("file", reqwest::multipart::Part::bytes(bytes).file_name("logo.png"));
        app.client.post(app.url(&format!("/sites/{site}/favicon"))).header("X-API-Key", &key).multipart(form).send()
    };
    let package: Value = send_favicon(png(256, 256)).await.unwrap().json().await.unwrap();
    let icon_url = package["variants"][1]["url"].as_str().unwrap().to_string();
    let icon = app.client.get(&icon_url).send().await.unwrap();
    assert_eq!((icon.status().as_u16(), icon.headers()["content-type"].to_str().unwrap()), (200, "image/png"));
    let first_icons = under(&s3.keys().await, "favicons/");
    assert_eq!(first_icons.len(), package["variants"].as_array().unwrap().len(), "{first_icons:?}");
    send_favicon(png(64, 64)).await.unwrap();
    let icons = under(&s3.keys().await, "favicons/");
    assert!(icons.iter().all(|k| !first_icons.contains(k)), "old icons left: {icons:?}");
    assert_eq!(app.client.get(&icon_url).send().await.unwrap().status(), 404);

    // An export archive: built into the bucket, downloaded, gone after expiry.
    let job: Value = app.post(&format!("/sites/{site}/export"), &key, json!({})).await.json().await.unwrap();
    let done = wait_for_export(&app, &site, job["id"].as_str().unwrap()).await;
    assert_eq!(done["status"], "ready", "{done}");
    assert_eq!(under(&s3.keys().await, "exports/").len(), 1);
    let res = app.client.get(done["download_url"].as_str().unwrap()).header("X-API-Key", &key).send().await.unwrap();
    let archive = res.bytes().await.unwrap();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(archive.to_vec())).unwrap();
    let mut exported = Vec::new();
    zip.by_name(&format!("media/{checksum}.png")).unwrap().read_to_end(&mut exported).unwrap();
    assert_eq!(exported, served.to_vec());
    app.advance_and_run_janitor(chrono::Duration::days(8)).await;
    assert!(under(&s3.keys().await, "exports/").is_empty(), "an expired export stayed in the bucket");

    // Purging removes the objects.
    let id = picture["id"].as_str().unwrap();
    assert_eq!(app.delete(&format!("/media/{id}?force=true"), &key).await.status(), 204);
    assert_eq!(app.delete(&format!("/trash/{id}?entity_type=media"), &key).await.status(), 204);
    assert!(under(&s3.keys().await, &format!("media/{checksum}/")).is_empty(), "purged media stayed");
    assert_eq!(app.client.get(url).send().await.unwrap().status(), 404);
    assert_eq!(app.delete(&format!("/documents/{doc_id}"), &key).await.status(), 204);
    assert_eq!(app.delete(&format!("/trash/{doc_id}?entity_type=document"), &key).await.status(), 204);
    assert!(under(&s3.keys().await, "documents/").is_empty(), "a purged document stayed");
}

#[actix_web::test]
async fn instances_on_one_database_and_one_bucket_serve_each_others_files() {
    let Some(s3) = Emulator::start().await else { return };
    let app_a = TestApp::spawn_with(|c| c.storage = s3.storage()).await;
    let key = app_a.admin_key.clone();
    let site = app_a.create_site_with_module("shared", "documents").await;
    let picture_bytes = png(120, 80);
    let picture = uploaded(&app_a, &site, "shared.png", picture_bytes).await;
    let terms = b"%PDF-1.4 shared terms".to_vec();
    let doc = inline_document(&app_a, &site, "terms.pdf", &terms).await;

    let second = |storage: StorageConfig| {
        let dir = tempfile::tempdir().unwrap();
        let mut config = test_config(&dir, &app_a.database_url);
        config.bootstrap_api_key = Some(key.clone());
        config.storage = storage;
        TestApp::start(config, dir)
    };
    let app_b = second(s3.storage()).await;
    let on = |app: &TestApp, url: &str| format!("{}{}", app.base, url.strip_prefix(&app_a.base).unwrap());
    let url_a = picture["public_url"].as_str().unwrap();
    let from_a = app_a.client.get(url_a).send().await.unwrap().bytes().await.unwrap();
    let res = app_b.client.get(on(&app_b, url_a)).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.bytes().await.unwrap(), from_a);
    let res = get_range(&app_b, &on(&app_b, url_a), "bytes=0-7").await;
    assert_eq!((res.status().as_u16(), res.bytes().await.unwrap()), (206, from_a.slice(0..8)));
    let doc_id = doc["id"].as_str().unwrap();
    let res = app_b.client.get(app_b.url(&format!("/documents/{doc_id}/download"))).send().await.unwrap();
    assert_eq!(res.bytes().await.unwrap().to_vec(), terms);

    // The other way round: uploaded through B, served by A; purged through B, gone on A.
    let other = uploaded(&app_b, &site, "from-b.png", png(90, 90)).await;
    let url_b = other["public_url"].as_str().unwrap();
    let from_b = app_b.client.get(url_b).send().await.unwrap().bytes().await.unwrap();
    let on_a = format!("{}{}", app_a.base, url_b.strip_prefix(&app_b.base).unwrap());
    assert_eq!(app_a.client.get(&on_a).send().await.unwrap().bytes().await.unwrap(), from_b);
    let id = other["id"].as_str().unwrap();
    assert_eq!(app_b.delete(&format!("/media/{id}?force=true"), &key).await.status(), 204);
    assert_eq!(app_b.delete(&format!("/trash/{id}?entity_type=media"), &key).await.status(), 204);
    assert_eq!(app_a.client.get(&on_a).send().await.unwrap().status(), 404);

    // The control: an instance on the same database but its own local files
    // knows the records and has none of the bytes.
    let app_local = second(StorageConfig::default()).await;
    assert_eq!(app_local.client.get(on(&app_local, url_a)).send().await.unwrap().status(), 404);
}
