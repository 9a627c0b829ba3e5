//! The retry pass: due deliveries (failed ones whose next attempt came,
//! stranded pending ones, those an open circuit held) claimed and sent again,
//! and the claims of what this process still holds renewed.

use actix_web::web;
use plinth_actors::Work;
use plinth_entities::webhook_delivery;
use sea_orm::sea_query::{Expr, LockBehavior, LockType};
use sea_orm::{ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

use super::delivery::{webhook_of, DeliveryStatus};
use super::dispatcher::WebhookRuntime;
use super::lanes::QueuedSend;
use crate::db::Touched;
use crate::error::ApiResult;

/// Claims due failed (or stranded pending) deliveries and sends them; the claim
/// uses `FOR UPDATE SKIP LOCKED` on PostgreSQL so two instances never send the
/// same attempt. Sends every due delivery, a batch at a time: after a restart
/// (or a backlog) the next batch goes at once instead of waiting for the next
/// poll. Returns how many were sent, once all are sent and recorded.
pub async fn retry_due(hooks: &web::Data<WebhookRuntime>) -> ApiResult<usize> {
    // Only what was due when the pass began: a delivery failing again in it
    // (even with a zero retry delay) waits for the next pass.
    let due_by = hooks.state.clock.now();
    renew_held_claims(hooks).await?;
    let mut total = 0;
    let mut sends = Vec::new();
    // Bounded, so one pass never keeps the worker forever.
    for _ in 0..RETRY_PASSES {
        let (claimed, full) = claim_batch(hooks, due_by).await?;
        total += claimed.len();
        // Concurrently, within the send slots: one at a time, a slow endpoint
        // held every other webhook's retries (and a restart's backlog) for its
        // response time per delivery.
        sends.extend(
            claimed.into_iter().map(|(delivery, queued)| actix::spawn(resend(hooks.clone(), delivery, queued))),
        );
        if !full {
            break;
        }
    }
    for send in sends {
        let _ = send.await;
    }
    Ok(total)
}

const RETRY_BATCH: u64 = 100;
const RETRY_PASSES: usize = 100;

/// Due deliveries, claimed by this instance for a lease, each with its place
/// in its webhook's queue (those an open circuit holds, or whose webhook's
/// queue is full, are re-dated instead), and whether the batch was full.
async fn claim_batch(
    hooks: &web::Data<WebhookRuntime>,
    due_by: chrono::DateTime<chrono::Utc>,
) -> ApiResult<(Vec<(webhook_delivery::Model, QueuedSend)>, bool)> {
    let state = &hooks.state;
    let now = state.clock.now();
    let txn = crate::db::begin_unaudited(&state.db, "webhook deliveries: their attempts are their record").await?;
    let mut select = webhook_delivery::Entity::find()
        .filter(webhook_delivery::Column::Status.is_in(DeliveryStatus::OPEN))
        .filter(webhook_delivery::Column::NextAttemptAt.lte(due_by))
        .order_by_asc(webhook_delivery::Column::NextAttemptAt)
        .limit(RETRY_BATCH);
    if state.db.get_database_backend() == DbBackend::Postgres {
        select = select.lock_with_behavior(LockType::Update, LockBehavior::SkipLocked);
    }
    let found = select.all(&txn).await?;
    for delivery in &found {
        txn.touch(Touched::Answers(delivery.site_id)); // claimed or held: due again later
    }
    // A webhook whose circuit is open keeps its deliveries in the database,
    // re-dated in one statement per probe time, instead of claiming each to
    // be held by a write of its own; once its cool-down ends, one delivery
    // goes as the probe and the others wait for the probe's outcome.
    let full = found.len() == RETRY_BATCH as usize;
    type Held = Vec<(Uuid, chrono::DateTime<chrono::Utc>)>;
    let (mut due, mut held): (Vec<(webhook_delivery::Model, QueuedSend)>, Held) = Default::default();
    let mut probing: Vec<Uuid> = Vec::new();
    // A full queue: due at the next pass.
    let next_pass = now + chrono::Duration::seconds(state.config.webhooks.retry_poll_secs.max(1) as i64);
    for delivery in found {
        let hook = delivery.webhook_id;
        match hooks.circuits.holds_until(hook, now) {
            Some(until) => held.push((delivery.id, until)),
            None if !hooks.circuits.closed(hook) && probing.contains(&hook) => {
                held.push((delivery.id, now + hooks.deliverer.claim.lease));
            }
            None => match hooks.queue_send(hook) {
                Some(queued) => {
                    if !hooks.circuits.closed(hook) {
                        probing.push(hook);
                    }
                    due.push((delivery, queued));
                }
                None => held.push((delivery.id, next_pass)),
            },
        }
    }
    let mut probe_times: Vec<chrono::DateTime<chrono::Utc>> = held.iter().map(|(_, until)| *until).collect();
    probe_times.sort();
    probe_times.dedup();
    for until in probe_times {
        let ids: Vec<Uuid> = held.iter().filter(|(_, at)| *at == until).map(|(id, _)| *id).collect();
        webhook_delivery::Entity::update_many()
            .col_expr(webhook_delivery::Column::NextAttemptAt, Expr::value(until))
            .col_expr(webhook_delivery::Column::ClaimedBy, Expr::value(Option::<Uuid>::None))
            .filter(webhook_delivery::Column::Id.is_in(ids))
            .exec(&txn)
            .await?;
    }
    let ids: Vec<Uuid> = due.iter().map(|(d, _)| d.id).collect();
    webhook_delivery::Entity::update_many()
        .col_expr(webhook_delivery::Column::NextAttemptAt, Expr::value(now + hooks.deliverer.claim.lease))
        .col_expr(webhook_delivery::Column::ClaimedBy, Expr::value(hooks.deliverer.claim.instance))
        .filter(webhook_delivery::Column::Id.is_in(ids))
        .exec(&txn)
        .await?;
    txn.commit().await?;
    for (delivery, _) in &due {
        hooks.hold(delivery);
    }
    Ok((due, full))
}

/// One claimed delivery sent again and its attempt recorded.
async fn resend(hooks: web::Data<WebhookRuntime>, delivery: webhook_delivery::Model, queued: QueuedSend) {
    let (site, id) = (delivery.site_id, delivery.id);
    // A panic fails this attempt alone (no attempt recorded); its claim lapses.
    // Its writes (the attempt, a hold by its circuit) wait in its site's lane.
    let attempt =
        crate::tenant::acting_for(crate::tenant::Tenant::Site(site), attempt_claimed(&hooks, delivery, queued));
    let _ = hooks.state.supervisors.contain(site, Work::Delivery, attempt).await;
    hooks.release(id);
}

/// Sends a claimed delivery and records the attempt.
async fn attempt_claimed(hooks: &web::Data<WebhookRuntime>, delivery: webhook_delivery::Model, queued: QueuedSend) {
    let id = delivery.id;
    let state = &hooks.state;
    match webhook_of(&state.db, &delivery).await {
        Ok(Some(hook)) => {
            if let Some(_turn) = hooks.turn_to_send(&delivery, &hook, queued).await {
                let now = state.clock.now();
                match hooks.deliverer.attempt(&state.db, now, delivery, &hook).await {
                    Ok(moved) => hooks.circuits.record(
                        hook.id,
                        moved.status == DeliveryStatus::Success,
                        moved.last_error.as_deref(),
                        state.clock.now(),
                    ),
                    Err(e) => {
                        tracing::warn!(error = %e, delivery = %id, "could not record a webhook attempt; sent again when its claim ends")
                    }
                }
            }
        }
        Ok(None) => {} // its webhook was deleted, and the delivery with it
        Err(e) => {
            tracing::warn!(error = %e, delivery = %id, "could not read a delivery's webhook; retried when its claim ends")
        }
    }
}

/// Extends the claims of the deliveries this process still holds (queued
/// behind a slow endpoint's send slots, say) by a lease from now: before this
/// instance's own pass looks for due deliveries, and often enough that other
/// instances never see them lapse. Each site's in its own write turns, a
/// job's transaction at a time: a site whose endpoints hang renews its own
/// queue, and another site's writer waits for one short transaction at most.
async fn renew_held_claims(hooks: &web::Data<WebhookRuntime>) -> ApiResult<()> {
    let mut by_site: std::collections::HashMap<Uuid, Vec<Uuid>> = Default::default();
    for entry in hooks.held.iter() {
        by_site.entry(*entry.value()).or_default().push(*entry.key());
    }
    let state = &hooks.state;
    let until = state.clock.now() + hooks.deliverer.claim.lease;
    let per_transaction = crate::db::rows_per_job_transaction(state.db.get_database_backend());
    for (site, held) in by_site {
        let renew = async {
            for chunk in held.chunks(per_transaction) {
                let txn = crate::db::begin_unaudited(&state.db, "webhook deliveries: their attempts are their record")
                    .await?;
                webhook_delivery::Entity::update_many()
                    .col_expr(webhook_delivery::Column::NextAttemptAt, Expr::value(until))
                    .filter(webhook_delivery::Column::ClaimedBy.eq(hooks.deliverer.claim.instance))
                    .filter(webhook_delivery::Column::Status.is_in(DeliveryStatus::OPEN))
                    .filter(webhook_delivery::Column::Id.is_in(chunk.to_vec()))
                    .exec(&txn)
                    .await?;
                txn.commit().await?;
            }
            ApiResult::Ok(())
        };
        crate::tenant::acting_for(crate::tenant::Tenant::Site(site), renew).await?;
    }
    Ok(())
}
