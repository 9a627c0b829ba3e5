//! Time-driven status moves, run by the Janitor: Scheduled items go live when
//! `publish_start` arrives, Published items are archived once `publish_end` has
//! passed. Each move is a conditional update, so when several instances run the
//! Janitor exactly one of them makes (and announces) it.

use plinth_entities::content;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::json;
use uuid::Uuid;

use super::events::{change_events, store_events};
use super::relations;
use super::ContentStatus;
use crate::audit::{self, Action, Actor, AuditEntry};
use crate::error::ApiResult;
use crate::state::AppState;

/// Moves every due item; returns how many moved.
pub async fn run_due(state: &AppState) -> ApiResult<usize> {
    let now = state.clock.now();
    let to_publish = content::Entity::find()
        .filter(content::Column::Status.eq(ContentStatus::Scheduled))
        .filter(content::Column::PublishStart.lte(now))
        .filter(content::Column::IsDeleted.eq(false))
        .all(&state.db)
        .await?;
    let to_archive = content::Entity::find()
        .filter(content::Column::Status.eq(ContentStatus::Published))
        .filter(content::Column::PublishEnd.lte(now))
        .filter(content::Column::IsDeleted.eq(false))
        .all(&state.db)
        .await?;

    let mut moved = 0;
    for (items, to) in [(to_publish, ContentStatus::Published), (to_archive, ContentStatus::Archived)] {
        for item in items {
            if move_one(state, &item, to, now).await? {
                moved += 1;
            }
        }
    }
    Ok(moved)
}

/// One move, its audit entry and events in one transaction; `false` when another
/// instance made it first.
async fn move_one(
    state: &AppState,
    item: &content::Model,
    to: ContentStatus,
    now: chrono::DateTime<chrono::Utc>,
) -> ApiResult<bool> {
    let kind = item.kind;
    let from = item.status;
    audit::write(&state.db, async |txn| {
        let mut update = content::Entity::update_many()
            .col_expr(content::Column::Status, Expr::value(to.as_str()))
            .col_expr(content::Column::UpdatedAt, Expr::value(now));
        if to == ContentStatus::Published {
            update = update.col_expr(content::Column::PublishedAt, Expr::value(now));
        }
        let result =
            update.filter(content::Column::Id.eq(item.id)).filter(content::Column::Status.eq(from)).exec(txn).await?;
        if result.rows_affected != 1 {
            return Ok(false);
        }
        let ids: [Uuid; 1] = [item.id];
        let rel = relations::load(txn, &ids, true).await?.remove(&item.id).unwrap_or_default();
        let entry = AuditEntry {
            actor: &Actor::System,
            action: Action::Update,
            entity_type: kind.as_str(),
            entity_id: item.id.to_string(),
            site_id: rel.site_ids.first().copied(),
        };
        let (before, after) = (json!({"status": from}), json!({"status": to}));
        audit::record_on_sites(txn, state.clock.now(), entry, &rel.site_ids, &before, &after).await?;
        let current = content::Entity::find_by_id(item.id)
            .one(txn)
            .await?
            .ok_or_else(|| crate::error::ApiError::internal("content vanished"))?;
        let events = change_events(kind, from, &relations::response(&current, rel), now);
        store_events(state, txn, events).await?;
        Ok(true)
    })
    .await
}
