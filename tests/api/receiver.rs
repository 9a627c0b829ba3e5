//! A real webhook receiver on 127.0.0.1: records every request and answers with
//! a status the test sets, after a delay the test sets (a slow endpoint).

use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

#[derive(Clone, Debug)]
pub struct Received {
    /// The request path: one receiver can stand for many webhooks (`/hook/3`).
    pub path: String,
    pub headers: HashMap<String, String>,
    pub raw_body: String,
    pub body: Value,
}

pub struct Receiver {
    pub url: String,
    /// `127.0.0.1:<port>`, for the SSRF allowlist.
    pub host_port: String,
    requests: Arc<Mutex<Vec<Received>>>,
    status: Arc<AtomicU16>,
    delay_ms: Arc<AtomicU64>,
}

impl Receiver {
    pub fn start() -> Receiver {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let status = Arc::new(AtomicU16::new(200));
        let delay_ms = Arc::new(AtomicU64::new(0));
        let (r, s, d) = (Arc::clone(&requests), Arc::clone(&status), Arc::clone(&delay_ms));
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let host_port = listener.local_addr().unwrap().to_string();
        let server = HttpServer::new(move || {
            let (r, s, d) = (Arc::clone(&r), Arc::clone(&s), Arc::clone(&d));
            App::new().default_service(web::to(move |req: HttpRequest, body: web::Bytes| {
                let (r, s, d) = (Arc::clone(&r), Arc::clone(&s), Arc::clone(&d));
                async move {
                    // A slow endpoint: the request counts as received once it is
                    // answered, so a sender killed meanwhile has not delivered it.
                    let delay = d.load(Ordering::SeqCst);
                    if delay > 0 {
                        actix_web::rt::time::sleep(Duration::from_millis(delay)).await;
                    }
                    let headers = req
                        .headers()
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_string()))
                        .collect();
                    let raw_body = String::from_utf8_lossy(&body).to_string();
                    let body = serde_json::from_str(&raw_body).unwrap_or(Value::Null);
                    let path = req.path().to_string();
                    r.lock().unwrap().push(Received { path, headers, raw_body, body });
                    HttpResponse::build(actix_web::http::StatusCode::from_u16(s.load(Ordering::SeqCst)).unwrap())
                        .body("receiver says hi")
                }
            }))
        })
        .workers(1)
        .disable_signals()
        .listen(listener)
        .unwrap()
        .run();
        actix_web::rt::spawn(server);
        Receiver { url: format!("http://{host_port}/hook"), host_port, requests, status, delay_ms }
    }

    /// Every later request is answered `delay` after it arrived.
    pub fn answer_after(&self, delay: Duration) {
        self.delay_ms.store(u64::try_from(delay.as_millis()).unwrap(), Ordering::SeqCst);
    }

    pub fn answer_with(&self, status: u16) {
        self.status.store(status, Ordering::SeqCst);
    }

    pub fn received(&self) -> Vec<Received> {
        self.requests.lock().unwrap().clone()
    }

    /// Waits (up to 10 s) until `n` requests arrived; returns them.
    pub async fn wait_for(&self, n: usize) -> Vec<Received> {
        for _ in 0..500 {
            if self.received().len() >= n {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.received()
    }
}

/// Verifies a request the way a Standard Webhooks receiver library does.
pub fn verify(secret: &str, request: &Received) -> bool {
    let key = base64::engine::general_purpose::STANDARD.decode(secret.trim_start_matches("whsec_")).unwrap();
    let id = &request.headers["webhook-id"];
    let timestamp = &request.headers["webhook-timestamp"];
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).unwrap();
    mac.update(format!("{id}.{timestamp}.{}", request.raw_body).as_bytes());
    let expected = format!("v1,{}", base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes()));
    request.headers["webhook-signature"].split(' ').any(|s| s == expected)
}
