//! Site onboarding progress: a checklist each member ticks off on a site. The
//! spec leaves the step list open; Plinth's are the first things a new site
//! needs, in the order an admin front end shows them. The origin service's
//! admin shows its own checklist at its own path (`/onboarding-progress`);
//! both are kept in the same rows, each path counting its own steps.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use plinth_entities::{site_member, site_onboarding_step as step};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, DatabaseConnection, EntityTrait, PaginatorTrait, QueryFilter,
};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};

/// Plinth's checklist, in display order.
pub const ONBOARDING_STEPS: [&str; 6] = [
    "configure_site",
    "create_first_content",
    "publish_first_content",
    "set_up_navigation",
    "add_social_links",
    "invite_team_member",
];

/// The origin service's checklist (its admin's `SetupChecklist`), in display
/// order: the first five for every site, the last two once it has a team.
pub const ORIGIN_STEPS: [&str; 7] = [
    "create_site",
    "edit_first_post",
    "preview_site",
    "publish_first_post",
    "customize_settings",
    "invite_team",
    "setup_workflow",
];
/// The origin's steps every site shows; the rest need two members or more.
const ORIGIN_SOLO_STEPS: usize = 5;

/// Which admin's checklist a path reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checklist {
    /// The spec's paths: [`ONBOARDING_STEPS`].
    Plinth,
    /// The origin service's paths: [`ORIGIN_STEPS`].
    Origin,
}

impl Checklist {
    fn steps(self) -> &'static [&'static str] {
        match self {
            Checklist::Plinth => &ONBOARDING_STEPS,
            Checklist::Origin => &ORIGIN_STEPS,
        }
    }

    /// Steps the site shows: the origin's team steps count only for a team,
    /// as the origin counts them.
    async fn total(self, db: &DatabaseConnection, site_id: Uuid) -> ApiResult<usize> {
        Ok(match self {
            Checklist::Plinth => ONBOARDING_STEPS.len(),
            Checklist::Origin => {
                let members =
                    site_member::Entity::find().filter(site_member::Column::SiteId.eq(site_id)).count(db).await?;
                if members >= 2 {
                    ORIGIN_STEPS.len()
                } else {
                    ORIGIN_SOLO_STEPS
                }
            }
        })
    }

    /// Unknown steps are not found, before the body is looked at.
    pub fn ensure_known_step(self, step_key: &str) -> ApiResult<()> {
        if self.steps().contains(&step_key) {
            Ok(())
        } else {
            Err(ApiError::not_found("onboarding step", step_key))
        }
    }
}

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
    /// Builds progress on `checklist` from completion rows; several rows for
    /// one step (an API key's site-wide view) count once, at the earliest
    /// completion. Rows of the other checklist are not counted.
    fn from_rows(checklist: Checklist, total_steps: usize, rows: Vec<step::Model>) -> Self {
        let mut earliest: BTreeMap<String, DateTime<Utc>> = BTreeMap::new();
        for row in rows {
            earliest.entry(row.step_key).and_modify(|at| *at = (*at).min(row.completed_at)).or_insert(row.completed_at);
        }
        let completed_steps: Vec<CompletedStep> = checklist
            .steps()
            .iter()
            .filter_map(|key| {
                earliest.get(*key).map(|at| CompletedStep { step_key: key.to_string(), completed_at: *at })
            })
            .collect();
        let completed_count = completed_steps.len();
        let progress_percent = (completed_count * 100 / total_steps).min(100);
        Self { completed_steps, total_steps, completed_count, progress_percent }
    }
}

/// One user's progress on `checklist`, or with `user` `None` the site's
/// combined progress.
pub async fn progress(
    db: &DatabaseConnection,
    checklist: Checklist,
    site_id: Uuid,
    user: Option<&str>,
) -> ApiResult<OnboardingProgress> {
    let mut query = step::Entity::find().filter(step::Column::SiteId.eq(site_id));
    if let Some(user) = user {
        query = query.filter(step::Column::IdpUserId.eq(user));
    }
    let total = checklist.total(db, site_id).await?;
    Ok(OnboardingProgress::from_rows(checklist, total, query.all(db).await?))
}

/// Marks a known step completed for `user` (once: repeating it changes nothing)
/// and answers with their progress. `named_in_body`, when given, must be the step.
pub async fn complete_step(
    db: &crate::db::Db,
    checklist: Checklist,
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
    let txn = crate::db::begin_unaudited(db, "a member's own onboarding progress").await?;
    txn.touch(crate::db::Touched::Answers(site_id)); // the site's progress answers
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
    progress(db, checklist, site_id, Some(user)).await
}
