//! Edit leases: take, renew, refuse, take over, release and expire, each told
//! on the site's event stream and none sent to webhooks; across two
//! instances on PostgreSQL.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::event_stream::{next_event, open_stream};
use crate::helpers::{assert_problem, TestApp};

async fn lease(app: &TestApp, method: Method, post: &str, key: &str, body: Option<Value>) -> reqwest::Response {
    app.request(method, &format!("/blogs/{post}/lease"), Some(key), body).await
}

/// The stream's next lease event (the post's own changes are on it too), and
/// the lease it carries.
async fn next_lease_event(events: &mut crate::event_stream::Events) -> (String, Value) {
    loop {
        let (_, name, body) = tokio::time::timeout(Duration::from_secs(5), next_event(events)).await.unwrap();
        if name.starts_with("lease.") {
            return (name, body["data"].clone());
        }
    }
}

async fn live_leases(app: &TestApp, site: &str, key: &str) -> Vec<Value> {
    let res = app.get(&format!("/sites/{site}/leases"), key).await;
    assert_eq!(res.status(), 200);
    res.json::<Vec<Value>>().await.unwrap()
}

#[actix_web::test]
async fn a_lease_is_taken_renewed_refused_taken_over_released_and_expires() {
    let receiver = crate::receiver::Receiver::start();
    let allowed = vec![receiver.host_port.clone()];
    let app = TestApp::spawn_with(move |c| c.ssrf_allowlist = allowed).await;
    let site = app.create_site_id("leases").await;
    // A webhook for every event: leases are presence, not sent to it.
    let hook = app.post(&format!("/sites/{site}/webhooks"), &app.admin_key, json!({"url": receiver.url})).await;
    assert_eq!(hook.status(), 201);
    let post = app.create_post(&site, "Shared").await["id"].as_str().unwrap().to_string();
    let (first, second) = (app.admin_key.clone(), app.create_key("Admin", Some(&site)).await);
    let mut stream = open_stream(&app, &site, &first, None).await;

    // Taken, for 30 s unless asked otherwise.
    let res = lease(&app, Method::POST, &post, &first, None).await;
    assert_eq!(res.status(), 200);
    let taken: Value = res.json().await.unwrap();
    let (at, until) = (taken["taken_at"].as_str().unwrap(), taken["expires_at"].as_str().unwrap());
    let span = chrono::DateTime::parse_from_rfc3339(until).unwrap() - chrono::DateTime::parse_from_rfc3339(at).unwrap();
    assert_eq!(span.num_seconds(), 30, "{taken}");
    assert_eq!((taken["item_type"].as_str(), taken["item_id"].as_str()), (Some("blog"), Some(post.as_str())));
    let holder = taken["holder"].as_str().unwrap().to_string();
    assert!(holder.starts_with("api_key:"), "{taken}");
    let (name, data) = next_lease_event(&mut stream).await;
    assert_eq!((name.as_str(), data["item_id"].as_str()), ("lease.taken", Some(post.as_str())));

    // Renewed by its holder: the same lease, longer.
    let renewed: Value =
        lease(&app, Method::POST, &post, &first, Some(json!({"ttl_secs": 60}))).await.json().await.unwrap();
    assert_eq!(renewed["taken_at"], taken["taken_at"]);
    assert!(renewed["expires_at"].as_str().unwrap() > until, "{renewed}");
    assert_eq!(next_lease_event(&mut stream).await.0, "lease.renewed");

    // Refused to another caller, who is told who and since when.
    let problem = assert_problem(lease(&app, Method::POST, &post, &second, None).await, 423, "LEASE_HELD").await;
    assert_eq!(problem["lease"]["holder"], holder.as_str(), "{problem}");
    assert_eq!(problem["lease"]["taken_at"], taken["taken_at"]);
    let listed = live_leases(&app, &site, &second).await;
    assert_eq!((listed.len(), listed[0]["holder"].as_str()), (1, Some(holder.as_str())));

    // Advisory: a save by the other caller still goes through.
    let saved = app.put(&format!("/blogs/{post}"), &second, json!({"excerpt": "while leased"})).await;
    assert_eq!(saved.status(), 200);

    // Taken over; the holder hears of it.
    let over: Value =
        lease(&app, Method::POST, &post, &second, Some(json!({"takeover": true}))).await.json().await.unwrap();
    assert_ne!(over["holder"].as_str(), Some(holder.as_str()));
    let (name, data) = next_lease_event(&mut stream).await;
    assert_eq!((name.as_str(), data["previous_holder"].as_str()), ("lease.taken_over", Some(holder.as_str())));

    // Only its holder releases it.
    assert_problem(lease(&app, Method::DELETE, &post, &first, None).await, 423, "LEASE_HELD").await;
    assert_eq!(lease(&app, Method::DELETE, &post, &second, None).await.status(), 204);
    assert_eq!(next_lease_event(&mut stream).await.0, "lease.released");
    assert!(live_leases(&app, &site, &first).await.is_empty());
    assert_eq!(lease(&app, Method::DELETE, &post, &second, None).await.status(), 204, "nothing to release");

    // A lease nobody renews ends by itself; whoever asks next takes it.
    let res = lease(&app, Method::POST, &post, &first, Some(json!({"ttl_secs": 5}))).await;
    assert_eq!(res.status(), 200);
    app.clock.advance(chrono::Duration::seconds(6));
    assert!(live_leases(&app, &site, &second).await.is_empty(), "expired");
    assert_eq!(lease(&app, Method::POST, &post, &second, None).await.status(), 200);
    let res = lease(&app, Method::POST, &post, &second, Some(json!({"ttl_secs": 1}))).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;

    // The webhook saw the post's changes, no lease.
    app.settle().await;
    let events: Vec<String> =
        receiver.received().iter().map(|r| r.body["event"].as_str().unwrap_or_default().to_string()).collect();
    assert!(
        events.iter().any(|e| e == "blog.updated") && !events.iter().any(|e| e.starts_with("lease.")),
        "{events:?}"
    );
}

/// Menus, menu items, documents, redirects and social links have leases of
/// their own, on the same list and stream, for whoever may change them (a
/// Write key: Editor).
#[actix_web::test]
async fn menus_menu_items_documents_redirects_and_social_links_are_leased_like_content() {
    let app = TestApp::spawn().await;
    let site = app.create_site_with_module("row-leases", "documents").await;
    let menu = app.post(&format!("/sites/{site}/menus"), &app.admin_key, json!({"name": "Main"})).await;
    let menu = menu.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    let item = app.post(&format!("/menus/{menu}/items"), &app.admin_key, json!({"label": "Home", "url": "/"})).await;
    let item = item.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    let doc = json!({"url": "https://example.org/terms.pdf", "document_type": "pdf"});
    let doc = app.post(&format!("/sites/{site}/documents"), &app.admin_key, doc).await;
    assert_eq!(doc.status(), 201);
    let doc = doc.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    let redirect = json!({"source_path": "/old", "destination": "/new"});
    let redirect = app.post(&format!("/sites/{site}/redirects"), &app.admin_key, redirect).await;
    let redirect = redirect.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    let link = json!({"url": "https://example.org/acme", "label": "Acme"});
    let link = app.post(&format!("/sites/{site}/social-links"), &app.admin_key, link).await;
    let link = link.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    let (first, second) = (app.create_key("Write", Some(&site)).await, app.create_key("Admin", Some(&site)).await);
    let reader = app.create_key("Read", Some(&site)).await;
    let mut stream = open_stream(&app, &site, &app.admin_key, None).await;
    let leased = [
        ("menu", format!("/menus/{menu}/lease")),
        ("menu_item", format!("/navigation/{item}/lease")),
        ("document", format!("/documents/{doc}/lease")),
        ("redirect", format!("/redirects/{redirect}/lease")),
        ("social", format!("/social-links/{link}/lease")),
    ];
    for (kind, path) in &leased {
        let res = app.request(Method::POST, path, Some(&first), Some(json!({}))).await;
        assert_eq!(res.status(), 200, "{path}");
        let taken: Value = res.json().await.unwrap();
        assert_eq!(taken["item_type"], *kind, "{taken}");
        assert_eq!(taken["site_ids"], json!([site]));
        let (name, data) = next_lease_event(&mut stream).await;
        assert_eq!((name.as_str(), &data["item_type"]), ("lease.taken", &json!(kind)));
        let refused = app.request(Method::POST, path, Some(&second), None).await;
        let problem = assert_problem(refused, 423, "LEASE_HELD").await;
        assert_eq!(problem["lease"]["holder"], taken["holder"]);
        let res = app.request(Method::POST, path, Some(&reader), None).await;
        assert_eq!(res.status(), 403, "a Read key may not edit, so may not lease");
    }
    let listed: Vec<String> = live_leases(&app, &site, &second)
        .await
        .iter()
        .map(|lease| lease["item_type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed.len(), leased.len(), "{listed:?}");
    for (_, path) in &leased {
        assert_eq!(app.request(Method::DELETE, path, Some(&first), None).await.status(), 204);
        assert_eq!(next_lease_event(&mut stream).await.0, "lease.released");
    }
    assert!(live_leases(&app, &site, &second).await.is_empty());
}

/// A webhook's lease is for whoever may change it: an Admin of its site,
/// not an Editor.
#[actix_web::test]
async fn a_webhook_is_leased_by_its_sites_admins() {
    let receiver = crate::receiver::Receiver::start();
    let allowed = receiver.host_port.clone();
    let app = TestApp::spawn_with(move |c| c.ssrf_allowlist = vec![allowed]).await;
    let site = app.create_site_id("webhook-lease").await;
    let hook = json!({"url": receiver.url, "events": ["blog.created"]});
    let hook = app.post(&format!("/sites/{site}/webhooks"), &app.admin_key, hook).await;
    assert_eq!(hook.status(), 201);
    let hook = hook.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    let path = format!("/webhooks/{hook}/lease");
    let (admin, editor) = (app.create_key("Admin", Some(&site)).await, app.create_key("Write", Some(&site)).await);
    let res = app.request(Method::POST, &path, Some(&admin), None).await;
    assert_eq!(res.status(), 200);
    let taken: Value = res.json().await.unwrap();
    assert_eq!((&taken["item_type"], &taken["item_id"]), (&json!("webhook"), &json!(hook)));
    assert_problem(app.request(Method::POST, &path, Some(&editor), None).await, 403, "AUTH_INSUFFICIENT_ROLE").await;
    let other_admin = app.create_key("Admin", Some(&site)).await;
    assert_problem(app.request(Method::POST, &path, Some(&other_admin), None).await, 423, "LEASE_HELD").await;
    assert_eq!(app.request(Method::DELETE, &path, Some(&admin), None).await.status(), 204);
    assert!(live_leases(&app, &site, &admin).await.is_empty());
}

/// A form and a media file are leased by whoever may change them (a Write
/// key: Editor), a site's settings by its Admins; a file on two sites shows
/// on both sites' lists, and a form's lease is refused while its site's forms
/// module is off.
#[actix_web::test]
async fn forms_media_files_and_site_settings_are_leased_by_whoever_may_change_them() {
    let app = TestApp::spawn().await;
    let site = app.create_site_with_module("more-leases", "forms").await;
    let other = app.create_site_id("more-leases-too").await;
    let form = crate::forms::create_form(&app, &site, crate::forms::contact_form("contact")).await;
    let form = form["id"].as_str().unwrap().to_string();
    let file = json!({"filename": "talk.mp4", "public_url": "https://cdn.example.org/talk.mp4", "file_size": 1000,
        "site_ids": [site, other]});
    let file = app.post("/media", &app.admin_key, file).await;
    assert_eq!(file.status(), 201);
    let file = file.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    let (editor, admin) = (app.create_key("Write", Some(&site)).await, app.create_key("Admin", Some(&site)).await);
    let (reader, other_admin) =
        (app.create_key("Read", Some(&site)).await, app.create_key("Admin", Some(&other)).await);
    let both_sites_editor = app.create_key_with(json!({"name": "both", "permission": "Write"})).await;
    let settings = format!("/sites/{site}/settings/lease");
    let leased = [
        ("form", format!("/forms/{form}/lease"), &editor, vec![site.clone()]),
        ("media", format!("/media/{file}/lease"), &both_sites_editor, vec![site.clone(), other.clone()]),
        ("site_settings", settings.clone(), &admin, vec![site.clone()]),
    ];
    for (kind, path, holder, sites) in &leased {
        let res = app.request(Method::POST, path, Some(holder), None).await;
        assert_eq!(res.status(), 200, "{path}");
        let taken: Value = res.json().await.unwrap();
        let mut expected = sites.clone();
        expected.sort();
        assert_eq!((&taken["item_type"], &taken["site_ids"]), (&json!(kind), &json!(expected)), "{taken}");
        assert_problem(app.request(Method::POST, path, Some(&app.admin_key), None).await, 423, "LEASE_HELD").await;
        assert_eq!(app.request(Method::POST, path, Some(&reader), None).await.status(), 403, "{path}");
    }
    // The file's lease shows on its other site too; that site's Admin may
    // not change it (it is on a site they are not on), so may not lease it.
    let on_other: Vec<Value> = live_leases(&app, &other, &other_admin).await;
    assert_eq!(on_other.len(), 1, "{on_other:?}");
    assert_eq!(on_other[0]["item_id"], json!(file));
    assert_eq!(
        app.request(Method::POST, &format!("/media/{file}/lease"), Some(&other_admin), None).await.status(),
        403
    );
    // A site that is not there has no settings to lease, whoever asks.
    let nowhere = format!("/sites/{}/settings/lease", uuid::Uuid::new_v4());
    assert_eq!(app.request(Method::POST, &nowhere, Some(&app.admin_key), None).await.status(), 404);
    // Settings are an Admin's: an Editor may not lease them.
    let refused = app.request(Method::POST, &settings, Some(&editor), None).await;
    assert_problem(refused, 403, "AUTH_INSUFFICIENT_ROLE").await;
    assert_eq!(live_leases(&app, &site, &reader).await.len(), leased.len());
    for (_, path, holder, _) in &leased {
        assert_eq!(app.request(Method::DELETE, path, Some(holder), None).await.status(), 204, "{path}");
    }
    assert!(live_leases(&app, &site, &reader).await.is_empty());
    // With the forms module off, the form is not found, and neither is its lease.
    let off = app.put(&format!("/sites/{site}/settings"), &app.admin_key, json!({"module_forms_enabled": false})).await;
    assert_eq!(off.status(), 200);
    let res = app.request(Method::POST, &format!("/forms/{form}/lease"), Some(&editor), None).await;
    assert_eq!(res.status(), 404);
}

#[actix_web::test]
async fn a_lease_taken_on_one_instance_is_seen_and_held_on_the_other() {
    let first = TestApp::spawn().await;
    if !first.database_url.starts_with("postgres") {
        eprintln!("one instance on SQLite: set PLINTH_TEST_DATABASE_URL to run the two-instance lease test");
        return;
    }
    let second = crate::instances::second_instance(&first, |_| {}).await;
    let site = first.create_site_id("leases-two").await;
    let post = first.create_post(&site, "Shared").await["id"].as_str().unwrap().to_string();
    let other_key = first.create_key("Admin", Some(&site)).await;
    let mut stream = open_stream(&second, &site, &second.admin_key, None).await;

    assert_eq!(lease(&first, Method::POST, &post, &first.admin_key, None).await.status(), 200);
    let (name, data) = next_lease_event(&mut stream).await;
    assert_eq!((name.as_str(), data["item_id"].as_str()), ("lease.taken", Some(post.as_str())));
    assert_eq!(live_leases(&second, &site, &other_key).await.len(), 1);
    assert_problem(lease(&second, Method::POST, &post, &other_key, None).await, 423, "LEASE_HELD").await;
}

/// Renewals and the presence list stay index reads however many leases
/// there are: an item's rows by the primary key, a site's live ones by
/// `ix_edit_leases_live` in the list's order, at 100,000 leases (a site with
/// many open editors, and many ended leases kept until their item is leased
/// again).
#[actix_web::test]
async fn renewals_and_the_presence_list_read_leases_by_index_at_100_000_rows() {
    use sea_orm::{ConnectionTrait, DbBackend, QueryTrait};
    let app = TestApp::spawn().await;
    let db = &app.state.db;
    let backend = db.get_database_backend();
    let site: uuid::Uuid = app.create_site_id("lease-plans").await.parse().unwrap();
    let site_value = match backend {
        DbBackend::Postgres => format!("'{site}'"),
        _ => format!("X'{}'", site.simple()),
    };
    crate::family_plans::fill(db, "edit_leases", &(1..=100_000), &[("site_id", site_value)]).await;
    if backend == DbBackend::Postgres {
        db.execute_unprepared("ANALYZE edit_leases").await.unwrap();
    }
    let item = uuid::Uuid::new_v4();
    let now = chrono::Utc::now();
    let cases = [
        (
            "an item's lease (a renewal's read and update)",
            plinth::leases::of_item(item).build(backend),
            "edit_leases_pkey|sqlite_autoindex_edit_leases_1",
        ),
        ("a site's live leases", plinth::leases::live_on_site(site, now).build(backend), "ix_edit_leases_live"),
    ];
    let mut wrong = Vec::new();
    for (name, statement, index) in cases {
        let sql = statement.to_string();
        let plan = crate::listing::plan_of(db, &sql).await;
        let names_index =
            plan.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|word| index.split('|').any(|i| i == word));
        if !names_index || plan.contains("Sort") || plan.contains("TEMP B-TREE") || plan.contains("Seq Scan") {
            wrong.push(format!("{name}: expected a range of {index}, no sort:\n{sql}\n{plan}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}
