//! The Janitor's site purge: a site soft-deleted longer than the restore window
//! is hard-deleted with everything scoped to it, leaving one system-level audit
//! entry (no site id, so it outlives the site).

use chrono::{DateTime, Duration, Utc};
use plinth_entities::{audit_log, content, content_count, content_site, event_outbox, site, webhook_delivery};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
use serde_json::Value;
use uuid::Uuid;

use super::model::SiteResponse;
use super::service::RESTORE_WINDOW_DAYS;
use crate::audit::{self, Action, Actor, AuditEntry};
use crate::error::ApiResult;
use crate::state::AppState;

/// The actor recorded for work nobody requested.
const SYSTEM_ACTOR: &Actor = &Actor::System;

/// Purges every site whose restore window has lapsed; returns how many.
pub async fn purge_expired_sites(state: &AppState) -> ApiResult<usize> {
    let cutoff = state.clock.now() - Duration::days(RESTORE_WINDOW_DAYS);
    let due = site::Entity::find().filter(site::Column::DeletedAt.lte(cutoff)).all(&state.db).await?;
    for site in &due {
        purge_site(state, site, cutoff).await?;
        tracing::info!(site_id = %site.id, slug = %site.slug, "site purged after the restore window");
    }
    Ok(due.len())
}

/// One site, in one transaction: it is purged completely or not at all.
async fn purge_site(state: &AppState, site: &site::Model, cutoff: DateTime<Utc>) -> ApiResult<()> {
    audit::write(&state.db, async |txn| {
        // Re-read inside the transaction: a restore may have won the race.
        let Some(current) =
            site::Entity::find_by_id(site.id).filter(site::Column::DeletedAt.lte(cutoff)).one(txn).await?
        else {
            return Ok(());
        };
        // Content shared with another site stays (only its link to this one goes).
        let linked: Vec<Uuid> = content_site::Entity::find()
            .select_only()
            .column(content_site::Column::ContentId)
            .filter(content_site::Column::SiteId.eq(site.id))
            .into_tuple()
            .all(txn)
            .await?;
        let shared: Vec<Uuid> = content_site::Entity::find()
            .select_only()
            .column(content_site::Column::ContentId)
            .filter(content_site::Column::ContentId.is_in(linked.clone()))
            .filter(content_site::Column::SiteId.ne(site.id))
            .into_tuple()
            .all(txn)
            .await?;
        let owned: Vec<Uuid> = linked.into_iter().filter(|id| !shared.contains(id)).collect();
        for chunk in owned.chunks(500) {
            content::Entity::delete_many().filter(content::Column::Id.is_in(chunk.to_vec())).exec(txn).await?;
        }
        // Rows that name the site without a cascading foreign key.
        event_outbox::Entity::delete_many().filter(event_outbox::Column::SiteId.eq(site.id)).exec(txn).await?;
        webhook_delivery::Entity::delete_many().filter(webhook_delivery::Column::SiteId.eq(site.id)).exec(txn).await?;
        audit_log::Entity::delete_many().filter(audit_log::Column::SiteId.eq(site.id)).exec(txn).await?;
        // Settings, locales, members, keys, webhooks, terms, menus, … cascade.
        site::Entity::delete_by_id(site.id).exec(txn).await?;
        // After the cascade, whose triggers counted its rows down.
        content_count::Entity::delete_many().filter(content_count::Column::SiteId.eq(site.id)).exec(txn).await?;
        let entry = AuditEntry {
            actor: SYSTEM_ACTOR,
            action: Action::Purge,
            entity_type: "site",
            entity_id: site.id.to_string(),
            site_id: None,
        };
        audit::record(txn, state.clock.now(), entry, &SiteResponse::deleted(&current), &Value::Null).await?;
        // The entry outlives the site, so it names none: the site is dropped here.
        txn.touch(crate::db::Touched::Site(site.id));
        Ok(())
    })
    .await
}
