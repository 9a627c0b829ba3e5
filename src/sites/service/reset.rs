//! Resetting a site's content: everything editorial goes to the trash in one
//! transaction, by each trash source (`api::trash_sources`); the site row,
//! settings, members and locales stay.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;

use crate::audit::{self, Action, AuditEntry};
use crate::auth::SiteGrant;
use crate::content::{events, ContentKind};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::trash_source::TrashSources;

/// What a reset moved to the trash.
#[derive(Serialize, ToSchema, Default, PartialEq, Eq, Debug)]
pub struct ResetCounts {
    /// Content items of every kind but legal documents.
    pub contents: u64,
    /// Legal documents removed.
    pub legal_documents: u64,
    /// Documents removed.
    pub documents: u64,
    /// Social links removed.
    pub social_links: u64,
    /// Menus removed.
    pub navigation_menus: u64,
    /// Menu items removed.
    pub navigation_items: u64,
    /// Media files removed.
    pub media_files: u64,
    /// All of them.
    pub total: u64,
}

impl ResetCounts {
    /// Counts `trashed` items of `entity_type` (a trash source's type) in
    /// the spec's field for it; false for a type no field counts.
    fn add(&mut self, entity_type: &str, trashed: u64) -> bool {
        let field = match entity_type {
            "legal" => &mut self.legal_documents,
            "document" => &mut self.documents,
            "social" => &mut self.social_links,
            "menu" => &mut self.navigation_menus,
            "menu_item" => &mut self.navigation_items,
            "media" => &mut self.media_files,
            _ if ContentKind::ALL.iter().any(|kind| kind.as_str() == entity_type) => &mut self.contents,
            _ => return false,
        };
        *field += trashed;
        self.total += trashed;
        true
    }
}

/// Moves everything of the site that goes through the trash (every family
/// with a trash source: content, media, documents, social links, navigation)
/// to it, with one audit entry and the content's events. `site` is a grant of
/// OwnSite on the site.
pub async fn reset_content(
    state: &AppState,
    sources: &TrashSources,
    site: &SiteGrant,
    now: DateTime<Utc>,
) -> ApiResult<ResetCounts> {
    let site_id = site.site_id();
    state.site_state(site_id).await?;
    let counts = audit::write(&state.db, async |txn| {
        let mut counts = ResetCounts::default();
        let mut events = Vec::new();
        for source in &sources.0 {
            let reset = source.trash_site(txn, now, site.actor(), site_id).await?;
            for (entity_type, trashed) in reset.trashed {
                if !counts.add(entity_type, trashed) {
                    return Err(ApiError::internal(format!("a reset counted {entity_type}, which no count names")));
                }
            }
            events.extend(reset.events);
        }
        let entry = AuditEntry {
            actor: site.actor(),
            action: Action::Delete,
            entity_type: "site_content",
            entity_id: site_id.to_string(),
            site_id: Some(site_id),
        };
        audit::record(txn, now, entry, &json!({}), &counts).await?;
        events::store_events(state, txn, events).await?;
        Ok(counts)
    })
    .await?;
    state.statistics.after_bulk_write(&state.db);
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every type the trash knows is counted by a field of the spec's answer:
    /// a family given a trash source joins the reset and its counts.
    #[test]
    fn every_trash_type_has_a_reset_count() {
        let mut counts = ResetCounts::default();
        for entity_type in crate::api::trash_sources().entity_types() {
            assert!(counts.add(entity_type, 1), "no reset count for {entity_type}");
        }
        assert_eq!(counts.total, 11);
        assert_eq!((counts.contents, counts.navigation_menus, counts.media_files), (5, 1, 1));
    }
}
