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
use crate::instances::EXPORT_JOB;
use crate::state::AppState;

const POLL: Duration = Duration::from_secs(30);
/// Renewed while building (see `build_queued`), so a long archive keeps it.
const LEASE: Duration = Duration::from_secs(90);

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
                // Several instances: one builds at a time (the lease holder). A
                // job left running is resumed only by whoever takes the lease
                // next: the same instance restarted, or another once the dead
                // holder's lease ran out, never while its builder still works.
                let mut holding = false;
                loop {
                    let now = state.clock.now();
                    if state.cluster.may_run(&state.db, EXPORT_JOB, now, LEASE).await {
                        if !holding {
                            holding = true;
                            resume_unfinished(&state).await;
                        }
                        if let Err(e) = build_queued(&state).await {
                            tracing::warn!(error = %e, "export builder pass failed; will retry");
                        }
                    } else {
                        holding = false;
                    }
                    let _ = tokio::time::timeout(POLL, state.exports_queued.notified()).await;
                }
            }
            .into_actor(self),
        );
    }
}

async fn resume_unfinished(state: &web::Data<AppState>) {
    match jobs::recover(state).await {
        Ok(ids) if !ids.is_empty() => tracing::info!(jobs = ids.len(), "export jobs resumed"),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "could not look for unfinished exports"),
    }
}

/// Builds every queued job this builder manages to claim.
async fn build_queued(state: &web::Data<AppState>) -> crate::error::ApiResult<()> {
    loop {
        let next = export_job::Entity::find()
            .filter(export_job::Column::Status.eq(jobs::Status::Queued))
            .order_by_asc(export_job::Column::CreatedAt)
            .one(&state.db)
            .await?;
        let Some(job) = next else { return Ok(()) };
        if !jobs::claim(state, job.id).await? {
            continue;
        }
        let key = format!("exports/{}/{}.zip", job.site_id, job.id);
        let outcome = {
            let build = archive::build(state, job.site_id, &key);
            tokio::pin!(build);
            // Renew the lease while the archive is built, however long it takes.
            loop {
                tokio::select! {
                    outcome = &mut build => break outcome,
                    _ = tokio::time::sleep(LEASE / 3) => {
                        state.cluster.may_run(&state.db, EXPORT_JOB, state.clock.now(), LEASE).await;
                    }
                }
            }
        };
        if let Err(e) = &outcome {
            tracing::error!(error = %e, job = %job.id, "export failed");
        }
        jobs::finish(state, job.id, outcome.map(|size| (key, size))).await?;
    }
}
