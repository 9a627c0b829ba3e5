//! From events to deliveries. Mutations write their events to the outbox in
//! their own transaction; [`dispatch_outbox`] turns outbox rows into deliveries
//! (a webhook without debounce: sent at once) or buffer rows (debounced), and
//! removes them, in one transaction. The [`WebhookDispatcher`] actor runs it
//! whenever the bus announces events; the flush pass runs it too, so rows left
//! by a crashed process are picked up. [`flush_due`] turns closed buffer windows
//! into `batch` deliveries, [`retry_due`] re-sends failed deliveries when due.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use actix_web::web;
use dashmap::DashMap;
use plinth_actors::{SiteHotState, Work};
use plinth_entities::{event_outbox, webhook, webhook_buffer, webhook_delivery};
use sea_orm::sea_query::{LockBehavior, LockType};
use sea_orm::{
    ActiveValue::{NotSet, Set},
    ColumnTrait, DbBackend, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
};
use serde_json::{json, Value};
use uuid::Uuid;

use super::delivery::{enqueue, new_delivery, Deliverer};
use super::events::wants;
use crate::db::Touched;
use crate::error::ApiResult;
use crate::events::{DomainEvent, EventName};
use crate::state::AppState;

/// How long a site's webhook list is trusted before it is read again.
const SUBSCRIPTIONS_TTL: Duration = Duration::from_secs(30);

/// The webhook machinery the workers and the webhook handlers share: the sender
/// and each site's active webhooks. Registered as its own app data beside the
/// [`AppState`], which knows nothing of webhooks.
pub struct WebhookRuntime {
    pub state: web::Data<AppState>,
    pub deliverer: Deliverer,
    /// Results of deliveries sent at once, written in batches.
    pub results: super::results::ResultBuffer,
    /// Write-lock holds of the fan-out transactions and of the result batches.
    pub fan_out_holds: super::holds::WriteHolds,
    pub result_holds: super::holds::WriteHolds,
    /// Send slots, all sites together, shared fairly across sites (`lanes`).
    pub(super) site_lanes: Arc<plinth_actors::FairShare<Uuid>>,
    /// Sends queued and in flight per webhook: a slow endpoint queues its own
    /// deliveries, a bounded number (`lanes`), without holding the shared
    /// slots the others need.
    pub(super) sends_per_webhook: DashMap<Uuid, Arc<super::lanes::EndpointSends>>,
    pub(super) sends_per_endpoint: usize,
    /// Each webhook's circuit breaker (`circuits`).
    pub circuits: super::circuits::Circuits,
    subscriptions: DashMap<Uuid, (Instant, Arc<Vec<webhook::Model>>)>,
    /// Which sites' events the fan-out takes next (`outbox_turns`).
    outbox_turns: super::outbox_turns::OutboxTurns,
    /// Deliveries this process holds in memory (waiting for a send slot,
    /// sending, or their result waiting to be written). Their claims are
    /// renewed by every retry pass, so a send queued behind a slow endpoint
    /// for longer than the lease is never claimed and sent a second time.
    /// By id, with each one's site (whose write turns renew it).
    pub(super) held: DashMap<Uuid, Uuid>,
}

impl WebhookRuntime {
    pub fn new(state: web::Data<AppState>, deliverer: Deliverer) -> Self {
        let tenants = &state.config.tenants;
        let slots = usize::try_from(tenants.webhook_send_slots).unwrap_or(256);
        let circuits = super::circuits::Circuits::new(tenants);
        let sends_per_endpoint = usize::try_from(tenants.webhook_sends_per_endpoint).unwrap_or(16).max(1);
        Self {
            deliverer,
            results: Default::default(),
            fan_out_holds: Default::default(),
            result_holds: Default::default(),
            site_lanes: plinth_actors::FairShare::new(plinth_actors::Policy {
                capacity: slots,
                per_lane: slots,
                guaranteed_share: true,
            }),
            sends_per_webhook: DashMap::new(),
            sends_per_endpoint,
            circuits,
            state,
            subscriptions: DashMap::new(),
            outbox_turns: Default::default(),
            held: DashMap::new(),
        }
    }

    pub fn hold(&self, delivery: &webhook_delivery::Model) {
        self.held.insert(delivery.id, delivery.site_id);
    }

    /// Its result is written (or lost, and the claim may lapse).
    pub fn release(&self, delivery_id: Uuid) {
        self.held.remove(&delivery_id);
    }

    /// After a webhook of the site changed: here and on the other instances.
    pub fn invalidate(&self, site_id: Uuid) {
        self.subscriptions.remove(&site_id);
        self.state.cluster.publish(crate::cluster::Invalidation::Webhooks(site_id));
    }

    /// What another instance changed: one site's subscriptions, or all of them.
    pub fn invalidate_here(&self, site_id: Option<Uuid>) {
        match site_id {
            Some(site_id) => self.subscriptions.remove(&site_id),
            None => {
                self.subscriptions.clear();
                None
            }
        };
    }

    async fn active_for(&self, site_id: Uuid) -> ApiResult<Arc<Vec<webhook::Model>>> {
        if let Some(hit) = self.subscriptions.get(&site_id) {
            if hit.0.elapsed() < SUBSCRIPTIONS_TTL {
                return Ok(Arc::clone(&hit.1));
            }
        }
        let hooks = Arc::new(
            webhook::Entity::find()
                .filter(webhook::Column::SiteId.eq(site_id))
                .filter(webhook::Column::IsActive.eq(true))
                .all(&self.state.db)
                .await?,
        );
        self.subscriptions.insert(site_id, (Instant::now(), Arc::clone(&hooks)));
        Ok(hooks)
    }
}

/// A site's webhook list is hot state: forgotten when its supervisor stops.
/// Held weakly, so the runtime (which holds the state) is not kept alive by it.
pub struct SubscriptionsOf(pub std::sync::Weak<WebhookRuntime>);

impl SiteHotState for SubscriptionsOf {
    fn forget_site(&self, site: Uuid) {
        if let Some(hooks) = self.0.upgrade() {
            hooks.subscriptions.remove(&site);
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
fn send_now(
    hooks: web::Data<WebhookRuntime>,
    delivery: webhook_delivery::Model,
    hook: webhook::Model,
    queued: super::lanes::QueuedSend,
) {
    hooks.results.sending();
    hooks.hold(&delivery);
    actix::spawn(async move {
        let (site, id) = (delivery.site_id, delivery.id);
        let send = async {
            let Some(_turn) = hooks.turn_to_send(&delivery, &hook, queued).await else {
                // Its circuit holds it: due again later, no attempt counted.
                hooks.results.not_sent();
                hooks.release(delivery.id);
                return;
            };
            let result = hooks.deliverer.send(&hook.url, &hook.secret, delivery.id, &delivery.payload).await;
            let at = hooks.state.clock.now();
            hooks.circuits.record(hook.id, result.success, result.error.as_deref(), at);
            hooks.results.push(super::results::Outcome { delivery, result, at });
        };
        // Its writes (a hold by its circuit) wait in its site's lane.
        let send = crate::tenant::acting_for(crate::tenant::Tenant::Site(site), send);
        if hooks.state.supervisors.contain(site, Work::Delivery, send).await.is_err() {
            // No attempt recorded: its claim lapses and the retry pass sends it.
            hooks.results.not_sent();
            hooks.release(id);
        }
    });
}

/// Deliveries held while their transaction commits: released again if it fails
/// (dropped before [`Holding::keep`]); kept, their sends release them.
struct Holding<'a> {
    hooks: &'a WebhookRuntime,
    ids: Vec<Uuid>,
}

impl<'a> Holding<'a> {
    fn new<'d>(hooks: &'a WebhookRuntime, deliveries: impl Iterator<Item = &'d webhook_delivery::Model>) -> Self {
        let ids = deliveries
            .map(|delivery| {
                hooks.hold(delivery);
                delivery.id
            })
            .collect();
        Self { hooks, ids }
    }

    fn keep(mut self) {
        self.ids.clear();
    }
}

impl Drop for Holding<'_> {
    fn drop(&mut self) {
        for id in &self.ids {
            self.hooks.release(*id);
        }
    }
}

/// Outbox rows read per pass.
const OUTBOX_BATCH: usize = 200;
/// Rows per multi-row insert: 13 columns × 500 stays far below SQLite's and
/// PostgreSQL's bound-parameter limits.
pub(super) const INSERT_CHUNK: usize = 500;

/// The job lease of debounce flushes (one instance at a time, see `cluster::leases`).
pub const FLUSH_JOB: &str = "webhook_flush";

/// Turns outbox rows into deliveries and buffer rows; returns how many events
/// were handled. Deliveries without debounce are sent once committed.
pub async fn dispatch_outbox(hooks: &web::Data<WebhookRuntime>) -> ApiResult<usize> {
    let state = &hooks.state;
    let mut handled = 0;
    loop {
        // Each site's oldest events in turn, not the whole outbox in order.
        let turn = hooks.outbox_turns.next_events(&*state.db, OUTBOX_BATCH).await?;
        let peek = turn.events;
        let peeked = peek.len();
        if peek.is_empty() {
            return Ok(handled);
        }
        // Subscriptions come through the pool, before the write transaction.
        let mut hooks_by_site: HashMap<Uuid, Arc<Vec<webhook::Model>>> = HashMap::new();
        for row in &peek {
            if let std::collections::hash_map::Entry::Vacant(slot) = hooks_by_site.entry(row.site_id) {
                slot.insert(hooks.active_for(row.site_id).await?);
            }
        }
        // As many events as fit in one short transaction (at least one): the
        // write lock is held for a bounded number of rows, so content writes
        // waiting for it are not queued behind a 50-webhook fan-out of 200 events.
        // Taken in turn by rows, so a site fanning out to one webhook is not
        // held to the pace of a site fanning out to fifty.
        let rows_of = |row: &event_outbox::Model| {
            hooks_by_site
                .get(&row.site_id)
                .zip(row.event.parse::<EventName>().ok())
                .map_or(0, |(h, event)| h.iter().filter(|w| wants(&subscribed_events(w), event)).count())
        };
        let peek = super::outbox_turns::fitting(
            &peek,
            rows_of,
            crate::db::rows_per_job_transaction(state.db.get_database_backend()),
        );
        let txn = crate::db::begin_unaudited(&state.db, "webhook deliveries: their attempts are their record").await?;
        let locked = Instant::now();
        let mut claim = event_outbox::Entity::find()
            .filter(event_outbox::Column::Seq.is_in(peek.iter().map(|r| r.seq).collect::<Vec<_>>()))
            .order_by_asc(event_outbox::Column::Seq);
        if state.db.get_database_backend() == DbBackend::Postgres {
            claim = claim.lock_with_behavior(LockType::Update, LockBehavior::SkipLocked);
        }
        let claimed = claim.all(&txn).await?;
        if claimed.is_empty() {
            return Ok(handled); // another instance is on them
        }
        let now = state.clock.now();
        let claim = hooks.deliverer.claim;
        let (mut to_send, mut held) = (Vec::new(), Vec::new());
        let mut buffered = Vec::new();
        for row in &claimed {
            // Not one of today's names (a row an older version wrote): no
            // webhook subscribes to it.
            let Ok(name) = row.event.parse::<EventName>() else { continue };
            let event =
                DomainEvent { event: name, timestamp: row.occurred_at, site_id: row.site_id, data: row.data.clone() };
            let subscribed = hooks_by_site.get(&row.site_id).cloned().unwrap_or_default();
            for hook in subscribed.iter().filter(|h| wants(&subscribed_events(h), event.event)) {
                if hook.debounce_seconds == 0 {
                    txn.touch(Touched::Answers(hook.site_id));
                    let delivery = new_delivery(claim, hook, &row.event, &event_body(&event), now);
                    match hooks.circuits.closed(hook.id).then(|| hooks.queue_send(hook.id)).flatten() {
                        Some(queued) => to_send.push((delivery, hook.clone(), queued)),
                        // Its circuit is open, or its queue here full: stored
                        // unclaimed, due at the probe time (or now: the retry
                        // pass sends it, or the one probe). Sent, each would
                        // wait in memory behind the endpoint's hung sends and
                        // then be held by a write of its own, thousands a
                        // second from a site writing flat out to hung endpoints.
                        None => {
                            let due = hooks.circuits.holds_until(hook.id, now).unwrap_or(now);
                            held.push(webhook_delivery::Model {
                                next_attempt_at: Some(due),
                                claimed_by: None,
                                ..delivery
                            });
                        }
                    }
                } else {
                    buffered.push(webhook_buffer::ActiveModel {
                        seq: NotSet,
                        webhook_id: Set(hook.id),
                        event: Set(row.event.clone()),
                        data: Set(event.data.clone()),
                        created_at: Set(now),
                    });
                }
            }
        }
        // Held from before they become visible: a retry pass never finds one
        // of them between the commit and its send and takes it as abandoned.
        let holding = Holding::new(hooks, to_send.iter().map(|(delivery, _, _)| delivery));
        // Multi-row inserts: one statement per chunk, not one per delivery.
        for chunk in to_send.chunks(INSERT_CHUNK) {
            let rows = chunk.iter().map(|(delivery, _, _)| webhook_delivery::ActiveModel::from(delivery.clone()));
            webhook_delivery::Entity::insert_many(rows).exec_without_returning(&txn).await?;
        }
        for chunk in held.chunks(INSERT_CHUNK) {
            let rows = chunk.iter().map(|delivery| webhook_delivery::ActiveModel::from(delivery.clone()));
            webhook_delivery::Entity::insert_many(rows).exec_without_returning(&txn).await?;
        }
        for chunk in buffered.chunks(INSERT_CHUNK) {
            webhook_buffer::Entity::insert_many(chunk.to_vec()).exec_without_returning(&txn).await?;
        }
        // Live event streams read them from here, on every instance.
        crate::events::stream::append(&txn, &claimed, now).await?;
        event_outbox::Entity::delete_many()
            .filter(event_outbox::Column::Seq.is_in(claimed.iter().map(|r| r.seq).collect::<Vec<_>>()))
            .exec(&txn)
            .await?;
        txn.commit().await?;
        state.events.stream_moved();
        hooks.fan_out_holds.record(locked.elapsed());
        holding.keep();
        for (delivery, hook, queued) in to_send {
            send_now(hooks.clone(), delivery, hook, queued);
        }
        handled += claimed.len();
        // Done once a pass took every event there was; a pass that took a
        // share of some site's events (or of the sites) goes round again.
        if turn.all_there_were && claimed.len() == peeked {
            return Ok(handled);
        }
    }
}

pub struct WebhookDispatcher {
    hooks: web::Data<WebhookRuntime>,
}

impl WebhookDispatcher {
    pub fn new(hooks: web::Data<WebhookRuntime>) -> Self {
        Self { hooks }
    }
}

impl Actor for WebhookDispatcher {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.spawn(super::results::keep_flushing(self.hooks.clone()).into_actor(self));
        let hooks = self.hooks.clone();
        let mut notices = hooks.state.events.subscribe();
        ctx.spawn(
            async move {
                // Each announcement is only a wake-up: one pass handles every
                // pending row, so queued announcements are folded into it.
                while !matches!(notices.recv().await, Err(tokio::sync::broadcast::error::RecvError::Closed)) {
                    while notices.try_recv().is_ok() {}
                    if let Err(e) = dispatch_outbox(&hooks).await {
                        tracing::error!(error = %e, "could not dispatch events to webhooks; the flush pass will retry");
                    }
                }
            }
            .into_actor(self),
        );
    }
}

/// Turns every buffer whose window has closed into one `batch` delivery (at most
/// `flush_batch` webhooks per pass) and sends them.
pub async fn flush_due(hooks: &web::Data<WebhookRuntime>) -> ApiResult<usize> {
    let state = &hooks.state;
    // Rows a crashed process left (or a missed wake-up) are dispatched here.
    dispatch_outbox(hooks).await?;
    let now = state.clock.now();
    let lease = Duration::from_secs(state.config.webhooks.flush_poll_secs.max(1) * 3).max(Duration::from_secs(15));
    if !state.cluster.may_run(&state.db, FLUSH_JOB, now, lease).await {
        return Ok(0); // another instance flushes the debounce windows
    }
    let oldest: Vec<(Uuid, chrono::DateTime<chrono::Utc>)> = webhook_buffer::Entity::find()
        .select_only()
        .column(webhook_buffer::Column::WebhookId)
        .column_as(webhook_buffer::Column::CreatedAt.min(), "oldest")
        .group_by(webhook_buffer::Column::WebhookId)
        .into_tuple()
        .all(&state.db)
        .await?;
    let ids: Vec<Uuid> = oldest.iter().map(|(id, _)| *id).collect();
    let buffered_hooks = webhook::Entity::find().filter(webhook::Column::Id.is_in(ids)).all(&state.db).await?;
    let ready: Vec<&webhook::Model> = buffered_hooks
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
        let txn = crate::db::begin_unaudited(&state.db, "webhook deliveries: their attempts are their record").await?;
        let mut select = webhook_buffer::Entity::find()
            .filter(webhook_buffer::Column::WebhookId.eq(hook.id))
            .order_by_asc(webhook_buffer::Column::Seq);
        if state.db.get_database_backend() == DbBackend::Postgres {
            select = select.lock_with_behavior(LockType::Update, LockBehavior::SkipLocked);
        }
        let events = select.all(&txn).await?;
        if events.is_empty() {
            continue; // another instance flushed it
        }
        let seqs: Vec<i64> = events.iter().map(|e| e.seq).collect();
        webhook_buffer::Entity::delete_many().filter(webhook_buffer::Column::Seq.is_in(seqs)).exec(&txn).await?;
        let body = json!({
            "event": "batch",
            "timestamp": now,
            "site_id": hook.site_id,
            "events": events.iter().map(|e| json!({"event": e.event, "data": e.data})).collect::<Vec<_>>(),
            "event_count": events.len(),
            "batch_window_seconds": hook.debounce_seconds,
        });
        let delivery = enqueue(&txn, hooks.deliverer.claim, hook, "batch", &body, now).await?;
        txn.commit().await?;
        // A full queue here: its claim lapses and the retry pass sends it.
        if let Some(queued) = hooks.queue_send(hook.id) {
            send_now(hooks.clone(), delivery, hook.clone(), queued);
        }
        flushed += 1;
    }
    Ok(flushed)
}
