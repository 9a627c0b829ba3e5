//! `TestApp`: the real app on 127.0.0.1 with typed request helpers.

#![allow(dead_code)]

use std::net::TcpListener;

use std::sync::Arc;

use plinth::{AppState, Config, Plinth, RunningServer};
use plinth_actors::{Periodic, RunNow, ShiftedClock};
use reqwest::{Method, Response, StatusCode};
use serde_json::{json, Value};
use tempfile::TempDir;

pub use crate::test_databases::{fresh_database, migrated_database, TestData};

pub struct TestApp {
    pub base: String,
    pub client: reqwest::Client,
    /// A Master key (the bootstrap key).
    pub admin_key: String,
    pub state: actix_web::web::Data<AppState>,
    /// The webhook sender beside the state; what draining needs.
    pub webhooks: actix_web::web::Data<plinth::webhooks::WebhookRuntime>,
    pub server: actix_web::dev::ServerHandle,
    pub database_url: String,
    /// Time as the app sees it: tests move it forward instead of sleeping.
    pub clock: Arc<ShiftedClock>,
    pub janitor: actix::Addr<Periodic>,
    pub webhook_flusher: actix::Addr<Periodic>,
    pub webhook_retrier: actix::Addr<Periodic>,
    _dir: TestData,
}

pub fn test_config(dir: &TempDir, database_url: &str) -> Config {
    let mut config = Config::defaults().expect("embedded defaults parse");
    config.bind = "127.0.0.1:0".into();
    config.database_url = database_url.into();
    config.data_dir = dir.path().join("data");
    config.workers = 1;
    config.bootstrap_api_key = Some(format!("plk_test_master_{}", uuid::Uuid::new_v4().simple()));
    config.log.filter = "warn".into();
    config
}

impl TestApp {
    pub async fn spawn() -> TestApp {
        Self::spawn_with(|_| {}).await
    }

    pub async fn spawn_with(adjust: impl FnOnce(&mut Config)) -> TestApp {
        let (dir, database_url) = migrated_database().await;
        let mut config = test_config(&dir, &database_url);
        adjust(&mut config);
        Self::start(config, dir).await
    }

    /// Starts an app on an existing configuration (used to restart on the same data).
    pub async fn start(mut config: Config, dir: impl Into<TestData>) -> TestApp {
        let dir = dir.into();
        plinth::telemetry::init(&config.log);
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
        // Links the API returns (served files) point at this server.
        config.public_url = Some(format!("http://{}", listener.local_addr().expect("bound")));
        let admin_key = config.bootstrap_api_key.clone().expect("tests always set a bootstrap key");
        let database_url = config.database_url.clone();
        let clock = Arc::new(ShiftedClock::default());
        let app = Plinth::build_with_clock(config, clock.clone()).await.expect("app builds");
        let janitor = app.janitor.clone();
        let (webhook_flusher, webhook_retrier) = (app.webhook_flusher.clone(), app.webhook_retrier.clone());
        let running = app.serve(listener, false).expect("server starts");
        let base = format!("http://{}", running.addr);
        let server = running.server.handle();
        let state = running.state();
        let webhooks = running.webhooks();
        actix_web::rt::spawn(running.server);
        TestApp {
            base,
            // Idle connections are let go before the server's keep-alive (5 s)
            // closes them: a request sent on one the server is closing fails
            // with IncompleteMessage (seen under the loaded PostgreSQL suite).
            client: reqwest::Client::builder()
                .pool_idle_timeout(std::time::Duration::from_secs(2))
                .build()
                .expect("a client"),
            admin_key,
            state,
            webhooks,
            server,
            database_url,
            clock,
            janitor,
            webhook_flusher,
            webhook_retrier,
            _dir: dir,
        }
    }

    /// Stops the server and drains actors, as on SIGTERM; returns the data dir so
    /// a test can start again on the same database.
    pub async fn stop(self) -> (TestData, String) {
        self.server.stop(true).await;
        RunningServer::drain(&self.webhooks).await;
        (self._dir, self.database_url)
    }

    /// Waits until no webhook send is in flight and every attempt result is
    /// written: a test that ends with work in flight would have its database
    /// connections dropped with the runtime.
    pub async fn settle(&self) {
        for _ in 0..500 {
            if self.webhooks.results.is_idle() {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }

    /// Moves the app's clock forward and runs the Janitor's due work.
    pub async fn advance_and_run_janitor(&self, by: chrono::Duration) {
        self.clock.advance(by);
        self.janitor.send(RunNow).await.expect("janitor runs");
    }

    /// Runs the webhook flush pass (closed debounce windows become batches).
    pub async fn flush_webhooks(&self) {
        self.webhook_flusher.send(RunNow).await.expect("flush runs");
    }

    /// Runs the webhook retry pass (due failed deliveries are re-sent).
    pub async fn retry_webhooks(&self) {
        self.webhook_retrier.send(RunNow).await.expect("retry runs");
    }

    /// Waits (5 s at most) until webhook `hook_id` has logged `n` attempts of
    /// `event`: a receiver sees a request before the dispatcher records its
    /// outcome, and a test must not move the clock in between.
    pub async fn wait_for_logged_attempts(&self, hook_id: &str, event: &str, n: usize) {
        for _ in 0..250 {
            let log: Value = self
                .get(&format!("/webhooks/{hook_id}/deliveries?per_page=100"), &self.admin_key)
                .await
                .json()
                .await
                .unwrap_or(Value::Null);
            let logged = log["data"].as_array().map_or(0, |d| d.iter().filter(|e| e["event"] == event).count());
            if logged >= n {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}/api/v1{}", self.base, path)
    }

    pub async fn request(&self, method: Method, path: &str, key: Option<&str>, body: Option<Value>) -> Response {
        let mut req = self.client.request(method, self.url(path));
        if let Some(key) = key {
            req = req.header("X-API-Key", key);
        }
        if let Some(body) = body {
            req = req.json(&body);
        }
        req.send().await.expect("request sent")
    }

    pub async fn get(&self, path: &str, key: &str) -> Response {
        self.request(Method::GET, path, Some(key), None).await
    }

    pub async fn post(&self, path: &str, key: &str, body: Value) -> Response {
        self.request(Method::POST, path, Some(key), Some(body)).await
    }

    pub async fn put(&self, path: &str, key: &str, body: Value) -> Response {
        self.request(Method::PUT, path, Some(key), Some(body)).await
    }

    pub async fn delete(&self, path: &str, key: &str) -> Response {
        self.request(Method::DELETE, path, Some(key), None).await
    }

    pub async fn bearer(&self, method: Method, path: &str, token: &str, body: Option<Value>) -> Response {
        let mut req = self.client.request(method, self.url(path)).bearer_auth(token);
        if let Some(body) = body {
            req = req.json(&body);
        }
        req.send().await.expect("request sent")
    }

    /// Creates a site with the Master key; returns its JSON.
    pub async fn create_site(&self, slug: &str) -> Value {
        let res = self
            .post("/sites", &self.admin_key, json!({"name": format!("Site {slug}"), "slug": slug, "description": ""}))
            .await;
        assert_eq!(res.status(), StatusCode::CREATED, "create site {slug}");
        res.json().await.unwrap()
    }

    pub async fn create_site_id(&self, slug: &str) -> String {
        self.create_site(slug).await["id"].as_str().unwrap().to_string()
    }

    /// Creates a site with the settings `settings` (modules turned on, say),
    /// with the Master key; returns its id.
    pub async fn create_site_with(&self, slug: &str, settings: Value) -> String {
        let site = self.create_site_id(slug).await;
        let res = self.put(&format!("/sites/{site}/settings"), &self.admin_key, settings).await;
        assert_eq!(res.status(), StatusCode::OK, "settings of site {slug}");
        site
    }

    /// Creates a site with the module `module` (`documents`, `portfolio`, ...)
    /// switched on; returns its id.
    pub async fn create_site_with_module(&self, slug: &str, module: &str) -> String {
        self.create_site_with(slug, json!({format!("module_{module}_enabled"): true})).await
    }

    /// The id of the global locale `code` (`en`, `de`, ...).
    pub async fn locale_id(&self, code: &str) -> String {
        let all: Vec<Value> = self.get("/locales", &self.admin_key).await.json().await.unwrap();
        let locale = all.iter().find(|l| l["code"] == code).unwrap_or_else(|| panic!("no locale {code}"));
        locale["id"].as_str().unwrap().to_string()
    }

    /// POSTs `body` to `path` with `key`, expects 201 and returns the created JSON.
    pub async fn create(&self, path: &str, key: &str, body: Value) -> Value {
        let res = self.post(path, key, body).await;
        let status = res.status();
        let created: Value = res.json().await.unwrap_or(Value::Null);
        assert_eq!(status, StatusCode::CREATED, "POST {path}: {created}");
        created
    }

    /// Creates a draft post titled `title` on `site` with the Master key; returns it.
    pub async fn create_post(&self, site: &str, title: &str) -> Value {
        self.create("/blogs", &self.admin_key, json!({"site_ids": [site], "title": title})).await
    }

    /// Creates a key with the Master key; returns its secret.
    pub async fn create_key(&self, permission: &str, site_id: Option<&str>) -> String {
        self.create_key_with(json!({"name": format!("{permission} key"), "permission": permission, "site_id": site_id}))
            .await
    }

    pub async fn create_key_with(&self, body: Value) -> String {
        let res = self.post("/api-keys", &self.admin_key, body).await;
        assert_eq!(res.status(), StatusCode::CREATED);
        let body: Value = res.json().await.unwrap();
        body["key"].as_str().unwrap().to_string()
    }
}

/// Asserts a problem+json response with `status` and `code`; returns the body.
pub async fn assert_problem(res: Response, status: u16, code: &str) -> Value {
    let actual = res.status().as_u16();
    let content_type = res.headers().get("content-type").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
    let body: Value = res.json().await.unwrap_or(Value::Null);
    assert_eq!((actual, body["code"].as_str()), (status, Some(code)), "unexpected problem: {body}");
    assert!(content_type.starts_with("application/problem+json"), "content type {content_type}");
    assert_eq!(body["status"], status);
    assert_eq!(body["type"].as_str().unwrap(), format!("https://plinth.dev/problems/{}", code.to_lowercase()));
    assert!(!body["detail"].as_str().unwrap_or_default().is_empty(), "detail is empty: {body}");
    assert!(body["title"].is_string());
    body
}
