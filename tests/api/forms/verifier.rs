//! A real remote bot verifier on 127.0.0.1, answering like Turnstile or
//! hCaptcha: `success` is true for the token `human` with the right secret.

use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use actix_web::{web, App, HttpResponse, HttpServer};
use serde_json::json;

pub const SECRET: &str = "verifier-secret";

/// The form fields of one request.
pub type Fields = Vec<(String, String)>;

pub struct Verifier {
    pub url: String,
    pub host_port: String,
    /// The form fields of every request received.
    pub seen: Arc<Mutex<Vec<Fields>>>,
    server: actix_web::dev::ServerHandle,
}

impl Verifier {
    pub fn start() -> Verifier {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let recorded = Arc::clone(&seen);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let host_port = listener.local_addr().unwrap().to_string();
        let server = HttpServer::new(move || {
            let recorded = Arc::clone(&recorded);
            App::new().route(
                "/siteverify",
                web::post().to(move |form: web::Form<Fields>| {
                    let recorded = Arc::clone(&recorded);
                    async move {
                        let fields = form.into_inner();
                        let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
                        let human =
                            get("secret").as_deref() == Some(SECRET) && get("response").as_deref() == Some("human");
                        let broken = get("response").as_deref() == Some("broken");
                        recorded.lock().unwrap().push(fields);
                        if broken {
                            return HttpResponse::Ok().json(json!({"unexpected": true}));
                        }
                        HttpResponse::Ok().json(json!({"success": human}))
                    }
                }),
            )
        })
        .workers(1)
        .listen(listener)
        .unwrap()
        .run();
        let handle = server.handle();
        actix_web::rt::spawn(server);
        Verifier { url: format!("http://{host_port}/siteverify"), host_port, seen, server: handle }
    }

    pub async fn stop(&self) {
        self.server.stop(false).await;
    }
}
