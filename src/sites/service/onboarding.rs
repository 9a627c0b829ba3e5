//! Site onboarding progress: a fixed checklist each member ticks off on a site.
//! The spec leaves the step list open; these are the first things a new site
//! needs, in the order an admin front end shows them.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use plinth_entities::site_onboarding_step as step;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};

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
    /// The step's key.
    pub step_key: String,
    /// When it was completed.
    pub completed_at: DateTime<Utc>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct OnboardingProgress {
    /// In checklist order.
    pub completed_steps: Vec<CompletedStep>,
    /// Steps in the checklist.
    pub total_steps: usize,
    /// Steps completed.
    pub completed_count: usize,
    /// 0 to 100, rounded down.
    pub progress_percent: usize,
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

/// One user's progress, or with `user` `None` the site's combined progress.
pub async fn progress(db: &DatabaseConnection, site_id: Uuid, user: Option<&str>) -> ApiResult<OnboardingProgress> {
    let mut query = step::Entity::find().filter(step::Column::SiteId.eq(site_id));
    if let Some(user) = user {
        query = query.filter(step::Column::IdpUserId.eq(user));
    }
    Ok(OnboardingProgress::from_rows(query.all(db).await?))
}

/// Unknown steps are not found, before the body is looked at.
pub fn ensure_known_step(step_key: &str) -> ApiResult<()> {
    if ONBOARDING_STEPS.contains(&step_key) {
        Ok(())
    } else {
        Err(ApiError::not_found("onboarding step", step_key))
    }
}

/// Marks a known step completed for `user` (once: repeating it changes nothing)
/// and answers with their progress. `named_in_body`, when given, must be the step.
pub async fn complete_step(
    db: &DatabaseConnection,
    now: DateTime<Utc>,
    site_id: Uuid,
    user: &str,
    step_key: &str,
    named_in_body: Option<&str>,
) -> ApiResult<OnboardingProgress> {
    if named_in_body.is_some_and(|named| named != step_key) {
        return Err(ApiError::validation(vec![FieldError::new(
            "step_key",
            ErrorCode::ValidationInvalidFormat,
            "must match the step in the path",
        )]));
    }
    let txn = crate::db::begin_write(db).await?;
    let done = step::Entity::find_by_id((site_id, user.to_string(), step_key.to_string())).one(&txn).await?;
    if done.is_none() {
        step::ActiveModel {
            site_id: Set(site_id),
            idp_user_id: Set(user.to_string()),
            step_key: Set(step_key.to_string()),
            completed_at: Set(now),
        }
        .insert(&txn)
        .await?;
    }
    txn.commit().await?;
    progress(db, site_id, Some(user)).await
}
