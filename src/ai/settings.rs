//! A site's AI provider settings: stored in `ai_settings`, the API key sealed
//! with XChaCha20-Poly1305 under the server secret `ai_settings_key` (the
//! site's id bound as associated data), never shown or logged. Also the
//! site's usage counters.

use std::collections::BTreeMap;
use std::time::Duration;

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use plinth_entities::ai_settings;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, ExprTrait, QueryFilter};
use serde_json::json;
use uuid::Uuid;

use super::model::{AiSettingsResponse, AiUsage, AssistAction, UpdateAiSettings};
use crate::audit::{self, Action, Actor, AuditEntry};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::outbound::Refusal;
use crate::state::AppState;

/// Seconds a provider call may take in all, unless the site says otherwise.
pub const DEFAULT_TIMEOUT_SECS: i32 = 30;
/// The longest a site may let a call take.
pub const MAX_TIMEOUT_SECS: i32 = 120;
pub const DEFAULT_PROVIDER: &str = "openai";
const KEY_SECRET: &str = "ai_settings_key";
const NONCE: usize = 24;

/// What one call needs: the endpoint, its models and the opened key. Not
/// `Debug`, so the key cannot end up in a log line.
pub struct AiConfig {
    pub site_id: Uuid,
    pub base_url: String,
    pub model: String,
    pub vision_model: Option<String>,
    pub api_key: Option<String>,
    pub temperature: Option<f64>,
    pub max_tokens: Option<i32>,
    pub timeout: Duration,
    /// The site's own instructions per content-assist action.
    pub system_prompts: BTreeMap<String, String>,
}

impl AiConfig {
    /// The model for image actions.
    pub fn vision_model(&self) -> &str {
        self.vision_model.as_deref().unwrap_or(&self.model)
    }
}

/// The stored instructions per action (none when unreadable).
fn system_prompts(row: &ai_settings::Model) -> BTreeMap<String, String> {
    row.system_prompts.as_ref().and_then(|v| serde_json::from_value(v.clone()).ok()).unwrap_or_default()
}

/// The most characters of one action's instructions.
const MAX_SYSTEM_PROMPT_CHARS: usize = 4000;

/// `prompts` checked: actions content assist knows, at most
/// [`MAX_SYSTEM_PROMPT_CHARS`] each; blank ones dropped. `None` when none is left.
fn checked_prompts(prompts: BTreeMap<String, String>, errors: &mut Vec<FieldError>) -> Option<serde_json::Value> {
    let known: Vec<&str> = AssistAction::ALL.iter().map(|a| a.key()).collect();
    let mut kept = BTreeMap::new();
    for (action, text) in prompts {
        let field = format!("system_prompts.{action}");
        let text = text.trim().to_string();
        if !known.contains(&action.as_str()) {
            errors.push(FieldError::new(
                field,
                ErrorCode::ValidationInvalidFormat,
                format!("one of {}", known.join(", ")),
            ));
        } else if text.chars().count() > MAX_SYSTEM_PROMPT_CHARS {
            let detail = format!("at most {MAX_SYSTEM_PROMPT_CHARS} characters");
            errors.push(FieldError::new(field, ErrorCode::ValidationOutOfRange, detail));
        } else if !text.is_empty() {
            kept.insert(action, text);
        }
    }
    (!kept.is_empty()).then(|| json!(kept))
}

pub async fn stored(state: &AppState, site_id: Uuid) -> ApiResult<Option<ai_settings::Model>> {
    Ok(ai_settings::Entity::find_by_id(site_id).one(&state.db).await?)
}

pub fn response(site_id: Uuid, row: Option<&ai_settings::Model>) -> AiSettingsResponse {
    AiSettingsResponse {
        site_id,
        configured: row.is_some(),
        provider: row.map(|r| r.provider.clone()),
        base_url: row.map(|r| r.base_url.clone()),
        model: row.map(|r| r.model.clone()),
        vision_model: row.and_then(|r| r.vision_model.clone()),
        api_key_set: row.is_some_and(|r| r.api_key_sealed.is_some()),
        temperature: row.and_then(|r| r.temperature),
        max_tokens: row.and_then(|r| r.max_tokens),
        timeout_secs: row.map_or(DEFAULT_TIMEOUT_SECS, |r| r.timeout_secs),
        usage: row.map_or_else(AiUsage::default, |r| AiUsage { requests: r.requests, total_tokens: r.tokens_used }),
        system_prompts: row.map(system_prompts).unwrap_or_default(),
        updated_at: row.map(|r| r.updated_at),
    }
}

/// The settings a call runs with, or AI_NOT_CONFIGURED.
pub async fn config(state: &AppState, site_id: Uuid) -> ApiResult<AiConfig> {
    let Some(row) = stored(state, site_id).await? else {
        return Err(ApiError::new(
            ErrorCode::AiNotConfigured,
            "AI is not configured for this site: PUT /sites/{site_id}/ai/settings first",
        ));
    };
    let api_key = match &row.api_key_sealed {
        Some(sealed) => Some(open(&crate::secrets::get_or_create(state, KEY_SECRET).await?, sealed, site_id)?),
        None => None,
    };
    let system_prompts = system_prompts(&row);
    Ok(AiConfig {
        site_id,
        base_url: row.base_url,
        model: row.model,
        vision_model: row.vision_model,
        api_key,
        temperature: row.temperature,
        max_tokens: row.max_tokens,
        timeout: Duration::from_secs(row.timeout_secs.clamp(1, MAX_TIMEOUT_SECS) as u64),
        system_prompts,
    })
}

/// Texts of 1..=max characters once trimmed; `None` when absent.
fn text(field: &str, raw: Option<&str>, max: usize, errors: &mut Vec<FieldError>) -> Option<String> {
    let value = raw?.trim();
    if value.is_empty() || value.chars().count() > max {
        errors.push(FieldError::new(field, ErrorCode::ValidationOutOfRange, format!("must be 1-{max} characters")));
        return None;
    }
    Some(value.to_string())
}

fn in_range<T: PartialOrd + std::fmt::Display>(field: &str, value: T, min: T, max: T, errors: &mut Vec<FieldError>) {
    if !(min <= value && value <= max) {
        errors.push(FieldError::new(field, ErrorCode::ValidationOutOfRange, format!("must be {min} to {max}")));
    }
}

/// The API root, checked against the SSRF guard: a private address is
/// AI_URL_SSRF, anything else wrong 422.
pub(super) async fn checked_base_url(state: &AppState, raw: &str) -> ApiResult<String> {
    let url = match state.outbound.check(raw).await {
        Ok(url) => url,
        Err(Refusal::Private(why)) => return Err(ApiError::new(ErrorCode::AiUrlSsrf, why)),
        Err(Refusal::Invalid(why)) => {
            return Err(ApiError::validation(vec![FieldError::new(
                "base_url",
                ErrorCode::ValidationInvalidFormat,
                why,
            )]))
        }
    };
    if url.query().is_some() || url.fragment().is_some() {
        return Err(ApiError::validation(vec![FieldError::new(
            "base_url",
            ErrorCode::ValidationInvalidFormat,
            "the API root takes no query or fragment",
        )]));
    }
    Ok(url.as_str().trim_end_matches('/').to_string())
}

/// Stores `body` over the current settings (see [`UpdateAiSettings`]), audited
/// without the key.
pub async fn update(
    state: &AppState,
    actor: &Actor,
    site_id: Uuid,
    body: UpdateAiSettings,
) -> ApiResult<AiSettingsResponse> {
    let current = stored(state, site_id).await?;
    let mut errors = Vec::new();
    let provider = text("provider", body.provider.as_deref(), 50, &mut errors);
    let model = text("model", body.model.as_deref(), 200, &mut errors);
    let vision_model = body.vision_model.map(|v| v.filter(|m| !m.trim().is_empty()));
    let vision_model = vision_model.map(|v| v.and_then(|m| text("vision_model", Some(&m), 200, &mut errors)));
    let api_key = body.api_key.map(|k| k.map(|k| k.trim().to_string()).filter(|k| !k.is_empty()));
    if let Some(Some(key)) = &api_key {
        if key.len() > 1000 || !key.bytes().all(|b| b.is_ascii_graphic()) {
            errors.push(FieldError::new(
                "api_key",
                ErrorCode::ValidationInvalidFormat,
                "must be at most 1000 visible ASCII characters",
            ));
        }
    }
    if let Some(Some(t)) = body.temperature {
        in_range("temperature", t, 0.0, 2.0, &mut errors);
    }
    if let Some(Some(m)) = body.max_tokens {
        in_range("max_tokens", m, 1, 32_000, &mut errors);
    }
    if let Some(t) = body.timeout_secs {
        in_range("timeout_secs", t, 1, MAX_TIMEOUT_SECS, &mut errors);
    }
    let prompts = body.system_prompts.map(|p| checked_prompts(p, &mut errors));
    if current.is_none() {
        for (field, missing) in [("base_url", body.base_url.is_none()), ("model", body.model.is_none())] {
            if missing {
                errors.push(FieldError::new(field, ErrorCode::ValidationRequiredField, "required on the first save"));
            }
        }
    }
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let base_url = match body.base_url.as_deref() {
        Some(raw) => Some(checked_base_url(state, raw).await?),
        None => None,
    };
    let sealed = match api_key {
        Some(Some(key)) => Some(Some(seal(&crate::secrets::get_or_create(state, KEY_SECRET).await?, &key, site_id)?)),
        Some(None) => Some(None),
        None => None,
    };
    let now = state.clock.now();
    let before = current.as_ref().map_or(serde_json::Value::Null, |c| json!(response(site_id, Some(c))));
    let (action, mut row) = match current {
        Some(c) => (Action::Update, ai_settings::ActiveModel::from(c)),
        None => (
            Action::Create,
            ai_settings::ActiveModel {
                site_id: Set(site_id),
                provider: Set(DEFAULT_PROVIDER.into()),
                vision_model: Set(None),
                api_key_sealed: Set(None),
                temperature: Set(None),
                max_tokens: Set(None),
                timeout_secs: Set(DEFAULT_TIMEOUT_SECS),
                system_prompts: Set(None),
                tokens_used: Set(0),
                requests: Set(0),
                ..Default::default()
            },
        ),
    };
    if let Some(v) = provider {
        row.provider = Set(v);
    }
    if let Some(v) = base_url {
        row.base_url = Set(v);
    }
    if let Some(v) = model {
        row.model = Set(v);
    }
    if let Some(v) = vision_model {
        row.vision_model = Set(v);
    }
    if let Some(v) = sealed {
        row.api_key_sealed = Set(v);
    }
    if let Some(v) = body.temperature {
        row.temperature = Set(v);
    }
    if let Some(v) = body.max_tokens {
        row.max_tokens = Set(v);
    }
    if let Some(v) = body.timeout_secs {
        row.timeout_secs = Set(v);
    }
    if let Some(v) = prompts {
        row.system_prompts = Set(v);
    }
    row.updated_at = Set(now);
    audit::Write {
        db: &state.db,
        at: now,
        action,
        entry: move |_: &ai_settings::Model| settings_entry(actor, action, site_id),
        before,
        after: None,
    }
    .run(row, |m| response(site_id, Some(m)), ApiError::from)
    .await
}

fn settings_entry(actor: &Actor, action: Action, site_id: Uuid) -> AuditEntry<'_> {
    AuditEntry { actor, action, entity_type: "ai_settings", entity_id: site_id.to_string(), site_id: Some(site_id) }
}

/// Deletes the site's settings (key and counters with them), audited; 404
/// ENTITY_NOT_FOUND when it has none.
pub async fn remove(state: &AppState, actor: &Actor, site_id: Uuid) -> ApiResult<()> {
    let current = stored(state, site_id).await?.ok_or_else(|| ApiError::not_found("ai_settings", site_id))?;
    let before = json!(response(site_id, Some(&current)));
    audit::Write {
        db: &state.db,
        at: state.clock.now(),
        action: Action::Delete,
        entry: move |_: &ai_settings::Model| settings_entry(actor, Action::Delete, site_id),
        before,
        after: None,
    }
    .remove(current)
    .await
}

/// Counts a call the provider answered, with the tokens it says it used.
pub async fn record_usage(state: &AppState, site_id: Uuid, total_tokens: Option<i64>) -> ApiResult<()> {
    let tokens = total_tokens.filter(|t| t.is_positive()).unwrap_or(0);
    let count = ai_settings::Entity::update_many()
        .col_expr(ai_settings::Column::Requests, Expr::col(ai_settings::Column::Requests).add(1))
        .col_expr(ai_settings::Column::TokensUsed, Expr::col(ai_settings::Column::TokensUsed).add(tokens))
        .filter(ai_settings::Column::SiteId.eq(site_id));
    // The site's AI settings answer shows the usage.
    let touched = [crate::db::Touched::Answers(site_id)];
    state.db.write(&touched, async |txn| count.exec(txn).await).await?;
    Ok(())
}

fn seal(key: &[u8; 32], api_key: &str, site_id: Uuid) -> ApiResult<String> {
    let nonce: [u8; NONCE] = rand::random();
    let cipher = XChaCha20Poly1305::new(key.into());
    let sealed = cipher
        .encrypt(&XNonce::from(nonce), Payload { msg: api_key.as_bytes(), aad: site_id.as_bytes() })
        .map_err(|_| ApiError::internal("sealing the AI API key failed"))?;
    Ok(B64.encode([nonce.as_slice(), sealed.as_slice()].concat()))
}

fn open(key: &[u8; 32], sealed: &str, site_id: Uuid) -> ApiResult<String> {
    let unreadable = || ApiError::internal("the stored AI API key does not open");
    let bytes = B64.decode(sealed).map_err(|_| unreadable())?;
    if bytes.len() <= NONCE {
        return Err(unreadable());
    }
    let (nonce, sealed) = bytes.split_at(NONCE);
    let nonce = <[u8; NONCE]>::try_from(nonce).map_err(|_| unreadable())?;
    let cipher = XChaCha20Poly1305::new(key.into());
    let opened = cipher
        .decrypt(&XNonce::from(nonce), Payload { msg: sealed, aad: site_id.as_bytes() })
        .map_err(|_| unreadable())?;
    String::from_utf8(opened).map_err(|_| unreadable())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_key_opens_only_for_its_site() {
        let key = [7u8; 32];
        let site = Uuid::new_v4();
        let sealed = seal(&key, "sk-secret", site).unwrap();
        assert!(!sealed.contains("sk-secret"));
        assert_eq!(open(&key, &sealed, site).unwrap(), "sk-secret");
        assert!(open(&key, &sealed, Uuid::new_v4()).is_err());
        assert!(open(&[8u8; 32], &sealed, site).is_err());
    }
}
