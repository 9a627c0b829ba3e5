//! Edit leases: who is editing which item, so that every open admin sees it
//! and a second editor knows before typing over the first.
//!
//! `POST /{plural}/{id}/lease` takes or renews a short lease on a content item
//! (30 s unless `ttl_secs` says otherwise); `DELETE` releases it. While one
//! caller holds it, another's `POST` is answered 423 `LEASE_HELD` naming the
//! holder and since when, unless it takes the lease over (`takeover: true`).
//! Leases are advisory: a write still needs its role, and `If-Match` still
//! guards it (`crate::preconditions`). They expire by themselves: a lease
//! whose time passed is no one's, whoever asks next takes it.
//!
//! Every change is an event on the site's live stream (`lease.taken`,
//! `lease.renewed`, `lease.released`, `lease.taken_over`), through the outbox
//! like every event, so admins on every instance see it within the
//! dispatcher's wake. They are presence, not changes of content: webhooks are
//! not sent them (`events::Subject::delivered`), and they drop no cached
//! answer. `GET /sites/{site_id}/leases` lists the live ones, for an admin
//! that has just opened.
//!
//! Rows are one per site the item is on (`edit_leases`, keyed by item and
//! site): a renewal is one update by the item's key, a site's list one index
//! range. The spec is silent on all of this; nothing the spec's own requests
//! get changes.

use chrono::{DateTime, Duration, Utc};
use plinth_entities::edit_lease;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, Select};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;
use uuid::Uuid;

mod row_handlers;

use crate::audit::Actor;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::events::{DomainEvent, EventAction, EventName, Subject};
use crate::site_rows::SiteRow;
use crate::state::AppState;

/// A lease's time unless the request says otherwise.
pub const DEFAULT_TTL_SECS: i64 = 30;
/// The longest lease one request may take: an editor that drops lets the
/// item go within this.
pub const MAX_TTL_SECS: i64 = 300;

#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct TakeLease {
    /// Seconds the lease lasts from now: 5 to 300, 30 when absent. Renew
    /// before it ends to keep it.
    pub ttl_secs: Option<i64>,
    /// Take the lease from its holder, who is told on the stream
    /// (`lease.taken_over`).
    #[serde(default)]
    pub takeover: bool,
}

/// Who edits an item, until when.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct LeaseResponse {
    /// The item's kind (`blog`, `page`, …).
    pub item_type: String,
    pub item_id: Uuid,
    /// The sites the item is on (the lease shows on each one's list).
    pub site_ids: Vec<Uuid>,
    /// `api_key:<id>` or `user:<identity-provider id>`.
    #[schema(value_type = String)]
    pub holder: Actor,
    /// When the holder took it (a renewal keeps it).
    pub taken_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// The item a lease is about, as its family found it for the caller.
pub struct LeasedItem<'a> {
    pub item_type: &'a str,
    pub item_id: Uuid,
    pub site_ids: &'a [Uuid],
}

/// A row with an edit lease of its own, found by its family's handlers
/// (`row_lease_handlers!`): a row of one site (`site_rows`) is one, and so
/// is a row on several (a media file).
pub trait LeasedRow {
    /// How the lease names the row's kind (`redirect`, `media`, …).
    fn lease_type(&self) -> &'static str;
    fn lease_id(&self) -> Uuid;
    /// The sites the row is on: the lease shows on each one's list.
    fn lease_sites(&self) -> Vec<Uuid>;
}

impl<M: SiteRow> LeasedRow for M {
    fn lease_type(&self) -> &'static str {
        M::KIND
    }

    fn lease_id(&self) -> Uuid {
        self.id()
    }

    fn lease_sites(&self) -> Vec<Uuid> {
        vec![self.site_id()]
    }
}

/// [`take`] on a row found for a caller who may change it.
pub async fn take_row(
    state: &AppState,
    caller: &Actor,
    row: &impl LeasedRow,
    body: Option<TakeLease>,
) -> ApiResult<LeaseResponse> {
    let site_ids = row.lease_sites();
    let item = LeasedItem { item_type: row.lease_type(), item_id: row.lease_id(), site_ids: &site_ids };
    take(state, caller, item, body.unwrap_or_default()).await
}

fn ttl(body: &TakeLease) -> ApiResult<Duration> {
    let secs = body.ttl_secs.unwrap_or(DEFAULT_TTL_SECS);
    if !(5..=MAX_TTL_SECS).contains(&secs) {
        return Err(ApiError::validation(vec![crate::error::FieldError::new(
            "ttl_secs",
            ErrorCode::ValidationOutOfRange,
            format!("must be 5 to {MAX_TTL_SECS} seconds"),
        )]));
    }
    Ok(Duration::seconds(secs))
}

/// The lease of `rows` (one item's, one row per site).
fn response(rows: &[edit_lease::Model]) -> Option<LeaseResponse> {
    let first = rows.first()?;
    let mut site_ids: Vec<Uuid> = rows.iter().map(|r| r.site_id).collect();
    site_ids.sort();
    Some(LeaseResponse {
        item_type: first.item_type.clone(),
        item_id: first.item_id,
        site_ids,
        holder: first.holder.clone(),
        taken_at: first.taken_at,
        expires_at: first.expires_at,
    })
}

/// 423 naming who holds the lease and since when.
fn held(lease: &LeaseResponse) -> ApiError {
    ApiError::new(
        ErrorCode::LeaseHeld,
        format!(
            "{} is editing this {} (since {}); wait for its lease to end ({}), or take it over with \
             {{\"takeover\": true}}",
            lease.holder, lease.item_type, lease.taken_at, lease.expires_at
        ),
    )
    .with_lease(json!(lease))
}

fn events(what: EventAction, lease: &LeaseResponse, at: DateTime<Utc>, from: Option<&Actor>) -> Vec<DomainEvent> {
    let mut data = json!(lease);
    if let (Some(from), Some(data)) = (from, data.as_object_mut()) {
        data.insert("previous_holder".into(), json!(from));
    }
    lease
        .site_ids
        .iter()
        .map(|site_id| DomainEvent {
            event: EventName::new(Subject::Lease, what),
            timestamp: at,
            site_id: *site_id,
            data: data.clone(),
        })
        .collect()
}

/// Takes or renews `caller`'s lease on `item`: 423 while another holds it
/// (unless `takeover`).
pub async fn take(state: &AppState, caller: &Actor, item: LeasedItem<'_>, body: TakeLease) -> ApiResult<LeaseResponse> {
    let ttl = ttl(&body)?;
    let txn = crate::db::begin_unaudited(&state.db, "an edit lease is presence, not a change of content").await?;
    let now = state.clock.now();
    let rows = of_item(item.item_id).all(&txn).await?;
    let live = response(&rows).filter(|lease| lease.expires_at > now);
    let (event, from) = match &live {
        Some(lease) if lease.holder == *caller => (EventAction::Renewed, None),
        Some(lease) if !body.takeover => return Err(held(lease)),
        Some(lease) => (EventAction::TakenOver, Some(lease.holder.clone())),
        None => (EventAction::Taken, None),
    };
    let lease = match (event, live) {
        (EventAction::Renewed, Some(lease)) => {
            edit_lease::Entity::update_many()
                .col_expr(edit_lease::Column::ExpiresAt, Expr::value(now + ttl))
                .filter(edit_lease::Column::ItemId.eq(item.item_id))
                .exec(&txn)
                .await?;
            LeaseResponse { expires_at: now + ttl, ..lease }
        }
        _ => {
            edit_lease::Entity::delete_many().filter(edit_lease::Column::ItemId.eq(item.item_id)).exec(&txn).await?;
            let rows = item.site_ids.iter().map(|site_id| edit_lease::ActiveModel {
                item_id: Set(item.item_id),
                site_id: Set(*site_id),
                item_type: Set(item.item_type.to_owned()),
                holder: Set(caller.clone()),
                taken_at: Set(now),
                expires_at: Set(now + ttl),
            });
            // Another editor took it in the same moment.
            let raced = || {
                ApiError::new(
                    ErrorCode::LeaseHeld,
                    "another editor took this item's lease at the same moment; GET the site's leases to see who",
                )
            };
            let taken = crate::error::on_constraint(crate::error::Constraint::Unique, raced);
            edit_lease::Entity::insert_many(rows).exec_without_returning(&txn).await.map_err(taken)?;
            let mut site_ids = item.site_ids.to_vec();
            site_ids.sort();
            LeaseResponse {
                item_type: item.item_type.to_owned(),
                item_id: item.item_id,
                site_ids,
                holder: caller.clone(),
                taken_at: now,
                expires_at: now + ttl,
            }
        }
    };
    crate::events::store_presence(&txn, &state.events, &events(event, &lease, now, from.as_ref())).await?;
    txn.commit().await?;
    Ok(lease)
}

/// Releases `caller`'s lease on the item; nothing to release is fine, and a
/// live lease of another's is 423 (it is theirs to release).
pub async fn release(state: &AppState, caller: &Actor, item_id: Uuid) -> ApiResult<()> {
    let txn = crate::db::begin_unaudited(&state.db, "an edit lease is presence, not a change of content").await?;
    let now = state.clock.now();
    let rows = of_item(item_id).all(&txn).await?;
    let Some(lease) = response(&rows) else { return Ok(()) };
    if lease.holder != *caller {
        return match lease.expires_at > now {
            true => Err(held(&lease)),
            false => Ok(()),
        };
    }
    edit_lease::Entity::delete_many().filter(edit_lease::Column::ItemId.eq(item_id)).exec(&txn).await?;
    crate::events::store_presence(&txn, &state.events, &events(EventAction::Released, &lease, now, None)).await?;
    txn.commit().await?;
    Ok(())
}

/// An item's lease rows (one per site): a range of the primary key
/// `(item_id, site_id)`, whatever the table holds. A renewal reads them and
/// updates them by the same key (public for the plan tests).
pub fn of_item(item_id: Uuid) -> Select<edit_lease::Entity> {
    edit_lease::Entity::find().filter(edit_lease::Column::ItemId.eq(item_id))
}

/// A site's live leases, soonest to end first: a range of
/// `ix_edit_leases_live (site_id, expires_at, item_id)` past `now` (public for the
/// plan tests).
pub fn live_on_site(site_id: Uuid, now: DateTime<Utc>) -> Select<edit_lease::Entity> {
    edit_lease::Entity::find()
        .filter(edit_lease::Column::SiteId.eq(site_id))
        .filter(edit_lease::Column::ExpiresAt.gt(now))
        .order_by_asc(edit_lease::Column::ExpiresAt)
        .order_by_asc(edit_lease::Column::ItemId)
}

/// The site's live leases, soonest to end first.
pub async fn list(state: &AppState, site_id: Uuid) -> ApiResult<Vec<LeaseResponse>> {
    let now = state.clock.now();
    let rows = live_on_site(site_id, now).all(&state.db).await?;
    // Each item on several sites is answered with all of them.
    let ids: Vec<Uuid> = rows.iter().map(|r| r.item_id).collect();
    let all = edit_lease::Entity::find().filter(edit_lease::Column::ItemId.is_in(ids)).all(&state.db).await?;
    Ok(rows
        .iter()
        .filter_map(|row| {
            let of_item: Vec<edit_lease::Model> = all.iter().filter(|r| r.item_id == row.item_id).cloned().collect();
            response(&of_item)
        })
        .collect())
}
