//! A real chat-completions provider on 127.0.0.1. `/v1` answers each action
//! with canned JSON (the suggestion inside a ```json fence, as chatty models
//! do), or with prose when the user's message says MALFORMED; `/broken/v1`
//! answers 500, `/refusing/v1` 401, `/slow/v1` sleeps 3 s before answering;
//! `GET /v1/models` lists two models.
//! Every request is recorded.

use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use serde_json::{json, Map, Value};

/// One request the provider received.
#[derive(Clone, Debug)]
pub struct Seen {
    pub path: String,
    pub authorization: Option<String>,
    pub body: Value,
}

impl Seen {
    pub fn system(&self) -> &str {
        self.body["messages"][0]["content"].as_str().unwrap_or_default()
    }

    pub fn user(&self) -> &Value {
        &self.body["messages"][1]["content"]
    }
}

pub struct FakeProvider {
    pub host_port: String,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    server: actix_web::dev::ServerHandle,
}

fn answer(system: &str, user: &Value) -> String {
    if user.as_str().is_some_and(|u| u.contains("MALFORMED")) {
        return "Sure! Here are some ideas: a, b and c.".into();
    }
    let object = if system.contains(r#"{"suggestions""#) {
        return "```json\n{\"suggestions\": [\"First idea\", \"Second idea\", \"first idea\"]}\n```".into();
    } else if system.contains(r#"{"translations""#) {
        let sent: Map<String, Value> = serde_json::from_str(user.as_str().unwrap_or("{}")).unwrap_or_default();
        let translated: Map<String, Value> =
            sent.into_iter().map(|(k, v)| (k, json!(format!("[de] {}", v.as_str().unwrap_or_default())))).collect();
        json!({"translations": translated})
    } else if system.contains(r#"{"alt_text""#) {
        json!({"alt_text": "A black cat asleep on a red sofa"})
    } else if system.contains(r#"{"tags""#) {
        json!({"tags": ["cat", "Cat", "sofa!", "black cat"]})
    } else if system.contains(r#""outline""#) {
        json!({"title": "Ten ways to model pages", "subtitle": "A field guide", "outline": ["Sites", "Pages", "Media"]})
    } else if system.contains(r#"{"body": "…", "excerpt""#) {
        json!({"body": "## Sites\n\nEvery site…", "excerpt": "How to model pages.", "meta_title": "Model pages"})
    } else if system.contains(r#"{"title": "…", "subtitle": "…", "excerpt""#) {
        json!({"title": "[de] title", "subtitle": "", "excerpt": "[de] excerpt", "body": "[de] body"})
    } else if system.contains(r#"{"meta_title""#) {
        json!({"meta_title": "Pages, modelled", "meta_description": "How editors model pages in Plinth."})
    } else if system.contains(r#"{"excerpt""#) {
        json!({"excerpt": "Plinth models pages for many sites."})
    } else if system.contains(r#"{"ok""#) {
        json!({"ok": true})
    } else if system.contains(r#"{"content""#) {
        json!({"content": {"title": "Welcome aboard", "subtitle": "Sail with us", "cta_label": "Book now"}})
    } else {
        json!({"unexpected": true})
    };
    object.to_string()
}

fn completion(content: String) -> HttpResponse {
    HttpResponse::Ok().json(json!({
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42}
    }))
}

impl FakeProvider {
    pub fn start() -> FakeProvider {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let recorded = Arc::clone(&seen);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let host_port = listener.local_addr().unwrap().to_string();
        let server = HttpServer::new(move || {
            let recorded = Arc::clone(&recorded);
            App::new().default_service(web::to(move |req: HttpRequest, body: web::Bytes| {
                let recorded = Arc::clone(&recorded);
                async move {
                    let seen = Seen {
                        path: req.path().to_string(),
                        authorization: req.headers().get("authorization").map(|v| v.to_str().unwrap().to_string()),
                        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
                    };
                    recorded.lock().unwrap().push(seen.clone());
                    match seen.path.as_str() {
                        "/v1/chat/completions" => completion(answer(seen.system(), seen.user())),
                        "/v1/models" => HttpResponse::Ok().json(json!({"object": "list", "data": [
                            {"id": "gpt-test-vision", "object": "model"}, {"id": "gpt-test", "object": "model"}
                        ]})),
                        "/broken/v1/chat/completions" => HttpResponse::InternalServerError().body("upstream exploded"),
                        "/refusing/v1/chat/completions" => {
                            HttpResponse::Unauthorized().json(json!({"error": {"message": "bad key"}}))
                        }
                        "/slow/v1/chat/completions" => {
                            actix_web::rt::time::sleep(Duration::from_secs(3)).await;
                            completion(answer(seen.system(), seen.user()))
                        }
                        _ => HttpResponse::NotFound().finish(),
                    }
                }
            }))
        })
        .workers(1)
        .listen(listener)
        .unwrap()
        .run();
        let handle = server.handle();
        actix_web::rt::spawn(server);
        FakeProvider { host_port, seen, server: handle }
    }

    /// The base URL of one of the provider's behaviours: `v1`, `broken/v1`, …
    pub fn base_url(&self, root: &str) -> String {
        format!("http://{}/{root}", self.host_port)
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    pub fn last(&self) -> Seen {
        self.requests().pop().expect("the provider was called")
    }

    pub async fn stop(&self) {
        self.server.stop(false).await;
    }
}
