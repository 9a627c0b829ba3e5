//! From events to deliveries. The [`WebhookDispatcher`] actor receives every
//! event from the bus: a webhook without debounce gets a delivery at once, a
//! debounced one gets the event in its (persisted) buffer. Two periodic passes
//! finish the work: [`flush_due`] turns closed buffer windows into `batch`
//! deliveries, [`retry_due`] re-sends failed deliveries whose time has come.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use actix_web::web;
use dashmap::DashMap;
use plinth_entities::{webhook, webhook_buffer, webhook_delivery};
use sea_orm::sea_query::{Expr, LockBehavior, LockType};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, DbBackend, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
};
use serde_json::{json, Value};
use uuid::Uuid;

use super::delivery::{enqueue, webhook_of, Deliverer, DeliveryStatus, CLAIM_LEASE};
use super::events::wants;
use crate::app::AppState;
use crate::error::ApiResult;
use crate::events::DomainEvent;

/// How long a site's webhook list is trusted before it is read again.
const SUBSCRIPTIONS_TTL: Duration = Duration::from_secs(30);

/// Shared webhook state: the sender and each site's active webhooks.
pub struct WebhookRuntime {
    pub deliverer: Deliverer,
    subscriptions: DashMap<Uuid, (Instant, Arc<Vec<webhook::Model>>)>,
    /// Events the dispatcher has finished with (see [`WebhookRuntime::drained`]).
    processed: AtomicU64,
}

impl WebhookRuntime {
    pub fn new(deliverer: Deliverer) -> Self {
        Self { deliverer, subscriptions: DashMap::new(), processed: AtomicU64::new(0) }
    }

    /// After a webhook of the site changed.
    pub fn invalidate(&self, site_id: Uuid) {
        self.subscriptions.remove(&site_id);
    }

    async fn active_for(&self, state: &AppState, site_id: Uuid) -> ApiResult<Arc<Vec<webhook::Model>>> {
        if let Some(hit) = self.subscriptions.get(&site_id) {
            if hit.0.elapsed() < SUBSCRIPTIONS_TTL {
                return Ok(Arc::clone(&hit.1));
            }
        }
        let hooks = Arc::new(
            webhook::Entity::find()
                .filter(webhook::Column::SiteId.eq(site_id))
                .filter(webhook::Column::IsActive.eq(true))
                .all(&state.db)
                .await?,
        );
        self.subscriptions.insert(site_id, (Instant::now(), Arc::clone(&hooks)));
        Ok(hooks)
    }

    /// Waits (at most `limit`) until every event published so far has been
    /// turned into deliveries or buffer rows: called on shutdown.
    pub async fn drained(&self, state: &AppState, limit: Duration) {
        let started = Instant::now();
        while self.processed.load(Ordering::SeqCst) < state.events.published() && started.elapsed() < limit {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

pub fn subscribed_events(hook: &webhook::Model) -> Vec<String> {
    serde_json::from_value(hook.events.clone()).unwrap_or_default()
}

/// The spec's single-event body.
pub fn event_body(event: &DomainEvent) -> Value {
    json!({"event": event.event, "timestamp": event.timestamp, "site_id": event.site_id, "data": event.data})
}

/// Sends a freshly enqueued delivery in the background.
fn send_now(state: web::Data<AppState>, delivery: webhook_delivery::Model, hook: webhook::Model) {
    actix::spawn(async move {
        let now = state.clock.now();
        if let Err(e) = state.webhooks.deliverer.attempt(&state.db, now, delivery, &hook).await {
            tracing::warn!(error = %e, "could not record a webhook attempt; the retry worker will resend");
        }
    });
}

async fn dispatch(state: &web::Data<AppState>, event: &DomainEvent) -> ApiResult<()> {
    let hooks = state.webhooks.active_for(state, event.site_id).await?;
    for hook in hooks.iter().filter(|h| wants(&subscribed_events(h), &event.event)) {
        if hook.debounce_seconds == 0 {
            let delivery = enqueue(&state.db, hook, &event.event, &event_body(event), state.clock.now()).await?;
            send_now(state.clone(), delivery, hook.clone());
        } else {
            webhook_buffer::ActiveModel {
                id: Set(Uuid::new_v4()),
                webhook_id: Set(hook.id),
                event: Set(event.event.clone()),
                data: Set(event.data.clone()),
                created_at: Set(state.clock.now()),
            }
            .insert(&state.db)
            .await?;
        }
    }
    Ok(())
}

pub struct WebhookDispatcher {
    state: web::Data<AppState>,
}

impl WebhookDispatcher {
    pub fn new(state: web::Data<AppState>) -> Self {
        Self { state }
    }
}

impl Actor for WebhookDispatcher {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        let state = self.state.clone();
        let mut events = state.events.subscribe();
        ctx.spawn(
            async move {
                loop {
                    match events.recv().await {
                        Ok(event) => {
                            if let Err(e) = dispatch(&state, &event).await {
                                tracing::error!(error = %e, event = %event.event, "could not queue webhook deliveries");
                            }
                            state.webhooks.processed.fetch_add(1, Ordering::SeqCst);
                        }
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(missed)) => {
                            tracing::error!(missed, "the webhook dispatcher fell behind the event bus");
                            state.webhooks.processed.fetch_add(missed, Ordering::SeqCst);
                        }
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                    }
                }
            }
            .into_actor(self),
        );
    }
}

/// Turns every buffer whose window has closed into one `batch` delivery (at most
/// `flush_batch` webhooks per pass) and sends them.
pub async fn flush_due(state: &web::Data<AppState>) -> ApiResult<usize> {
    let now = state.clock.now();
    let oldest: Vec<(Uuid, chrono::DateTime<chrono::Utc>)> = webhook_buffer::Entity::find()
        .select_only()
        .column(webhook_buffer::Column::WebhookId)
        .column_as(webhook_buffer::Column::CreatedAt.min(), "oldest")
        .group_by(webhook_buffer::Column::WebhookId)
        .into_tuple()
        .all(&state.db)
        .await?;
    let ids: Vec<Uuid> = oldest.iter().map(|(id, _)| *id).collect();
    let hooks = webhook::Entity::find().filter(webhook::Column::Id.is_in(ids)).all(&state.db).await?;
    let ready: Vec<&webhook::Model> = hooks
        .iter()
        .filter(|h| {
            oldest
                .iter()
                .any(|(id, at)| *id == h.id && *at + chrono::Duration::seconds(i64::from(h.debounce_seconds)) <= now)
        })
        .take(usize::try_from(state.config.webhooks.flush_batch).unwrap_or(10))
        .collect();
    let mut flushed = 0;
    for hook in ready {
        let txn = crate::db::begin_write(&state.db).await?;
        let mut select = webhook_buffer::Entity::find()
            .filter(webhook_buffer::Column::WebhookId.eq(hook.id))
            .order_by_asc(webhook_buffer::Column::CreatedAt)
            .order_by_asc(webhook_buffer::Column::Id);
        if state.db.get_database_backend() == DbBackend::Postgres {
            select = select.lock_with_behavior(LockType::Update, LockBehavior::SkipLocked);
        }
        let events = select.all(&txn).await?;
        if events.is_empty() {
            continue; // another instance flushed it
        }
        let ids: Vec<Uuid> = events.iter().map(|e| e.id).collect();
        webhook_buffer::Entity::delete_many().filter(webhook_buffer::Column::Id.is_in(ids)).exec(&txn).await?;
        let body = json!({
            "event": "batch",
            "timestamp": now,
            "site_id": hook.site_id,
            "events": events.iter().map(|e| json!({"event": e.event, "data": e.data})).collect::<Vec<_>>(),
            "event_count": events.len(),
            "batch_window_seconds": hook.debounce_seconds,
        });
        let delivery = enqueue(&txn, hook, "batch", &body, now).await?;
        txn.commit().await?;
        send_now(state.clone(), delivery, hook.clone());
        flushed += 1;
    }
    Ok(flushed)
}

/// Claims due failed (or stranded pending) deliveries and sends them; the claim
/// uses `FOR UPDATE SKIP LOCKED` on PostgreSQL so two instances never send the
/// same attempt. Returns how many were sent.
pub async fn retry_due(state: &web::Data<AppState>) -> ApiResult<usize> {
    let now = state.clock.now();
    let txn = crate::db::begin_write(&state.db).await?;
    let mut select = webhook_delivery::Entity::find()
        .filter(
            webhook_delivery::Column::Status.is_in([DeliveryStatus::Pending.as_str(), DeliveryStatus::Failed.as_str()]),
        )
        .filter(webhook_delivery::Column::NextAttemptAt.lte(now))
        .order_by_asc(webhook_delivery::Column::NextAttemptAt)
        .limit(100);
    if state.db.get_database_backend() == DbBackend::Postgres {
        select = select.lock_with_behavior(LockType::Update, LockBehavior::SkipLocked);
    }
    let due = select.all(&txn).await?;
    let ids: Vec<Uuid> = due.iter().map(|d| d.id).collect();
    webhook_delivery::Entity::update_many()
        .col_expr(webhook_delivery::Column::NextAttemptAt, Expr::value(now + CLAIM_LEASE))
        .filter(webhook_delivery::Column::Id.is_in(ids))
        .exec(&txn)
        .await?;
    txn.commit().await?;
    let count = due.len();
    for delivery in due {
        let Some(hook) = webhook_of(&state.db, &delivery).await? else { continue };
        state.webhooks.deliverer.attempt(&state.db, now, delivery, &hook).await?;
    }
    Ok(count)
}
