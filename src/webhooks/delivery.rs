//! Sending: one HTTP attempt of a stored delivery, its log entry, and what
//! happens next (success, a retry on the schedule, or dead once the schedule is
//! spent: after the 6th failure with the spec's five delays).

use std::time::{Duration, Instant};

use std::sync::Arc;

use chrono::{DateTime, Utc};
use plinth_actors::Clock;
use plinth_entities::{webhook, webhook_attempt, webhook_delivery};
use sea_orm::{ActiveModelTrait, ActiveValue::Set, DatabaseConnection, EntityTrait};
use serde_json::Value;
use uuid::Uuid;

use super::signature;
use crate::config::Config;
use crate::error::ApiResult;
use crate::outbound::{self, BodyEnd, Outbound};

/// Characters of an answer the delivery log keeps.
const EXCERPT_CHARS: usize = 512;
/// Times one attempt is sent again when its connection closes before any
/// answer (see [`Deliverer::send`]): each pooled connection idle as long may
/// have been closed at once.
const RESENDS_ON_CLOSED_CONNECTION: u32 = 2;
/// Bytes read of an answer: enough for [`EXCERPT_CHARS`] characters of UTF-8;
/// the connection is dropped past them.
const ANSWER_CAP_BYTES: usize = EXCERPT_CHARS * 4;

pub use plinth_entities::values::DeliveryStatus;

#[derive(Clone, Debug)]
pub struct AttemptResult {
    pub success: bool,
    pub status_code: Option<u16>,
    pub duration_ms: i64,
    pub error: Option<String>,
    pub response_excerpt: Option<String>,
}

pub struct Deliverer {
    /// The client for tenant-chosen destinations (SSRF-guarded resolver).
    outbound: Outbound,
    /// One attempt, answer included.
    timeout: Duration,
    /// Signing timestamps come from the app's clock.
    clock: Arc<dyn Clock>,
    /// `webhooks.retry_delays`: a delivery is attempted once, then once after
    /// each delay, and is dead after its last attempt fails.
    retry_delays: Vec<u64>,
    /// Who claims the deliveries this process sends, and for how long.
    pub claim: Claim,
}

/// A claim on a delivery while its attempt is in flight: the instance (kept
/// across restarts in the data directory, see `claims::instance_id`) and the
/// lease after which any instance may send it again.
#[derive(Clone, Copy, Debug)]
pub struct Claim {
    pub instance: Uuid,
    pub lease: chrono::Duration,
}

impl Deliverer {
    pub fn new(config: &Config, outbound: Outbound, clock: Arc<dyn Clock>, instance: Uuid) -> Self {
        Self {
            outbound,
            timeout: Duration::from_secs(config.webhooks.timeout_secs.max(1)),
            clock,
            retry_delays: config.webhooks.retry_delays.clone(),
            claim: Claim { instance, lease: chrono::Duration::seconds(config.webhooks.claim_lease_secs as i64) },
        }
    }

    /// When the next attempt is due after `attempts` failed ones (the delay at
    /// that place in the schedule), or `None` when the schedule is spent and
    /// the delivery is dead.
    pub fn next_attempt_after(&self, attempts: i32, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let index = usize::try_from(attempts - 1).unwrap_or(0);
        let delay = *self.retry_delays.get(index)?;
        Some(now + chrono::Duration::seconds(i64::try_from(delay).unwrap_or(i64::MAX / 2)))
    }

    /// One signed POST of `body`. Anything but a 2xx (a 3xx too) is a failure.
    /// The whole attempt, answer included, ends within the webhook timeout; of
    /// the answer, [`ANSWER_CAP_BYTES`] are read and the connection dropped, so
    /// an endpoint answering gigabytes or trickling costs neither memory nor
    /// more time. A 2xx counts once its head arrived, whatever its body does.
    pub async fn send(&self, url: &str, secret: &str, message_id: Uuid, body: &str) -> AttemptResult {
        let started = Instant::now();
        let deadline = tokio::time::Instant::from_std(started + self.timeout);
        let outcome =
            |success: bool, status_code: Option<u16>, error: Option<String>, excerpt: Option<String>| AttemptResult {
                success,
                status_code,
                duration_ms: started.elapsed().as_millis() as i64,
                error,
                response_excerpt: excerpt,
            };
        let request = match self.outbound.request(reqwest::Method::POST, url).await {
            Ok(request) => request,
            Err(refusal) => return outcome(false, None, Some(format!("target refused: {refusal}")), None),
        };
        let timestamp = self.clock.now().timestamp();
        let id = message_id.to_string();
        let request = request
            .header("user-agent", concat!("Plinth-Webhooks/", env!("CARGO_PKG_VERSION")))
            .header("content-type", "application/json")
            .header("webhook-id", &id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signature::sign(secret, &id, timestamp, body))
            .body(body.to_string());
        // A connection closed before any answer is tried again at once, on a
        // new connection, within the same deadline: an idle keep-alive
        // connection the endpoint closed just as this request went out on it
        // is no failure of the endpoint's, and must not wait for the retry
        // schedule. The `webhook-id` lets the receiver drop a duplicate.
        let (mut request, mut resends) = (request, 0);
        let response = loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            // The body is in memory, so the request clones.
            let spare = if resends < RESENDS_ON_CLOSED_CONNECTION { request.try_clone() } else { None };
            match (request.timeout(left).send().await, spare) {
                (Err(e), Some(spare)) if outbound::closed_before_answer(&e) => {
                    resends += 1;
                    request = spare;
                }
                (sent, _) => break sent,
            }
        };
        let res = match response {
            Ok(res) => res,
            Err(e) => return outcome(false, None, Some(format!("request failed: {}", outbound::describe(&e))), None),
        };
        let status = res.status();
        let answer = outbound::read_capped(res, ANSWER_CAP_BYTES, deadline).await;
        let excerpt: String = answer.text().chars().take(EXCERPT_CHARS).collect();
        let excerpt = (!excerpt.is_empty()).then_some(excerpt);
        if status.is_success() {
            return outcome(true, Some(status.as_u16()), None, excerpt);
        }
        let mut error = format!("the endpoint answered {status}");
        if answer.end == BodyEnd::TimedOut {
            error.push_str(" and its body did not end in time");
        }
        outcome(false, Some(status.as_u16()), Some(error), excerpt)
    }

    /// Attempts a claimed delivery and stores the outcome and its log entry.
    pub async fn attempt(
        &self,
        db: &crate::db::Db,
        now: DateTime<Utc>,
        delivery: webhook_delivery::Model,
        hook: &webhook::Model,
    ) -> ApiResult<webhook_delivery::Model> {
        let result = self.send(&hook.url, &hook.secret, delivery.id, &delivery.payload).await;
        record(db, self, now, delivery, &result).await
    }
}

/// Stores an attempt's log entry and moves the delivery on, in one transaction:
/// a crash between the two can no longer leave a logged attempt beside a
/// delivery that does not count it.
pub async fn record(
    db: &crate::db::Db,
    deliverer: &Deliverer,
    now: DateTime<Utc>,
    delivery: webhook_delivery::Model,
    result: &AttemptResult,
) -> ApiResult<webhook_delivery::Model> {
    let site_id = delivery.site_id;
    let (logged, moved) = settle(deliverer, now, delivery, result);
    let txn = crate::db::begin_unaudited(db, "webhook deliveries: their attempts are their record").await?;
    // The site's delivery lists show the attempt.
    txn.touch(crate::db::Touched::Answers(site_id));
    logged.insert(&txn).await?;
    let updated = moved.update(&txn).await?;
    txn.commit().await?;
    Ok(updated)
}

/// What an attempt changes: its log entry, and the delivery moved on (done,
/// due again on the schedule, or dead). Stored by [`record`] one at a time and
/// by `results::flush` many to a transaction.
pub fn settle(
    deliverer: &Deliverer,
    now: DateTime<Utc>,
    delivery: webhook_delivery::Model,
    result: &AttemptResult,
) -> (webhook_attempt::ActiveModel, webhook_delivery::ActiveModel) {
    let attempt = delivery.attempts + 1;
    let logged = webhook_attempt::ActiveModel {
        id: Set(Uuid::new_v4()),
        delivery_id: Set(delivery.id),
        webhook_id: Set(delivery.webhook_id),
        event: Set(delivery.event.clone()),
        attempt: Set(attempt),
        success: Set(result.success),
        status_code: Set(result.status_code.map(i32::from)),
        duration_ms: Set(result.duration_ms),
        error: Set(result.error.clone()),
        response_excerpt: Set(result.response_excerpt.clone()),
        created_at: Set(now),
    };
    let (status, next) = if result.success {
        (DeliveryStatus::Success, None)
    } else {
        match deliverer.next_attempt_after(attempt, now) {
            Some(at) => (DeliveryStatus::Failed, Some(at)),
            None => (DeliveryStatus::Dead, None),
        }
    };
    crate::observability::delivery_attempt(status.as_str());
    if status == DeliveryStatus::Dead {
        tracing::warn!(delivery = %delivery.id, webhook = %delivery.webhook_id, "webhook delivery is dead after {attempt} attempts");
    }
    let mut row: webhook_delivery::ActiveModel = delivery.into();
    row.attempts = Set(attempt);
    row.status = Set(status);
    row.next_attempt_at = Set(next);
    row.claimed_by = Set(None);
    row.last_status_code = Set(result.status_code.map(i32::from));
    row.last_error = Set(result.error.clone());
    row.updated_at = Set(now);
    (logged, row)
}

/// Stores a new delivery, claimed by this instance (which sends it at once); if
/// the process dies first, it takes the claim back when it starts again, and any
/// instance's retry worker sends it once the lease lapses.
pub async fn enqueue(
    db: &crate::db::WriteTxn,
    claim: Claim,
    hook: &webhook::Model,
    event: &str,
    payload: &Value,
    now: DateTime<Utc>,
) -> ApiResult<webhook_delivery::Model> {
    let delivery = new_delivery(claim, hook, event, payload, now);
    db.touch(crate::db::Touched::Answers(hook.site_id));
    webhook_delivery::ActiveModel::from(delivery.clone()).insert(db).await?;
    Ok(delivery)
}

/// A new delivery as [`enqueue`] stores it, for callers that store many at once.
pub fn new_delivery(
    claim: Claim,
    hook: &webhook::Model,
    event: &str,
    payload: &Value,
    now: DateTime<Utc>,
) -> webhook_delivery::Model {
    webhook_delivery::Model {
        id: Uuid::new_v4(),
        webhook_id: hook.id,
        site_id: hook.site_id,
        event: event.to_string(),
        payload: payload.to_string(),
        status: DeliveryStatus::Pending,
        attempts: 0,
        next_attempt_at: Some(now + claim.lease),
        claimed_by: Some(claim.instance),
        last_status_code: None,
        last_error: None,
        created_at: now,
        updated_at: now,
    }
}

/// The webhook of a delivery, if it still exists.
pub async fn webhook_of(
    db: &DatabaseConnection,
    delivery: &webhook_delivery::Model,
) -> ApiResult<Option<webhook::Model>> {
    Ok(webhook::Entity::find_by_id(delivery.webhook_id).one(db).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schedule_follows_the_spec_and_ends_after_six_attempts() -> Result<(), crate::config::ConfigError> {
        let config = Config::defaults()?;
        let outbound = Outbound::new(&[], false).map_err(crate::config::ConfigError::Invalid)?;
        let deliverer = Deliverer::new(&config, outbound, Arc::new(plinth_actors::SystemClock), Uuid::new_v4());
        let now = Utc::now();
        let delays: Vec<i64> =
            (1..).map_while(|n| deliverer.next_attempt_after(n, now)).map(|at| (at - now).num_seconds()).collect();
        assert_eq!(delays, [300, 1800, 7200, 43200, 172800]);
        assert_eq!(deliverer.next_attempt_after(6, now), None, "dead after the 6th failed attempt");
        Ok(())
    }

    #[test]
    fn a_longer_schedule_is_configuration_only() -> Result<(), crate::config::ConfigError> {
        let mut config = Config::defaults()?;
        config.webhooks.retry_delays.push(604_800);
        let outbound = Outbound::new(&[], false).map_err(crate::config::ConfigError::Invalid)?;
        let deliverer = Deliverer::new(&config, outbound, Arc::new(plinth_actors::SystemClock), Uuid::new_v4());
        let now = Utc::now();
        let seventh = deliverer.next_attempt_after(6, now).map(|at| (at - now).num_seconds());
        assert_eq!(seventh, Some(604_800), "a 7th attempt a week after the 6th");
        assert_eq!(deliverer.next_attempt_after(7, now), None);
        Ok(())
    }
}
