//! The AI endpoints: the caller's capability on the site first, then the
//! module gate (`module_ai_enabled`, else 403 MODULE_NOT_ENABLED), then the
//! site's settings (AI_NOT_CONFIGURED), then the request.

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::model::{
    AiSettingsResponse, AltTextResponse, AutoTagResponse, SectionContentRequest, SectionContentResponse,
    SuggestRequest, SuggestResponse, TranslateRequest, TranslateResponse, UpdateAiSettings, VisionRequest,
};
use super::{service, settings, translate, vision};
use crate::auth::{Capability, Principal, SiteGrant};
use crate::content::{self, ContentKind};
use crate::error::{ApiResult, Problem};
use crate::state::AppState;

/// The capability, then the module gate.
pub(super) async fn ai_site(
    state: &AppState,
    principal: &Principal,
    site_id: Uuid,
    capability: Capability,
) -> ApiResult<SiteGrant> {
    let site = principal.require(state, site_id, capability).await?;
    state.site_state(site_id).await?.settings.require_ai()?;
    Ok(site)
}

/// The image of a vision request; when it saves to a media file, the caller's
/// `save_capability` on the file's sites is checked.
async fn vision_image(
    state: &AppState,
    principal: &Principal,
    site: &SiteGrant,
    body: &VisionRequest,
    save_capability: Capability,
) -> ApiResult<vision::Image> {
    let image = vision::image(state, site.site_id(), body).await?;
    if let Some(site_ids) = image.saving_to() {
        crate::media::access::authorize(state, principal, site_ids, save_capability).await?;
    }
    Ok(image)
}

/// Show a site's AI settings
///
/// Admin role or higher on the site. Errors: MODULE_NOT_ENABLED.
#[utoipa::path(get, path = "/sites/{site_id}/ai/settings", tag = "AI", params(("site_id" = Uuid, Path)),
    responses(
        (status = 200, body = AiSettingsResponse, description = "Site admins; `configured: false` while the site has none. The API key is never shown"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "MODULE_NOT_ENABLED")
    ))]
pub async fn get_ai_settings(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    ai_site(&state, &principal, site_id, Capability::AdministerSite).await?;
    let row = settings::stored(&state, site_id).await?;
    Ok(HttpResponse::Ok().json(settings::response(site_id, row.as_ref())))
}

/// Change a site's AI settings
///
/// Admin role or higher on the site. Errors: MODULE_NOT_ENABLED, AI_URL_SSRF, VALIDATION_INVALID_FORMAT,
/// VALIDATION_OUT_OF_RANGE.
#[utoipa::path(put, path = "/sites/{site_id}/ai/settings", tag = "AI", params(("site_id" = Uuid, Path)),
    request_body = UpdateAiSettings,
    responses(
        (status = 200, body = AiSettingsResponse, description = "Site admins. The key is stored encrypted"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "AI_URL_SSRF: base_url is on a private network"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "MODULE_NOT_ENABLED")
    ))]
pub async fn update_ai_settings(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<UpdateAiSettings>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    let site = ai_site(&state, &principal, site_id, Capability::AdministerSite).await?;
    let saved = settings::update(&state, site.actor(), site_id, body.into_inner()).await?;
    Ok(HttpResponse::Ok().json(saved))
}

/// Suggest text with the site's AI provider
///
/// Author role or higher on the site. Errors: MODULE_NOT_ENABLED, AI_NOT_CONFIGURED, AI_CONTEXT_INSUFFICIENT,
/// AI_PROVIDER_UNAVAILABLE, AI_RESPONSE_PARSE_FAILED, VALIDATION_REQUIRED_FIELD.
#[utoipa::path(post, path = "/sites/{site_id}/ai/suggest", tag = "AI", params(("site_id" = Uuid, Path)),
    request_body = SuggestRequest,
    responses(
        (status = 200, body = SuggestResponse, description = "Authors. The model is asked for `{\"suggestions\": [\"…\"]}`"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "AI_NOT_CONFIGURED; AI_CONTEXT_INSUFFICIENT: content under 50 characters once trimmed"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "MODULE_NOT_ENABLED"),
        (status = 500, body = Problem, content_type = "application/problem+json", description = "AI_RESPONSE_PARSE_FAILED"),
        (status = 503, body = Problem, content_type = "application/problem+json", description = "AI_PROVIDER_UNAVAILABLE: unreachable, timed out, answered an error, or 4 calls of the site in flight")
    ))]
pub async fn ai_suggest(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<SuggestRequest>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    ai_site(&state, &principal, site_id, Capability::CreateContent).await?;
    Ok(HttpResponse::Ok().json(service::suggest(&state, site_id, body.into_inner()).await?))
}

/// Translate text with the site's AI provider
///
/// Author role or higher on the site. Errors: MODULE_NOT_ENABLED, AI_NOT_CONFIGURED, AI_TRANSLATE_INVALID,
/// AI_PROVIDER_UNAVAILABLE, AI_RESPONSE_PARSE_FAILED.
#[utoipa::path(post, path = "/sites/{site_id}/ai/translate", tag = "AI", params(("site_id" = Uuid, Path)),
    request_body = TranslateRequest,
    responses(
        (status = 200, body = TranslateResponse, description = "Authors. The model is asked for `{\"translations\": {\"<field>\": \"…\"}}`"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "AI_NOT_CONFIGURED; AI_TRANSLATE_INVALID: unknown locale, nothing to translate, save without content_id"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "MODULE_NOT_ENABLED"),
        (status = 500, body = Problem, content_type = "application/problem+json", description = "AI_RESPONSE_PARSE_FAILED"),
        (status = 503, body = Problem, content_type = "application/problem+json", description = "AI_PROVIDER_UNAVAILABLE")
    ))]
pub async fn ai_translate(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<TranslateRequest>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    ai_site(&state, &principal, site_id, Capability::CreateContent).await?;
    // Saving writes the item's localization: the caller must be able to edit it.
    let may_save =
        async |kind: ContentKind, id: Uuid| content::access::editable(&state, &principal, kind, id, false).await;
    Ok(HttpResponse::Ok().json(translate::translate(&state, site_id, body.into_inner(), may_save).await?))
}

/// Describe an image with the site's AI provider
///
/// Author role or higher on the site. Errors: MODULE_NOT_ENABLED, AI_NOT_CONFIGURED, AI_VISION_MISSING_IMAGE,
/// AI_PROVIDER_UNAVAILABLE, AI_RESPONSE_PARSE_FAILED.
#[utoipa::path(post, path = "/sites/{site_id}/ai/alt_text", tag = "AI", params(("site_id" = Uuid, Path)),
    request_body = VisionRequest,
    responses(
        (status = 200, body = AltTextResponse, description = "Authors; the vision model. The model is asked for `{\"alt_text\": \"…\"}`"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "AI_NOT_CONFIGURED; AI_VISION_MISSING_IMAGE"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "MODULE_NOT_ENABLED"),
        (status = 500, body = Problem, content_type = "application/problem+json", description = "AI_RESPONSE_PARSE_FAILED"),
        (status = 503, body = Problem, content_type = "application/problem+json", description = "AI_PROVIDER_UNAVAILABLE")
    ))]
pub async fn ai_alt_text(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<VisionRequest>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    let site = ai_site(&state, &principal, site_id, Capability::CreateContent).await?;
    let body = body.into_inner();
    let image = vision_image(&state, &principal, &site, &body, Capability::Read).await?;
    Ok(HttpResponse::Ok().json(vision::alt_text(&state, &site, image, body).await?))
}

/// Suggest tags with the site's AI provider
///
/// Author role or higher on the site. Errors: MODULE_NOT_ENABLED, AI_NOT_CONFIGURED, AI_CONTEXT_INSUFFICIENT,
/// AI_PROVIDER_UNAVAILABLE, AI_RESPONSE_PARSE_FAILED.
#[utoipa::path(post, path = "/sites/{site_id}/ai/auto_tag", tag = "AI", params(("site_id" = Uuid, Path)),
    request_body = VisionRequest,
    responses(
        (status = 200, body = AutoTagResponse, description = "Authors; the vision model. The model is asked for `{\"tags\": [\"…\"]}`"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "AI_NOT_CONFIGURED; AI_VISION_MISSING_IMAGE"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "MODULE_NOT_ENABLED"),
        (status = 500, body = Problem, content_type = "application/problem+json", description = "AI_RESPONSE_PARSE_FAILED"),
        (status = 503, body = Problem, content_type = "application/problem+json", description = "AI_PROVIDER_UNAVAILABLE")
    ))]
pub async fn ai_auto_tag(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<VisionRequest>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    let site = ai_site(&state, &principal, site_id, Capability::CreateContent).await?;
    let body = body.into_inner();
    let image = vision_image(&state, &principal, &site, &body, Capability::CreateContent).await?;
    Ok(HttpResponse::Ok().json(vision::auto_tag(&state, &site, image, body).await?))
}

/// Write a page section with the site's AI provider
///
/// Author role or higher on the site. Errors: MODULE_NOT_ENABLED, AI_NOT_CONFIGURED, AI_SECTION_TYPE_UNKNOWN,
/// AI_SECTION_CONTEXT_INSUFFICIENT, AI_PROVIDER_UNAVAILABLE, AI_RESPONSE_PARSE_FAILED.
#[utoipa::path(post, path = "/sites/{site_id}/ai/section_content", tag = "AI", params(("site_id" = Uuid, Path)),
    request_body = SectionContentRequest,
    responses(
        (status = 200, body = SectionContentResponse, description = "Authors. The model is asked for `{\"content\": {…}}` in the shape of the section type"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "AI_NOT_CONFIGURED; AI_SECTION_TYPE_UNKNOWN; AI_SECTION_CONTEXT_INSUFFICIENT: section_type missing or section_context under 20 characters"),
        (status = 403, body = Problem, content_type = "application/problem+json", description = "MODULE_NOT_ENABLED"),
        (status = 500, body = Problem, content_type = "application/problem+json", description = "AI_RESPONSE_PARSE_FAILED"),
        (status = 503, body = Problem, content_type = "application/problem+json", description = "AI_PROVIDER_UNAVAILABLE")
    ))]
pub async fn ai_section_content(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<SectionContentRequest>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    ai_site(&state, &principal, site_id, Capability::CreateContent).await?;
    Ok(HttpResponse::Ok().json(service::section_content(&state, site_id, body.into_inner()).await?))
}
