//! Site onboarding endpoints: a member's progress through the site checklist.

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::service::onboarding as service;
use super::service::onboarding::{Checklist, OnboardingProgress};
use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct CompleteStep {
    /// Optional; when given it must name the same step as the path.
    pub step_key: Option<String>,
}

/// The body is optional, but when sent it must be valid.
fn parse_optional_body(body: &[u8]) -> ApiResult<CompleteStep> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(CompleteStep::default());
    }
    serde_json::from_slice(body).map_err(|e| {
        if e.is_data() {
            ApiError::new(ErrorCode::ValidationError, format!("the request body has the wrong shape: {e}"))
        } else {
            ApiError::bad_request(format!("the request body is not valid JSON: {e}"))
        }
    })
}

/// Show a site's onboarding progress
///
/// The signed-in user's progress; for an API key, the site's combined progress (a step counts once any member has
/// completed it). Read role or higher on the site.
#[utoipa::path(get, path = "/sites/{site_id}/onboarding", tag = "Sites",
    params(("site_id" = Uuid, Path)),
    responses((status = 200, body = OnboardingProgress)))]
pub async fn get_site_onboarding(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    progress_on(&state, &principal, site_id.into_inner(), Checklist::Plinth).await
}

/// The caller's progress on `checklist` (an API key's: the site's), for the read role.
async fn progress_on(
    state: &AppState,
    principal: &Principal,
    site_id: Uuid,
    checklist: Checklist,
) -> ApiResult<HttpResponse> {
    principal.require(state, site_id, Capability::Read).await?;
    let user = principal.user().map(|u| u.idp_user_id.as_str());
    Ok(HttpResponse::Ok().json(service::progress(&state.db, checklist, site_id, user).await?))
}

/// Complete an onboarding step
///
/// Marks one step completed for the signed-in user; repeating it changes nothing. Author role or higher on the site;
/// JWT only (an API key gets 400 ONBOARDING_REQUIRES_IDP). Errors: VALIDATION_ERROR, BAD_REQUEST.
#[utoipa::path(
    post,
    path = "/sites/{site_id}/onboarding/{step}",
    tag = "Sites",
    params(
        ("site_id" = Uuid, Path),
        ("step" = String, Path, description = "One of configure_site, create_first_content, publish_first_content, set_up_navigation, add_social_links, invite_team_member")
    ),
    request_body(content = CompleteStep, description = "Optional"),
    responses((status = 200, body = OnboardingProgress)),
    security(("bearer" = []))
)]
pub async fn complete_onboarding_step(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, String)>,
    body: web::Bytes,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let (site_id, step_key) = path.into_inner();
    let user = principal.require_user(ErrorCode::OnboardingRequiresIdp)?.idp_user_id.clone();
    principal.require(&state, site_id, Capability::CreateContent).await?;
    Checklist::Plinth.ensure_known_step(&step_key)?;
    let named = parse_optional_body(&body)?.step_key;
    let progress =
        service::complete_step(&state.db, Checklist::Plinth, now, site_id, &user, &step_key, named.as_deref()).await?;
    Ok(HttpResponse::Ok().json(progress))
}

/// The step the origin service's admin completes.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CompleteOriginStep {
    /// One of create_site, edit_first_post, preview_site, publish_first_post, customize_settings, invite_team,
    /// setup_workflow.
    pub step_key: String,
}

/// Show a site's onboarding progress (the origin service's checklist)
///
/// The origin service's admin checklist at its path: five steps, seven once the site has two members or more
/// (`invite_team`, `setup_workflow`). The signed-in user's progress; for an API key, the site's combined progress.
/// Read role or higher on the site.
#[utoipa::path(get, path = "/sites/{site_id}/onboarding-progress", tag = "Sites",
    params(("site_id" = Uuid, Path)),
    responses((status = 200, body = OnboardingProgress)))]
pub async fn get_origin_onboarding(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    progress_on(&state, &principal, site_id.into_inner(), Checklist::Origin).await
}

/// Complete a step of the origin service's checklist
///
/// Marks one step completed for the signed-in user; repeating it changes nothing. Read role or higher on the site,
/// as the origin has it; JWT only (an API key gets 400 ONBOARDING_REQUIRES_IDP). An unknown step is 404 NOT_FOUND.
#[utoipa::path(put, path = "/sites/{site_id}/onboarding-progress", tag = "Sites",
    params(("site_id" = Uuid, Path)),
    request_body = CompleteOriginStep,
    responses((status = 200, body = OnboardingProgress)),
    security(("bearer" = [])))]
pub async fn complete_origin_onboarding_step(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<CompleteOriginStep>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let site_id = site_id.into_inner();
    let user = principal.require_user(ErrorCode::OnboardingRequiresIdp)?.idp_user_id.clone();
    principal.require(&state, site_id, Capability::Read).await?;
    let step_key = body.into_inner().step_key;
    Checklist::Origin.ensure_known_step(&step_key)?;
    let progress = service::complete_step(&state.db, Checklist::Origin, now, site_id, &user, &step_key, None).await?;
    Ok(HttpResponse::Ok().json(progress))
}
