//! The AI settings and content assist at the origin service's admin's paths:
//! `GET`/`PUT`/`DELETE /sites/{site_id}/ai/config` (the settings under the
//! origin's names), `POST …/ai/test`, `POST …/ai/models` and `POST
//! …/ai/generate`. Same order of checks as every AI endpoint: the
//! capability, the module, the settings; the same provider client, SSRF guard
//! and bounds.

use std::collections::BTreeMap;

use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::assist::{self, AssistAction, GenerateResponse};
use super::handlers::ai_site;
use super::model::UpdateAiSettings;
use super::{provider, service, settings};
use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// A site's AI settings as the origin admin reads them.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AiConfigResponse {
    /// The site's id (a site has one configuration).
    pub id: Uuid,
    pub site_id: Uuid,
    pub provider_name: String,
    pub base_url: String,
    /// `********` when a key is stored, empty otherwise: the key is never shown.
    pub api_key_masked: String,
    pub model: String,
    /// Null leaves it to the provider.
    pub temperature: Option<f64>,
    /// Null leaves it to the provider.
    pub max_tokens: Option<i32>,
    /// The site's own instructions per action (`seo`, `excerpt`, `translate`, `draft_outline`, `draft_post`).
    pub system_prompts: BTreeMap<String, String>,
    pub updated_at: Option<DateTime<Utc>>,
}

/// The origin admin's `CreateAiConfigRequest`: the settings under its names.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct UpsertAiConfig {
    /// A label (`openai`, `ollama`, …), 1-50 characters.
    #[schema(min_length = 1, max_length = 50)]
    pub provider_name: Option<String>,
    /// The API root; no private network address (AI_URL_SSRF). Required on the first save.
    pub base_url: Option<String>,
    /// Omitted or blank keeps the stored key.
    pub api_key: Option<String>,
    /// 1-200 characters. Required on the first save.
    #[schema(min_length = 1, max_length = 200)]
    pub model: Option<String>,
    #[schema(minimum = 0, maximum = 2)]
    pub temperature: Option<f64>,
    #[schema(minimum = 1, maximum = 32000)]
    pub max_tokens: Option<i32>,
    /// Instructions per action, each at most 4,000 characters; replaces the stored ones.
    pub system_prompts: Option<BTreeMap<String, String>>,
}

/// Whether the provider answered a test call.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AiTestResponse {
    pub success: bool,
    /// What happened, without the provider's address or key.
    pub message: String,
}

/// A provider whose models to list (the stored key is used for the site's own base URL when none is sent). The
/// origin admin's `provider_name` is accepted and not needed: every provider is listed the OpenAI-compatible way.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct ListModelsRequest {
    /// The API root; no private network address (AI_URL_SSRF).
    pub base_url: String,
    pub api_key: Option<String>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ListModelsResponse {
    /// The ids `GET {base_url}/models` answered, sorted.
    pub models: Vec<String>,
}

/// The origin admin's `AiGenerateRequest`.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct GenerateRequest {
    pub action: AssistAction,
    /// The article, topic or outline, 1-50,000 characters.
    #[schema(min_length = 1, max_length = 50000)]
    pub content: String,
    /// `translate`: a locale code of the global list.
    pub target_locale: Option<String>,
}

fn config_response(site_id: Uuid, row: &plinth_entities::ai_settings::Model) -> AiConfigResponse {
    let shown = settings::response(site_id, Some(row));
    AiConfigResponse {
        id: site_id,
        site_id,
        provider_name: row.provider.clone(),
        base_url: row.base_url.clone(),
        api_key_masked: if shown.api_key_set { "********".into() } else { String::new() },
        model: row.model.clone(),
        temperature: row.temperature,
        max_tokens: row.max_tokens,
        system_prompts: shown.system_prompts,
        updated_at: shown.updated_at,
    }
}

/// The settings' entries record them in `/ai/settings`' shape; a conditional
/// write under this path holds the tag of this path's `GET`.
async fn compare_with_config(state: &AppState, site_id: Uuid) {
    if crate::preconditions::pending() {
        if let Ok(config) = stored_config(state, site_id).await {
            crate::preconditions::compare_with(&config);
        }
    }
}

async fn stored_config(state: &AppState, site_id: Uuid) -> ApiResult<AiConfigResponse> {
    let row = settings::stored(state, site_id).await?;
    row.map(|r| config_response(site_id, &r)).ok_or_else(|| ApiError::not_found("ai_settings", site_id))
}

/// Show a site's AI settings (the origin service's shape)
///
/// Admin role or higher on the site. Errors: MODULE_NOT_ENABLED, ENTITY_NOT_FOUND (no settings yet).
#[utoipa::path(get, path = "/sites/{site_id}/ai/config", tag = "AI", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = AiConfigResponse)))]
pub async fn get_ai_config(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    ai_site(&state, &principal, site_id, Capability::AdministerSite).await?;
    Ok(HttpResponse::Ok().json(stored_config(&state, site_id).await?))
}

/// Save a site's AI settings (the origin service's shape)
///
/// Admin role or higher on the site. `PUT /sites/{site_id}/ai/settings` under the origin's names. Errors:
/// MODULE_NOT_ENABLED, AI_URL_SSRF, VALIDATION_ERROR.
#[utoipa::path(put, path = "/sites/{site_id}/ai/config", tag = "AI", params(("site_id" = Uuid, Path)),
    request_body = UpsertAiConfig, responses((status = 200, body = AiConfigResponse)))]
pub async fn put_ai_config(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<UpsertAiConfig>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    ai_site(&state, &principal, site_id, Capability::AdministerSite).await?;
    compare_with_config(&state, site_id).await;
    let body = body.into_inner();
    let update = UpdateAiSettings {
        provider: body.provider_name,
        base_url: body.base_url,
        model: body.model,
        // Blank keeps the stored key, as the origin's form sends it.
        api_key: body.api_key.filter(|k| !k.trim().is_empty()).map(Some),
        temperature: body.temperature.map(Some),
        max_tokens: body.max_tokens.map(Some),
        system_prompts: body.system_prompts,
        ..UpdateAiSettings::default()
    };
    settings::update(&state, &principal.actor(), site_id, update).await?;
    Ok(HttpResponse::Ok().json(stored_config(&state, site_id).await?))
}

/// Delete a site's AI settings
///
/// Admin role or higher on the site. The key and the usage counters go with them; actions then answer
/// AI_NOT_CONFIGURED. Errors: MODULE_NOT_ENABLED, ENTITY_NOT_FOUND.
#[utoipa::path(delete, path = "/sites/{site_id}/ai/config", tag = "AI", params(("site_id" = Uuid, Path)),
    responses((status = 204, description = "Deleted")))]
pub async fn delete_ai_config(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    ai_site(&state, &principal, site_id, Capability::AdministerSite).await?;
    compare_with_config(&state, site_id).await;
    settings::remove(&state, &principal.actor(), site_id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Test a site's AI provider
///
/// Admin role or higher on the site. Sends one short call with the stored settings; answers 200 whether the
/// provider answered (`success`) or not (`message` says why, without its address or key). Errors:
/// MODULE_NOT_ENABLED, AI_NOT_CONFIGURED.
#[utoipa::path(post, path = "/sites/{site_id}/ai/test", tag = "AI", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = AiTestResponse)))]
pub async fn test_ai_config(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    ai_site(&state, &principal, site_id, Capability::AdministerSite).await?;
    let config = settings::config(&state, site_id).await?;
    let probe = provider::Prompt {
        system: r#"Answer with only this JSON object, nothing else: {"ok": true}"#.into(),
        user: provider::UserContent::Text("Are you there?".into()),
    };
    let answer = match provider::complete(&state, &config, &config.model, &probe).await {
        Ok(_) => {
            AiTestResponse { success: true, message: format!("the provider answered with model {}", config.model) }
        }
        Err(e) => AiTestResponse { success: false, message: e.detail().to_string() },
    };
    Ok(HttpResponse::Ok().json(answer))
}

/// List a provider's models
///
/// Admin role or higher on the site. `GET {base_url}/models` (OpenAI-compatible), through the SSRF guard, 10 s at
/// most, 2 MiB at most. Without `api_key`, the stored key is sent when `base_url` is the site's own. Errors:
/// MODULE_NOT_ENABLED, AI_URL_SSRF, AI_PROVIDER_UNAVAILABLE, AI_RESPONSE_PARSE_FAILED.
#[utoipa::path(post, path = "/sites/{site_id}/ai/models", tag = "AI", params(("site_id" = Uuid, Path)),
    request_body = ListModelsRequest, responses((status = 200, body = ListModelsResponse)))]
pub async fn list_ai_models(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<ListModelsRequest>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    ai_site(&state, &principal, site_id, Capability::AdministerSite).await?;
    let body = body.into_inner();
    let base_url = settings::checked_base_url(&state, &body.base_url).await?;
    let api_key = match body.api_key.filter(|k| !k.trim().is_empty()) {
        Some(key) => Some(key),
        None => match settings::config(&state, site_id).await {
            Ok(config) if config.base_url == base_url => config.api_key,
            _ => None,
        },
    };
    let models = provider::models(&state, &base_url, api_key.as_deref()).await?;
    Ok(HttpResponse::Ok().json(ListModelsResponse { models }))
}

/// Write with the site's AI provider (content assist)
///
/// Author role or higher on the site. `seo` → `meta_title`, `meta_description`; `excerpt` → `excerpt`;
/// `translate` → `title`, `subtitle`, `excerpt`, `body`, meta fields in `target_locale`; `draft_outline` →
/// `title`, `subtitle`, `outline`; `draft_post` → `body`, `excerpt`, meta fields. The site's `system_prompts`
/// replace Plinth's instructions per action. Errors: MODULE_NOT_ENABLED, AI_NOT_CONFIGURED, AI_PROVIDER_UNAVAILABLE,
/// AI_RESPONSE_PARSE_FAILED, VALIDATION_ERROR.
#[utoipa::path(post, path = "/sites/{site_id}/ai/generate", tag = "AI", params(("site_id" = Uuid, Path)),
    request_body = GenerateRequest, responses((status = 200, body = GenerateResponse)))]
pub async fn ai_generate(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<GenerateRequest>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    ai_site(&state, &principal, site_id, Capability::CreateContent).await?;
    let config = settings::config(&state, site_id).await?;
    let body = body.into_inner();
    let content = body.content.trim();
    service::within_limit("content", content)?;
    if content.is_empty() {
        return Err(ApiError::validation(vec![crate::error::FieldError::new(
            "content",
            crate::error::ErrorCode::ValidationRequiredField,
            "must not be empty",
        )]));
    }
    let target = service::optional_language(&state, "target_locale", body.target_locale.as_deref()).await?;
    if body.action == AssistAction::Translate && target.is_none() {
        return Err(ApiError::validation(vec![crate::error::FieldError::new(
            "target_locale",
            crate::error::ErrorCode::ValidationRequiredField,
            "translate needs the locale to translate into",
        )]));
    }
    let prompt = assist::prompt(body.action, content, target.as_ref(), &config.system_prompts);
    let answer = provider::complete(&state, &config, &config.model, &prompt).await?;
    let generated: GenerateResponse = assist::read(body.action, &answer)?;
    Ok(HttpResponse::Ok().json(generated))
}
