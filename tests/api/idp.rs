//! A real identity-provider stand-in for tests: a JWKS endpoint on 127.0.0.1 and
//! tokens signed with the fixture keys.

use std::net::TcpListener;
use std::sync::{Arc, RwLock};

use actix_web::{web, App, HttpResponse, HttpServer};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use sea_orm::{ActiveModelTrait, ActiveValue::Set};
use serde_json::{json, Value};

use crate::helpers::TestApp;

pub const ISSUER: &str = "https://idp.test";
pub const AUDIENCE: &str = "plinth-test";

pub fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/api/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

pub fn jwk(name: &str) -> Value {
    serde_json::from_str(&fixture(name)).unwrap()
}

/// A real identity provider stand-in on 127.0.0.1 serving a JWKS that the test
/// can change (key rotation).
pub struct JwksServer {
    pub url: String,
    pub keys: Arc<RwLock<Vec<Value>>>,
}

impl JwksServer {
    pub fn start(keys: Vec<Value>) -> JwksServer {
        let keys = Arc::new(RwLock::new(keys));
        let shared = Arc::clone(&keys);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/.well-known/jwks.json", listener.local_addr().unwrap());
        let server = HttpServer::new(move || {
            let keys = Arc::clone(&shared);
            App::new().route(
                "/.well-known/jwks.json",
                web::get().to(move || {
                    let body = json!({"keys": *keys.read().unwrap()});
                    async move { HttpResponse::Ok().json(body) }
                }),
            )
        })
        .workers(1)
        .disable_signals()
        .listen(listener)
        .unwrap()
        .run();
        actix_web::rt::spawn(server);
        JwksServer { url, keys }
    }
}

pub fn token(key_file: &str, kid: &str, claims: Value) -> String {
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some(kid.to_string());
    jsonwebtoken::encode(&header, &claims, &EncodingKey::from_rsa_pem(fixture(key_file).as_bytes()).unwrap()).unwrap()
}

pub fn claims(sub: &str) -> Value {
    let now = chrono::Utc::now().timestamp();
    json!({"sub": sub, "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 600, "email": format!("{sub}@example.org")})
}

pub async fn app_with_idp(jwks: &JwksServer, system_admins: &[&str]) -> TestApp {
    let url = jwks.url.clone();
    let admins: Vec<String> = system_admins.iter().map(|s| s.to_string()).collect();
    TestApp::spawn_with(move |c| {
        c.idp.jwks_url = Some(url);
        c.idp.issuer = Some(ISSUER.into());
        c.idp.audience = Some(AUDIENCE.into());
        c.idp.jwks_refetch_secs = 0;
        c.system_admins = admins;
    })
    .await
}

/// Makes `idp_user_id` a member of `site_id` with `role` (the member endpoints
/// belong to a later issue; the row is what authorization reads).
pub async fn add_member(app: &TestApp, site_id: &str, idp_user_id: &str, role: &str) {
    let now = chrono::Utc::now();
    plinth_entities::site_member::ActiveModel {
        id: Set(uuid::Uuid::new_v4()),
        site_id: Set(site_id.parse().unwrap()),
        idp_user_id: Set(idp_user_id.to_string()),
        role: Set(plinth_entities::values::Role::parse(role).expect("a role name")),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&app.state.db)
    .await
    .unwrap();
}

/// A signed, valid token for `sub`.
pub fn user_token(sub: &str) -> String {
    token("rsa_a.pem", "key-a", claims(sub))
}

/// A token for `sub` issued at the app's clock: after a test moved the clock
/// forward, tokens issued before have expired (the app's clock decides `exp`).
pub fn user_token_at(app: &TestApp, sub: &str) -> String {
    let now = plinth_actors::Clock::now(app.clock.as_ref()).timestamp();
    let mut c = claims(sub);
    c["iat"] = serde_json::json!(now);
    c["exp"] = serde_json::json!(now + 600);
    token("rsa_a.pem", "key-a", c)
}

/// Creates a site (named after its slug) as the user behind `token`, who becomes
/// its owner; returns the site id.
pub async fn create_site_as(app: &TestApp, token: &str, slug: &str) -> String {
    let body = json!({"name": slug, "slug": slug});
    let res = app.bearer(reqwest::Method::POST, "/sites", token, Some(body)).await;
    assert_eq!(res.status(), 201, "site {slug} is created");
    res.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string()
}
