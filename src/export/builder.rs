//! ExportBuilder: takes queued export jobs (claimed in the database, so with
//! several instances each job is built once) and builds their archives, one
//! at a time. Woken when a job is queued, and every 30 s for jobs queued
//! elsewhere; at start it queues again what a stopped process left running.

use std::time::Duration;

use actix::prelude::*;
use actix_web::web;
use plinth_entities::export_job;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};

use super::{archive, jobs};
use crate::state::AppState;

const POLL: Duration = Duration::from_secs(30);

pub struct ExportBuilder {
    state: web::Data<AppState>,
}

impl ExportBuilder {
    pub fn new(state: web::Data<AppState>) -> Self {
        Self { state }
    }
}

impl Actor for ExportBuilder {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        let state = self.state.clone();
        ctx.spawn(
            async move {
                match jobs::recover(&state).await {
                    Ok(ids) if !ids.is_empty() => tracing::info!(jobs = ids.len(), "export jobs resumed"),
                    Ok(_) => {}
                    Err(e) => tracing::warn!(error = %e, "could not look for unfinished exports"),
                }
                loop {
                    if let Err(e) = build_queued(&state).await {
                        tracing::warn!(error = %e, "export builder pass failed; will retry");
                    }
                    let _ = tokio::time::timeout(POLL, state.exports_queued.notified()).await;
                }
            }
            .into_actor(self),
        );
    }
}

/// Builds every queued job this builder manages to claim.
async fn build_queued(state: &AppState) -> crate::error::ApiResult<()> {
    loop {
        let next = export_job::Entity::find()
            .filter(export_job::Column::Status.eq(jobs::Status::Queued.as_str()))
            .order_by_asc(export_job::Column::CreatedAt)
            .one(&state.db)
            .await?;
        let Some(job) = next else { return Ok(()) };
        if !jobs::claim(state, job.id).await? {
            continue;
        }
        let key = format!("exports/{}/{}.zip", job.site_id, job.id);
        let outcome = archive::build(state, job.site_id, &key).await;
        if let Err(e) = &outcome {
            tracing::error!(error = %e, job = %job.id, "export failed");
        }
        jobs::finish(state, job.id, outcome.map(|size| (key, size))).await?;
    }
}
