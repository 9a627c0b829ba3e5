//! The one provider client: OpenAI-compatible chat completions (and the
//! provider's model list, `GET {base_url}/models`).
//!
//! `POST {base_url}/chat/completions` with `{model, messages: [system, user],
//! temperature?, max_tokens?, response_format: {type: "json_object"}}` and
//! `Authorization: Bearer <key>` when the site has a key. Redirects are refused,
//! connecting may take 5 s, the whole call the site's `timeout_secs` (30 s by
//! default, 120 at most); the base URL passes the SSRF guard again before every
//! call. At most [`MAX_IN_FLIGHT`] calls per site run at once; one that finds
//! them taken waits [`QUEUE_WAIT`] at most.
//!
//! Failures never name the URL or the key: connection errors, timeouts and any
//! non-2xx answer are 503 AI_PROVIDER_UNAVAILABLE with the status (or "timed
//! out", "connection failed") in the detail; an answer whose
//! `choices[0].message.content` is not a JSON object (a ```json fence around it
//! is fine) is 500 AI_RESPONSE_PARSE_FAILED.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use dashmap::DashMap;
use serde_json::{json, Map, Value};
use tokio::sync::Semaphore;
use uuid::Uuid;

use super::settings::{self, AiConfig};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::outbound::{self, BodyEnd};
use crate::state::AppState;

/// Calls of one site running at once.
pub const MAX_IN_FLIGHT: usize = 4;
/// How long a call waits for one of its site's slots.
pub const QUEUE_WAIT: Duration = Duration::from_secs(2);
/// The largest answer read from a provider.
const MAX_ANSWER_BYTES: usize = 4 * 1024 * 1024;

/// Each site's slots.
static IN_FLIGHT: LazyLock<DashMap<Uuid, Arc<Semaphore>>> = LazyLock::new(DashMap::new);

/// The user's turn: text, or text with an image (an OpenAI `image_url` part).
pub enum UserContent {
    Text(String),
    WithImage { text: String, image_url: String },
}

pub struct Prompt {
    pub system: String,
    pub user: UserContent,
}

fn unavailable(detail: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::AiProviderUnavailable, detail)
}

fn parse_failed(detail: &str) -> ApiError {
    ApiError::new(ErrorCode::AiResponseParseFailed, format!("the AI provider's answer {detail}"))
}

pub fn request_body(config: &AiConfig, model: &str, prompt: &Prompt) -> Value {
    let user = match &prompt.user {
        UserContent::Text(text) => json!(text),
        UserContent::WithImage { text, image_url } => json!([
            {"type": "text", "text": text},
            {"type": "image_url", "image_url": {"url": image_url}}
        ]),
    };
    let mut body = json!({
        "model": model,
        "messages": [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": user}
        ],
        "response_format": {"type": "json_object"}
    });
    if let Some(t) = config.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(m) = config.max_tokens {
        body["max_tokens"] = json!(m);
    }
    body
}

/// Sends `prompt` to `model` and answers the JSON object the model wrote.
pub async fn complete(
    state: &AppState,
    config: &AiConfig,
    model: &str,
    prompt: &Prompt,
) -> ApiResult<Map<String, Value>> {
    let refused = || ApiError::new(ErrorCode::AiUrlSsrf, "the AI provider's address is not allowed");
    let slots =
        Arc::clone(IN_FLIGHT.entry(config.site_id).or_insert_with(|| Arc::new(Semaphore::new(MAX_IN_FLIGHT))).value());
    let _slot = tokio::time::timeout(QUEUE_WAIT, slots.acquire_owned())
        .await
        .map_err(|_| unavailable("too many AI requests in flight for this site"))?
        .map_err(|_| unavailable("the AI request queue is closed"))?;
    let deadline = tokio::time::Instant::now() + config.timeout;
    let url = format!("{}/chat/completions", config.base_url.trim_end_matches('/'));
    // The address is checked again as the call connects: the name may resolve elsewhere by now.
    let mut request = state
        .outbound
        .request(reqwest::Method::POST, &url)
        .await
        .map_err(|_| refused())?
        .timeout(config.timeout)
        .header("user-agent", concat!("Plinth-AI/", env!("CARGO_PKG_VERSION")))
        .json(&request_body(config, model, prompt));
    if let Some(key) = &config.api_key {
        request = request.bearer_auth(key);
    }
    let answer = request.send().await.map_err(|e| {
        if outbound::refusal_of(&e).is_some() {
            return refused();
        }
        let why = outbound::describe(&e);
        tracing::warn!(site_id = %config.site_id, cause = %why, "AI provider call failed");
        unavailable(format!("the AI provider {why}"))
    })?;
    let status = answer.status();
    if !status.is_success() {
        tracing::warn!(site_id = %config.site_id, status = status.as_u16(), "AI provider refused a call");
        return Err(unavailable(format!("the AI provider answered {}", status.as_u16())));
    }
    let body = outbound::read_capped(answer, MAX_ANSWER_BYTES, deadline).await;
    match body.end {
        BodyEnd::Complete => {}
        BodyEnd::CapReached => return Err(parse_failed("is too large")),
        BodyEnd::TimedOut => return Err(unavailable("the AI provider timed out while answering")),
        BodyEnd::Failed => return Err(unavailable("the AI provider's connection failed while answering")),
    }
    let body = body.bytes;
    let body: Value = serde_json::from_slice(&body).map_err(|_| parse_failed("is not JSON"))?;
    let tokens = body.pointer("/usage/total_tokens").and_then(Value::as_i64);
    settings::record_usage(state, config.site_id, tokens).await?;
    let content = body
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| parse_failed("has no choices[0].message.content"))?;
    json_object(content).ok_or_else(|| parse_failed("is not a JSON object"))
}

/// The largest model list read.
const MAX_MODELS_BYTES: usize = 2 * 1024 * 1024;
/// How long listing a provider's models may take.
const MODELS_TIMEOUT: Duration = Duration::from_secs(10);

/// The ids `GET {base_url}/models` (OpenAI-compatible) answers, sorted, with
/// the same guard, refusals and failures as [`complete`]: 10 s and 2 MiB at
/// most. `base_url` has passed the settings' check.
pub async fn models(state: &AppState, base_url: &str, api_key: Option<&str>) -> ApiResult<Vec<String>> {
    let refused = || ApiError::new(ErrorCode::AiUrlSsrf, "the AI provider's address is not allowed");
    let deadline = tokio::time::Instant::now() + MODELS_TIMEOUT;
    let mut request = state
        .outbound
        .request(reqwest::Method::GET, &format!("{}/models", base_url.trim_end_matches('/')))
        .await
        .map_err(|_| refused())?
        .timeout(MODELS_TIMEOUT)
        .header("user-agent", concat!("Plinth-AI/", env!("CARGO_PKG_VERSION")));
    if let Some(key) = api_key {
        request = request.bearer_auth(key);
    }
    let answer = request.send().await.map_err(|e| {
        if outbound::refusal_of(&e).is_some() {
            return refused();
        }
        unavailable(format!("the AI provider {}", outbound::describe(&e)))
    })?;
    if !answer.status().is_success() {
        return Err(unavailable(format!("the AI provider answered {}", answer.status().as_u16())));
    }
    let body = outbound::read_capped(answer, MAX_MODELS_BYTES, deadline).await;
    match body.end {
        BodyEnd::Complete => {}
        BodyEnd::CapReached => return Err(parse_failed("listing models is too large")),
        BodyEnd::TimedOut | BodyEnd::Failed => return Err(unavailable("the AI provider's model list was cut short")),
    }
    let list: Value = serde_json::from_slice(&body.bytes).map_err(|_| parse_failed("listing models is not JSON"))?;
    let entries = list["data"].as_array().ok_or_else(|| parse_failed("listing models has no data"))?;
    let mut models: Vec<String> = entries.iter().filter_map(|m| m["id"].as_str().map(str::to_string)).collect();
    models.sort();
    models.dedup();
    Ok(models)
}

/// The JSON object in a model's text, with or without a Markdown code fence.
pub fn json_object(content: &str) -> Option<Map<String, Value>> {
    match serde_json::from_str(unfence(content.trim()).trim()) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// What is inside a Markdown code fence (```` ```json … ``` ````), or `text`.
fn unfence(text: &str) -> &str {
    let Some(inner) = text.strip_prefix("```").and_then(|rest| rest.strip_suffix("```")) else { return text };
    let inner = inner.trim_start();
    match inner.get(..4) {
        Some(lang) if lang.eq_ignore_ascii_case("json") => &inner[4..],
        _ => inner,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_is_read_with_or_without_a_fence() {
        assert_eq!(json_object(r#"{"a": 1}"#).unwrap()["a"], 1);
        assert_eq!(json_object("```json\n{\"a\": 2}\n```").unwrap()["a"], 2);
        assert_eq!(json_object("```\n{\"a\": 3}\n```").unwrap()["a"], 3);
        assert_eq!(json_object("  ```JSON\n{\"a\": 4}```  ").unwrap()["a"], 4);
        assert!(json_object("[1, 2]").is_none());
        assert!(json_object("Sure! Here you go.").is_none());
    }
}
