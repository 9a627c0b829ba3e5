//! `/idp/users*` against a real local HTTP server playing a Clerk-compatible
//! user-management API.

use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};
use crate::idp::{add_member, app_with_idp, jwk, user_token, JwksServer, AUDIENCE, ISSUER};

const SECRET: &str = "sk_test_matrix";

/// The provider's users, in Clerk's shapes (millisecond timestamps).
struct FakeProvider {
    url: String,
    users: Arc<Mutex<Vec<Value>>>,
}

fn clerk_user(id: &str, first: &str, created_ms: i64) -> Value {
    json!({
        "id": id, "first_name": first, "last_name": "Tester", "image_url": format!("https://img.example/{id}.png"),
        "email_addresses": [{"id": format!("em_{id}"), "email_address": format!("{id}@example.org")}],
        "primary_email_address_id": format!("em_{id}"),
        "public_metadata": {}, "created_at": created_ms, "updated_at": created_ms, "last_sign_in_at": created_ms + 5_000
    })
}

impl FakeProvider {
    fn start(users: Vec<Value>) -> FakeProvider {
        let users = Arc::new(Mutex::new(users));
        let shared = Arc::clone(&users);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let server = HttpServer::new(move || {
            let users = Arc::clone(&shared);
            App::new().app_data(web::Data::new(users)).service(
                web::scope("/v1")
                    .route("/users", web::get().to(list))
                    .route("/users/count", web::get().to(count))
                    .route("/users/{id}", web::get().to(get))
                    .route("/users/{id}", web::delete().to(remove))
                    .route("/users/{id}/metadata", web::patch().to(metadata)),
            )
        })
        .workers(1)
        .disable_signals()
        .listen(listener)
        .unwrap()
        .run();
        actix_web::rt::spawn(server);
        FakeProvider { url, users }
    }
}

type Users = web::Data<Arc<Mutex<Vec<Value>>>>;

fn authorized(req: &HttpRequest) -> bool {
    req.headers().get("authorization").and_then(|v| v.to_str().ok()) == Some(&format!("Bearer {SECRET}"))
}

/// Clerk's `GET /users`: `limit`, `offset`, and `user_id` once per id to keep.
async fn list(req: HttpRequest, users: Users, query: web::Query<Vec<(String, String)>>) -> HttpResponse {
    if !authorized(&req) {
        return HttpResponse::Unauthorized().finish();
    }
    let number = |name: &str| query.iter().find(|(k, _)| k == name).and_then(|(_, v)| v.parse().ok());
    let (limit, offset): (usize, usize) = (number("limit").unwrap_or(10), number("offset").unwrap_or(0));
    let wanted: Vec<&str> = query.iter().filter(|(k, _)| k == "user_id").map(|(_, v)| v.as_str()).collect();
    let page: Vec<Value> = users
        .lock()
        .unwrap()
        .iter()
        .filter(|u| wanted.is_empty() || wanted.contains(&u["id"].as_str().unwrap_or_default()))
        .skip(offset)
        .take(limit)
        .cloned()
        .collect();
    HttpResponse::Ok().json(page)
}

async fn count(req: HttpRequest, users: Users) -> HttpResponse {
    if !authorized(&req) {
        return HttpResponse::Unauthorized().finish();
    }
    HttpResponse::Ok().json(json!({"object": "total_count", "total_count": users.lock().unwrap().len()}))
}

async fn get(req: HttpRequest, users: Users, id: web::Path<String>) -> HttpResponse {
    if !authorized(&req) {
        return HttpResponse::Unauthorized().finish();
    }
    match users.lock().unwrap().iter().find(|u| u["id"] == *id) {
        Some(user) => HttpResponse::Ok().json(user),
        None => HttpResponse::NotFound().json(json!({"errors": [{"code": "resource_not_found"}]})),
    }
}

async fn remove(req: HttpRequest, users: Users, id: web::Path<String>) -> HttpResponse {
    if !authorized(&req) {
        return HttpResponse::Unauthorized().finish();
    }
    let mut users = users.lock().unwrap();
    let before = users.len();
    users.retain(|u| u["id"] != *id);
    if users.len() < before {
        HttpResponse::Ok().json(json!({"id": *id, "deleted": true}))
    } else {
        HttpResponse::NotFound().finish()
    }
}

async fn metadata(req: HttpRequest, users: Users, id: web::Path<String>, body: web::Json<Value>) -> HttpResponse {
    if !authorized(&req) {
        return HttpResponse::Unauthorized().finish();
    }
    let mut users = users.lock().unwrap();
    match users.iter_mut().find(|u| u["id"] == *id) {
        Some(user) => {
            user["public_metadata"] = body["public_metadata"].clone();
            HttpResponse::Ok().json(user.clone())
        }
        None => HttpResponse::NotFound().finish(),
    }
}

async fn app_with_provider(jwks: &JwksServer, provider: &FakeProvider, secret: &str) -> TestApp {
    let (jwks_url, api_url, secret) = (jwks.url.clone(), provider.url.clone(), secret.to_string());
    TestApp::spawn_with(move |c| {
        c.idp.jwks_url = Some(jwks_url);
        c.idp.issuer = Some(ISSUER.into());
        c.idp.audience = Some(AUDIENCE.into());
        c.idp.api_url = Some(api_url);
        c.idp.secret_key = Some(secret);
        c.system_admins = vec!["root".into()];
    })
    .await
}

#[actix_web::test]
async fn site_admins_list_read_and_set_roles_of_provider_users() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let provider = FakeProvider::start(vec![
        clerk_user("user_a", "Ada", 1_700_000_000_000),
        clerk_user("user_b", "Bob", 1_700_000_100_000),
        clerk_user("user_c", "Cy", 1_700_000_200_000),
    ]);
    let app = app_with_provider(&jwks, &provider, SECRET).await;
    let site = app.create_site_id("idp").await;
    add_member(&app, &site, "site_admin", "admin").await;
    add_member(&app, &site, "site_editor", "editor").await;
    let admin = user_token("site_admin");

    let page: Value = app.bearer(Method::GET, "/idp/users?limit=2&offset=1", &admin, None).await.json().await.unwrap();
    assert_eq!(page["total_count"], 3);
    let ids: Vec<&str> = page["data"].as_array().unwrap().iter().map(|u| u["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["user_b", "user_c"]);
    assert_eq!(
        page["data"][0],
        json!({"id": "user_b", "email": "user_b@example.org", "name": "Bob Tester", "image_url": "https://img.example/user_b.png",
               "role": null, "created_at": 1_700_000_100, "updated_at": 1_700_000_100, "last_sign_in_at": 1_700_000_105,
               "moderation_status": "active", "moderation_reason": null}),
        "epoch seconds on the wire"
    );

    // Moderation state is joined in.
    let ban = Some(json!({"reason": "fraud"}));
    assert_eq!(app.bearer(Method::POST, "/admin/users/user_a/ban", &user_token("root"), ban).await.status(), 200);
    let one: Value = app.bearer(Method::GET, "/idp/users/user_a", &admin, None).await.json().await.unwrap();
    assert_eq!((one["moderation_status"].as_str(), one["moderation_reason"].as_str()), (Some("banned"), Some("fraud")));

    let res = app.bearer(Method::PUT, "/idp/users/user_c/role", &admin, Some(json!({"role": "editor"}))).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap()["role"], "editor");
    assert_eq!(provider.users.lock().unwrap()[2]["public_metadata"]["role"], "editor", "stored at the provider");
    let res = app.bearer(Method::PUT, "/idp/users/user_c/role", &admin, Some(json!({"role": "superuser"}))).await;
    assert_problem(res, 422, "IDP_INVALID_ROLE").await;

    assert_problem(app.bearer(Method::GET, "/idp/users/user_zz", &admin, None).await, 404, "IDP_USER_NOT_FOUND").await;
    assert_problem(app.bearer(Method::GET, "/idp/users/a%2Fb", &admin, None).await, 400, "IDP_INVALID_IDENTIFIER")
        .await;
    let editor = user_token("site_editor");
    assert_problem(app.bearer(Method::GET, "/idp/users", &editor, None).await, 403, "AUTH_INSUFFICIENT_ROLE").await;

    // Deleting a banned user deletes the provider account too.
    let res = app.bearer(Method::DELETE, "/admin/users/user_a", &user_token("root"), None).await;
    assert_eq!(res.status(), 200);
    assert!(provider.users.lock().unwrap().iter().all(|u| u["id"] != "user_a"));
}

#[actix_web::test]
async fn provider_failures_and_missing_configuration_have_their_codes() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let unconfigured = app_with_idp(&jwks, &["root"]).await;
    let res = unconfigured.bearer(Method::GET, "/idp/users", &user_token("root"), None).await;
    assert_problem(res, 500, "IDP_NOT_CONFIGURED").await;

    let provider = FakeProvider::start(vec![clerk_user("user_a", "Ada", 1_700_000_000_000)]);
    let wrong_secret = app_with_provider(&jwks, &provider, "sk_wrong").await;
    let res = wrong_secret.get("/idp/users", &wrong_secret.admin_key).await;
    assert_problem(res, 500, "IDP_API_FAILED").await;
}

#[actix_web::test]
async fn the_member_list_shows_each_members_name_email_and_picture_from_the_provider() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let provider = FakeProvider::start(vec![
        clerk_user("user_a", "Ada", 1_700_000_000_000),
        clerk_user("user_b", "Bob", 1_700_000_100_000),
    ]);
    let app = app_with_provider(&jwks, &provider, SECRET).await;
    let site = app.create_site_id("profiles").await;
    add_member(&app, &site, "user_a", "admin").await;
    add_member(&app, &site, "user_gone", "read").await;
    let res = app.bearer(Method::GET, &format!("/sites/{site}/members"), &user_token("user_a"), None).await;
    assert_eq!(res.status(), 200);
    let members: Value = res.json().await.unwrap();
    let by_user = |id: &str| members.as_array().unwrap().iter().find(|m| m["idp_user_id"] == id).cloned().unwrap();
    let ada = by_user("user_a");
    assert_eq!(
        (ada["name"].as_str(), ada["email"].as_str(), ada["image_url"].as_str(), ada["role"].as_str()),
        (Some("Ada Tester"), Some("user_a@example.org"), Some("https://img.example/user_a.png"), Some("admin"))
    );
    let gone = by_user("user_gone");
    assert!(gone["name"].is_null() && gone["email"].is_null() && gone["image_url"].is_null(), "{gone}");
    assert!(gone["id"].is_string() && gone["site_id"] == site.as_str(), "the membership itself is unchanged: {gone}");

    // A provider refusing the secret leaves the names out, never the list.
    let refused = app_with_provider(&jwks, &provider, "sk_wrong").await;
    let site = refused.create_site_id("profiles-refused").await;
    add_member(&refused, &site, "user_a", "admin").await;
    let res = refused.get(&format!("/sites/{site}/members"), &refused.admin_key).await;
    assert_eq!(res.status(), 200);
    let members: Value = res.json().await.unwrap();
    assert_eq!(members[0]["idp_user_id"], "user_a");
    assert!(members[0]["name"].is_null(), "{members}");
}
