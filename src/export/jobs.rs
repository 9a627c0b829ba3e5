//! Export jobs: one queued or running per site (the database refuses a
//! second), per-job download tokens, expiry and purge, and recovery of jobs a
//! stopped process left behind.

use chrono::{Duration, Utc};
use hmac::{Hmac, Mac};
use plinth_entities::export_job;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde::Serialize;
use sha2::Sha256;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::audit::Actor;
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode};
use crate::state::AppState;

/// Artifact and link lapse this long after the build.
pub const LIFETIME_DAYS: i64 = 7;

pub use plinth_entities::values::ExportStatus as Status;

/// An export job as the API shows it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ExportJobResponse {
    pub id: Uuid,
    /// The site exported.
    pub site_id: Uuid,
    /// queued, running, ready or failed
    pub status: Status,
    pub created_at: chrono::DateTime<Utc>,
    /// The signed download link, while ready and not expired.
    pub download_url: Option<String>,
    /// 7 days after the build: link and archive lapse.
    pub expires_at: Option<chrono::DateTime<Utc>>,
    /// Why it failed.
    pub error: Option<String>,
    /// Archive size in bytes, once built.
    pub size: Option<i64>,
}

async fn token(state: &AppState, job: Uuid) -> ApiResult<String> {
    let secret = crate::secrets::get_or_create(state, "export_tokens").await?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&secret).map_err(ApiError::internal)?;
    mac.update(job.as_bytes());
    Ok(hex::encode(&mac.finalize().into_bytes()[..20]))
}

pub async fn check_token(state: &AppState, job: Uuid, given: &str) -> ApiResult<()> {
    let expected = token(state, job).await?;
    // Same length, compared without an early exit.
    let same = expected.len() == given.len()
        && expected.bytes().zip(given.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
    if same {
        Ok(())
    } else {
        Err(ApiError::new(ErrorCode::SiteExportJobNotFound, "no export with this token"))
    }
}

pub async fn response(state: &AppState, job: &export_job::Model) -> ApiResult<ExportJobResponse> {
    let download_url = match job.status {
        Status::Ready => Some(format!(
            "{}/api/v1/sites/{}/export/{}/download?token={}",
            state.config.public_url(),
            job.site_id,
            job.id,
            token(state, job.id).await?
        )),
        _ => None,
    };
    Ok(ExportJobResponse {
        id: job.id,
        site_id: job.site_id,
        status: job.status,
        created_at: job.created_at,
        download_url,
        expires_at: job.expires_at,
        error: job.error.clone(),
        size: job.size,
    })
}

pub async fn create(state: &AppState, site_id: Uuid, actor: &Actor) -> ApiResult<export_job::Model> {
    let row = export_job::ActiveModel {
        id: Set(Uuid::new_v4()),
        site_id: Set(site_id),
        status: Set(Status::Queued),
        storage_key: Set(None),
        size: Set(None),
        error: Set(None),
        created_by: Set(Some(actor.clone())),
        created_at: Set(state.clock.now()),
        started_at: Set(None),
        built_at: Set(None),
        expires_at: Set(None),
    };
    export_job::Entity::insert(row)
        .exec_with_returning(&state.db)
        .await
        .map_err(on_constraint(Constraint::Unique, || {
            ApiError::new(ErrorCode::SiteExportAlreadyRunning, "an export of this site is already queued or running")
        }))
}

/// The site's job `id`; expired ones are not found (and go).
pub async fn find(state: &AppState, site_id: Uuid, id: Uuid) -> ApiResult<export_job::Model> {
    let not_found = || ApiError::new(ErrorCode::SiteExportJobNotFound, "no such export, or its archive has expired");
    let job = export_job::Entity::find_by_id(id)
        .one(&state.db)
        .await?
        .filter(|j| j.site_id == site_id)
        .ok_or_else(not_found)?;
    if job.expires_at.is_some_and(|at| at <= state.clock.now()) {
        purge(state, &job).await;
        return Err(not_found());
    }
    Ok(job)
}

/// Moves a queued job to running; false when another builder took it.
pub async fn claim(state: &AppState, id: Uuid) -> ApiResult<bool> {
    let claimed = export_job::Entity::update_many()
        .col_expr(export_job::Column::Status, Expr::value(Status::Running))
        .col_expr(export_job::Column::StartedAt, Expr::value(state.clock.now()))
        .filter(export_job::Column::Id.eq(id))
        .filter(export_job::Column::Status.eq(Status::Queued))
        .exec(&state.db)
        .await?;
    Ok(claimed.rows_affected == 1)
}

pub async fn finish(state: &AppState, id: Uuid, outcome: Result<(String, i64), String>) -> ApiResult<()> {
    let now = state.clock.now();
    let mut update = export_job::Entity::update_many().filter(export_job::Column::Id.eq(id));
    update = match outcome {
        Ok((key, size)) => update
            .col_expr(export_job::Column::Status, Expr::value(Status::Ready))
            .col_expr(export_job::Column::StorageKey, Expr::value(key))
            .col_expr(export_job::Column::Size, Expr::value(size))
            .col_expr(export_job::Column::BuiltAt, Expr::value(now))
            .col_expr(export_job::Column::ExpiresAt, Expr::value(now + Duration::days(LIFETIME_DAYS))),
        Err(error) => update
            .col_expr(export_job::Column::Status, Expr::value(Status::Failed))
            .col_expr(export_job::Column::Error, Expr::value(error)),
    };
    update.exec(&state.db).await?;
    Ok(())
}

async fn purge(state: &AppState, job: &export_job::Model) {
    if let Some(key) = &job.storage_key {
        if let Err(e) = state.storage.delete(key).await {
            tracing::warn!(error = %e, "could not remove an expired export");
            return;
        }
    }
    if let Err(e) = export_job::Entity::delete_by_id(job.id).exec(&state.db).await {
        tracing::warn!(error = %e, "could not remove an expired export job");
    }
}

/// The Janitor's pass: archives past their seven days go.
pub async fn purge_expired(state: &AppState) -> ApiResult<usize> {
    let expired =
        export_job::Entity::find().filter(export_job::Column::ExpiresAt.lte(state.clock.now())).all(&state.db).await?;
    for job in &expired {
        purge(state, job).await;
    }
    Ok(expired.len())
}

/// At start: jobs a stopped process left running are queued again (their
/// partial archive is simply rebuilt); every queued job is answered with its
/// id so the builder takes it.
pub async fn recover(state: &AppState) -> ApiResult<Vec<Uuid>> {
    export_job::Entity::update_many()
        .col_expr(export_job::Column::Status, Expr::value(Status::Queued))
        .filter(export_job::Column::Status.eq(Status::Running))
        .exec(&state.db)
        .await?;
    Ok(export_job::Entity::find()
        .filter(export_job::Column::Status.eq(Status::Queued))
        .order_by_asc(export_job::Column::CreatedAt)
        .all(&state.db)
        .await?
        .into_iter()
        .map(|j| j.id)
        .collect())
}
