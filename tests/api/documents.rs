//! Documents over HTTP: links and inline files, the module gate, privacy with
//! encryption at rest, access tokens, the lock, expiry, recovery, attachments.

use base64::Engine;
use plinth_entities::document;
use reqwest::Method;
use sea_orm::EntityTrait;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};

const PASSWORD: &str = "correct horse battery";

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

async fn inline(app: &TestApp, site: &str, name: &str, bytes: &[u8]) -> Value {
    let body =
        json!({"document_type": "pdf", "file_data": b64(bytes), "file_name": name, "mime_type": "application/pdf"});
    let res = app.post(&format!("/sites/{site}/documents"), &app.admin_key, body).await;
    assert_eq!(res.status(), 201);
    res.json().await.unwrap()
}

async fn stored_bytes(app: &TestApp, id: &str) -> Vec<u8> {
    let row =
        document::Entity::find_by_id(id.parse::<uuid::Uuid>().unwrap()).one(&app.state.db).await.unwrap().unwrap();
    app.state.storage.get(row.storage_key.as_deref().unwrap()).await.unwrap().to_vec()
}

async fn verify(app: &TestApp, id: &str, password: &str) -> reqwest::Response {
    app.request(Method::POST, &format!("/documents/{id}/verify-access"), None, Some(json!({"password": password})))
        .await
}

async fn download(app: &TestApp, id: &str, token: Option<&str>) -> reqwest::Response {
    let query = token.map(|t| format!("?token={t}")).unwrap_or_default();
    app.client.get(app.url(&format!("/documents/{id}/download{query}"))).send().await.unwrap()
}

#[actix_web::test]
async fn documents_are_links_or_files_behind_the_module_gate() {
    let app = TestApp::spawn().await;
    let key = app.admin_key.clone();
    let off = app.create_site_id("docs-off").await;
    assert_problem(app.get(&format!("/sites/{off}/documents"), &key).await, 403, "MODULE_NOT_ENABLED").await;
    let site = app.create_site_with_module("docs", "documents").await;

    let link = app
        .post(
            &format!("/sites/{site}/documents"),
            &key,
            json!({"document_type": "pdf", "url": "https://example.org/guide.pdf"}),
        )
        .await;
    let link: Value = link.json().await.unwrap();
    assert_eq!(
        (link["has_file"].as_bool(), link["url"].as_str()),
        (Some(false), Some("https://example.org/guide.pdf"))
    );
    let file = inline(&app, &site, "terms.pdf", b"%PDF-1.4 terms").await;
    assert_eq!((file["file_size"].as_i64(), file["has_file"].as_bool()), (Some(14), Some(true)));
    let both = json!({"document_type": "pdf", "url": "https://example.org/x.pdf", "file_data": b64(b"x"), "file_name": "x.pdf"});
    assert_problem(app.post(&format!("/sites/{site}/documents"), &key, both).await, 422, "VALIDATION_ERROR").await;

    let id = file["id"].as_str().unwrap();
    let res = download(&app, id, None).await;
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-disposition"].to_str().unwrap().contains("terms.pdf"));
    assert_eq!(res.bytes().await.unwrap().as_ref(), b"%PDF-1.4 terms");
    let res = app
        .client
        .get(app.url(&format!("/documents/{id}/download")))
        .header("Range", "bytes=0-3")
        .send()
        .await
        .unwrap();
    assert_eq!((res.status().as_u16(), res.bytes().await.unwrap().as_ref()), (206, &b"%PDF"[..]));
    let no_redirects = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let res = no_redirects
        .get(app.url(&format!("/documents/{}/download", link["id"].as_str().unwrap())))
        .send()
        .await
        .unwrap();
    assert_eq!(
        (res.status().as_u16(), res.headers()["location"].to_str().unwrap()),
        (302, "https://example.org/guide.pdf")
    );
    let unknown = uuid::Uuid::new_v4();
    assert_problem(download(&app, &unknown.to_string(), None).await, 404, "ENTITY_NOT_FOUND").await;

    // Localizations, detail, update, size limit, trash.
    let locales: Value = app.get("/locales", &key).await.json().await.unwrap();
    let loc = app
        .post(&format!("/documents/{id}/localizations"), &key, json!({"locale_id": locales[0]["id"], "name": "Terms"}))
        .await;
    assert_eq!(loc.status(), 201);
    // Named by its code, a locale is the same one.
    let by_code = json!({"locale_id": locales[1]["code"], "name": "Bedingungen"});
    let loc: Value = app.post(&format!("/documents/{id}/localizations"), &key, by_code).await.json().await.unwrap();
    assert_eq!(loc["locale_id"], locales[1]["id"], "{loc}");
    let unknown_code = json!({"locale_id": "xx-none", "name": "Nope"});
    let res = app.post(&format!("/documents/{id}/localizations"), &key, unknown_code).await;
    let problem = assert_problem(res, 422, "VALIDATION_ERROR").await;
    assert!(problem["detail"].as_str().is_some_and(|d| d.contains("GET /locales")), "{problem}");
    let detail: Value = app.get(&format!("/documents/{id}/detail"), &key).await.json().await.unwrap();
    assert_eq!(detail["localizations"][0]["name"], "Terms");
    let plain: Value = app.get(&format!("/documents/{id}"), &key).await.json().await.unwrap();
    assert!(plain.get("localizations").is_none());
    let updated: Value =
        app.put(&format!("/documents/{id}"), &key, json!({"display_order": 3})).await.json().await.unwrap();
    assert_eq!(updated["display_order"], 3);
    app.put(&format!("/sites/{site}/settings"), &key, json!({"max_document_file_size": 1000})).await;
    let big = json!({"file_data": b64(&[7u8; 2000]), "file_name": "big.bin"});
    assert_problem(app.post(&format!("/sites/{site}/documents"), &key, big).await, 413, "PAYLOAD_TOO_LARGE").await;
    let reader = app.create_key("Read", Some(&site)).await;
    assert_problem(app.delete(&format!("/documents/{id}"), &reader).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
    assert_eq!(app.delete(&format!("/documents/{id}"), &key).await.status(), 204);
    let trash: Value = app.get(&format!("/sites/{site}/trash"), &key).await.json().await.unwrap();
    assert_eq!(trash["items"][0]["entity_type"], "document");
    assert_problem(download(&app, id, None).await, 404, "ENTITY_NOT_FOUND").await;
}

#[actix_web::test]
async fn a_private_document_is_ciphertext_at_rest_and_opens_with_its_password_only() {
    let app = TestApp::spawn().await;
    let key = app.admin_key.clone();
    let site = app.create_site_with_module("private-docs", "documents").await;
    let marker = b"CONFIDENTIAL-SALARY-TABLE";
    let plain: Vec<u8> = marker.iter().copied().cycle().take(1_000_000).collect();
    let doc = inline(&app, &site, "salaries.pdf", &plain).await;
    let id = doc["id"].as_str().unwrap().to_string();

    let res = app.post(&format!("/documents/{id}/privacy"), &key, json!({"password": PASSWORD})).await;
    assert_eq!(res.status(), 200);
    let private: Value = res.json().await.unwrap();
    assert_eq!(private["is_private"], true);
    let at_rest = stored_bytes(&app, &id).await;
    assert!(!at_rest.windows(marker.len()).any(|w| w == marker), "plaintext found in storage");
    assert!(at_rest.len() > plain.len());

    // Without a token: a problem for API clients, a password page for browsers.
    assert_problem(download(&app, &id, None).await, 401, "DOCUMENT_PASSWORD_REQUIRED").await;
    let page = app
        .client
        .get(app.url(&format!("/documents/{id}/download")))
        .header("Accept", "text/html")
        .send()
        .await
        .unwrap();
    assert!(page.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    assert!(page.text().await.unwrap().contains("verify-access"));
    assert_problem(download(&app, &id, Some("pdt_forged")).await, 401, "DOCUMENT_PASSWORD_REQUIRED").await;
    let res = app.request(Method::POST, &format!("/documents/{id}/verify-access"), None, Some(json!({}))).await;
    assert_problem(res, 401, "DOCUMENT_PASSWORD_REQUIRED").await;

    let token: Value = verify(&app, &id, PASSWORD).await.json().await.unwrap();
    let res = download(&app, &id, token["access_token"].as_str()).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.bytes().await.unwrap().as_ref(), plain.as_slice());

    // Three wrong passwords lock it; the right one no longer helps.
    assert_problem(verify(&app, &id, "wrong-1").await, 403, "DOCUMENT_PASSWORD_INCORRECT").await;
    assert_problem(verify(&app, &id, "wrong-2").await, 403, "DOCUMENT_PASSWORD_INCORRECT").await;
    assert_problem(verify(&app, &id, "wrong-3").await, 423, "DOCUMENT_LOCKED").await;
    assert_problem(verify(&app, &id, PASSWORD).await, 423, "DOCUMENT_LOCKED").await;
    assert_problem(download(&app, &id, token["access_token"].as_str()).await, 423, "DOCUMENT_LOCKED").await;
    let editor = app.create_key("Write", Some(&site)).await;
    assert_problem(
        app.post(&format!("/documents/{id}/unlock"), &editor, json!({})).await,
        403,
        "AUTH_INSUFFICIENT_ROLE",
    )
    .await;
    assert_eq!(app.post(&format!("/documents/{id}/unlock"), &key, json!({})).await.status(), 200);
    assert_problem(app.post(&format!("/documents/{id}/unlock"), &key, json!({})).await, 409, "DOCUMENT_NOT_LOCKED")
        .await;
    assert_eq!(verify(&app, &id, PASSWORD).await.status(), 200);

    // Public again with the password: the plaintext is back, the token is void.
    let res = app
        .request(
            Method::DELETE,
            &format!("/documents/{id}/privacy"),
            Some(&key),
            Some(json!({"password": "nope-nope"})),
        )
        .await;
    assert_problem(res, 403, "DOCUMENT_PASSWORD_INCORRECT").await;
    let res = app
        .request(Method::DELETE, &format!("/documents/{id}/privacy"), Some(&key), Some(json!({"password": PASSWORD})))
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(stored_bytes(&app, &id).await, plain);
    let res = download(&app, &id, None).await;
    assert_eq!(res.bytes().await.unwrap().as_ref(), plain.as_slice());
}

#[actix_web::test]
async fn privacy_rules_expiry_and_parallel_guesses() {
    let app = TestApp::spawn().await;
    let key = app.admin_key.clone();
    let site = app.create_site_with_module("privacy-rules", "documents").await;
    let link: Value = app
        .post(
            &format!("/sites/{site}/documents"),
            &key,
            json!({"document_type": "pdf", "url": "https://example.org/a.pdf"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let res = app
        .post(&format!("/documents/{}/privacy", link["id"].as_str().unwrap()), &key, json!({"password": PASSWORD}))
        .await;
    assert_problem(res, 400, "DOCUMENT_NOT_UPLOADABLE").await;
    let doc = inline(&app, &site, "a.pdf", b"secret text").await;
    let id = doc["id"].as_str().unwrap().to_string();
    let now = app.state.clock.now();
    for expires in [now - chrono::Duration::hours(1), now + chrono::Duration::days(400)] {
        let res = app
            .post(&format!("/documents/{id}/privacy"), &key, json!({"password": PASSWORD, "expires_at": expires}))
            .await;
        assert_problem(res, 400, "DOCUMENT_INVALID_TTL").await;
    }
    let author = app.create_key_with(json!({"name": "w", "permission": "Write", "site_id": site})).await;
    let expires = now + chrono::Duration::hours(2);
    let res = app
        .post(&format!("/documents/{id}/privacy"), &author, json!({"password": PASSWORD, "expires_at": expires}))
        .await;
    assert_eq!(res.status(), 200);

    // Three wrong guesses at once: each is counted, exactly one locks.
    let guesses =
        futures_util::future::join_all((0..3).map(|i| verify(&app, &id, if i == 0 { "bad-a" } else { "bad-b" }))).await;
    let mut statuses: Vec<u16> = guesses.iter().map(|r| r.status().as_u16()).collect();
    statuses.sort();
    assert_eq!(statuses, [403, 403, 423]);
    app.post(&format!("/documents/{id}/unlock"), &key, json!({})).await;

    // The window ends.
    app.clock.advance(chrono::Duration::hours(3));
    assert_problem(verify(&app, &id, PASSWORD).await, 410, "DOCUMENT_EXPIRED").await;
    assert_problem(download(&app, &id, None).await, 410, "DOCUMENT_EXPIRED").await;
}

#[actix_web::test]
async fn the_operator_key_recovers_a_document_without_its_password() {
    let with_key = TestApp::spawn_with(|c| c.document_encryption_key = Some("ab".repeat(32))).await;
    let site = with_key.create_site_with_module("recovery", "documents").await;
    let doc = inline(&with_key, &site, "r.pdf", b"recoverable").await;
    let id = doc["id"].as_str().unwrap().to_string();
    with_key.post(&format!("/documents/{id}/privacy"), &with_key.admin_key, json!({"password": PASSWORD})).await;
    let res =
        with_key.request(Method::DELETE, &format!("/documents/{id}/privacy"), Some(&with_key.admin_key), None).await;
    assert_eq!(res.status(), 200);
    assert_eq!(stored_bytes(&with_key, &id).await, b"recoverable");

    let without = TestApp::spawn().await;
    let site = without.create_site_with_module("no-recovery", "documents").await;
    let doc = inline(&without, &site, "r.pdf", b"only with password").await;
    let id = doc["id"].as_str().unwrap().to_string();
    without.post(&format!("/documents/{id}/privacy"), &without.admin_key, json!({"password": PASSWORD})).await;
    let res =
        without.request(Method::DELETE, &format!("/documents/{id}/privacy"), Some(&without.admin_key), None).await;
    assert_problem(res, 401, "DOCUMENT_PASSWORD_REQUIRED").await;
}

#[actix_web::test]
async fn blog_attachments_and_isolation() {
    let app = TestApp::spawn().await;
    let key = app.admin_key.clone();
    let site = app.create_site_with_module("attach", "documents").await;
    let other = app.create_site_with_module("attach-other", "documents").await;
    let doc = inline(&app, &site, "brochure.pdf", b"brochure").await;
    let foreign_doc = inline(&app, &other, "theirs.pdf", b"theirs").await;
    let post: Value =
        app.post("/blogs", &key, json!({"site_ids": [site], "title": "Launch"})).await.json().await.unwrap();
    let post_id = post["id"].as_str().unwrap();
    let path = format!("/blogs/{post_id}/documents");
    let doc_id = doc["id"].as_str().unwrap();
    let named = json!({"locale_id": "en", "name": "Brochure"});
    assert_eq!(app.post(&format!("/documents/{doc_id}/localizations"), &key, named).await.status(), 201);
    let res = app.post(&path, &key, json!({"document_id": doc["id"], "display_order": 1})).await;
    assert_eq!(res.status(), 201);
    // The document's type, file and names beside the attachment, as the origin admin reads them.
    let attached: Value = res.json().await.unwrap();
    assert_eq!(
        (&attached["document_type"], &attached["has_file"], &attached["file_name"], &attached["url"]),
        (&json!("pdf"), &json!(true), &json!("brochure.pdf"), &Value::Null)
    );
    assert_eq!(attached["localizations"][0]["name"], "Brochure");
    assert_problem(app.post(&path, &key, json!({"document_id": doc["id"]})).await, 409, "CONFLICT").await;
    assert_problem(app.post(&path, &key, json!({"document_id": foreign_doc["id"]})).await, 422, "VALIDATION_ERROR")
        .await;
    let listed: Value = app.get(&path, &key).await.json().await.unwrap();
    assert_eq!(listed[0]["document"]["file_name"], "brochure.pdf");
    assert_eq!((&listed[0]["has_file"], &listed[0]["localizations"]), (&json!(true), &attached["localizations"]));
    let detail: Value = app.get(&format!("/blogs/{post_id}/detail"), &key).await.json().await.unwrap();
    assert_eq!(detail["documents"][0]["document_id"], doc["id"]);
    assert_eq!(app.delete(&format!("{path}/{}", doc["id"].as_str().unwrap()), &key).await.status(), 204);
    let listed: Value = app.get(&path, &key).await.json().await.unwrap();
    assert_eq!(listed, json!([]));

    let foreign = app.create_key("Admin", Some(&other)).await;
    let id = doc["id"].as_str().unwrap();
    for res in [
        app.get(&format!("/documents/{id}"), &foreign).await,
        app.put(&format!("/documents/{id}"), &foreign, json!({"display_order": 9})).await,
        app.delete(&format!("/documents/{id}"), &foreign).await,
        app.post(&format!("/documents/{id}/privacy"), &foreign, json!({"password": PASSWORD})).await,
        app.get(&format!("/sites/{site}/documents"), &foreign).await,
        app.get(&format!("/sites/{site}/document-folders"), &foreign).await,
        app.get(&path, &foreign).await,
    ] {
        assert_eq!(res.status(), 403, "{}", res.url());
    }
    // Folders of the document library are their own.
    let folder: Value = app
        .post(&format!("/sites/{site}/document-folders"), &key, json!({"name": "Guides"}))
        .await
        .json()
        .await
        .unwrap();
    let media_folders: Value = app.get(&format!("/sites/{site}/media-folders"), &key).await.json().await.unwrap();
    assert_eq!(media_folders, json!([]));
    let moved = app.put(&format!("/documents/{id}"), &key, json!({"folder_id": folder["id"]})).await;
    assert_eq!(moved.json::<Value>().await.unwrap()["folder_id"], folder["id"]);
    assert_eq!(app.delete(&format!("/document-folders/{}", folder["id"].as_str().unwrap()), &key).await.status(), 204);
}
