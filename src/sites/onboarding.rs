//! Site onboarding progress: a fixed checklist each member ticks off on a site.
//! The spec leaves the step list open; these are the first things a new site
//! needs, in the order an admin front end shows them.

use std::collections::BTreeMap;

use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use plinth_entities::site_onboarding_step as step;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::state::AppState;

/// The checklist, in display order.
pub const ONBOARDING_STEPS: [&str; 6] = [
    "configure_site",
    "create_first_content",
    "publish_first_content",
    "set_up_navigation",
    "add_social_links",
    "invite_team_member",
];

#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct CompletedStep {
    pub step_key: String,
    pub completed_at: DateTime<Utc>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct OnboardingProgress {
    /// In checklist order.
    pub completed_steps: Vec<CompletedStep>,
    pub total_steps: usize,
    pub completed_count: usize,
    /// 0 to 100, rounded down.
    pub progress_percent: usize,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct CompleteStep {
    /// Optional; when given it must name the same step as the path.
    pub step_key: Option<String>,
}

impl OnboardingProgress {
    /// Builds progress from completion rows; several rows for one step (an API
    /// key's site-wide view) count once, at the earliest completion.
    fn from_rows(rows: Vec<step::Model>) -> Self {
        let mut earliest: BTreeMap<String, DateTime<Utc>> = BTreeMap::new();
        for row in rows {
            earliest.entry(row.step_key).and_modify(|at| *at = (*at).min(row.completed_at)).or_insert(row.completed_at);
        }
        let completed_steps: Vec<CompletedStep> = ONBOARDING_STEPS
            .iter()
            .filter_map(|key| {
                earliest.get(*key).map(|at| CompletedStep { step_key: key.to_string(), completed_at: *at })
            })
            .collect();
        let completed_count = completed_steps.len();
        let total_steps = ONBOARDING_STEPS.len();
        Self { completed_steps, total_steps, completed_count, progress_percent: completed_count * 100 / total_steps }
    }
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

async fn progress(state: &AppState, site_id: Uuid, user: Option<&str>) -> ApiResult<OnboardingProgress> {
    let mut query = step::Entity::find().filter(step::Column::SiteId.eq(site_id));
    if let Some(user) = user {
        query = query.filter(step::Column::IdpUserId.eq(user));
    }
    Ok(OnboardingProgress::from_rows(query.all(&state.db).await?))
}

/// The signed-in user's progress; for an API key, the site's combined progress
/// (a step counts once any member has completed it).
#[utoipa::path(get, path = "/sites/{site_id}/onboarding", tag = "Sites",
    params(("site_id" = Uuid, Path)),
    responses((status = 200, body = OnboardingProgress)))]
pub async fn get_site_onboarding(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    let user = principal.user().map(|u| u.idp_user_id.as_str());
    Ok(HttpResponse::Ok().json(progress(&state, site_id, user).await?))
}

/// Marks one step completed for the signed-in user; repeating it changes nothing.
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
    let (site_id, step_key) = path.into_inner();
    let user = principal.require_user(ErrorCode::OnboardingRequiresIdp)?.idp_user_id.clone();
    principal.require(&state, site_id, Capability::CreateContent).await?;
    if !ONBOARDING_STEPS.contains(&step_key.as_str()) {
        return Err(ApiError::not_found("onboarding step", &step_key));
    }
    if let Some(named) = parse_optional_body(&body)?.step_key {
        if named != step_key {
            return Err(ApiError::validation(vec![FieldError::new(
                "step_key",
                ErrorCode::ValidationInvalidFormat,
                "must match the step in the path",
            )]));
        }
    }
    let txn = crate::db::begin_write(&state.db).await?;
    let done = step::Entity::find_by_id((site_id, user.clone(), step_key.clone())).one(&txn).await?;
    if done.is_none() {
        step::ActiveModel {
            site_id: Set(site_id),
            idp_user_id: Set(user.clone()),
            step_key: Set(step_key),
            completed_at: Set(state.clock.now()),
        }
        .insert(&txn)
        .await?;
    }
    txn.commit().await?;
    Ok(HttpResponse::Ok().json(progress(&state, site_id, Some(&user)).await?))
}
