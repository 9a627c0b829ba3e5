//! Resetting a site's content: everything editorial goes to the trash in one
//! transaction; the site row, settings, members and locales stay.

use chrono::{DateTime, Utc};
use plinth_entities::{content, document, nav_item, nav_menu, social_link};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter};
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::audit::{self, Action, AuditEntry};
use crate::auth::SiteGrant;
use crate::content::{events, read, write, ContentKind};
use crate::error::ApiResult;
use crate::state::AppState;

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

/// A site-scoped table whose rows go to the trash with a flag and a time.
trait SiteTrash: EntityTrait {
    /// The site id, the deleted flag and the deletion time.
    const COLUMNS: [Self::Column; 3];
}

impl SiteTrash for social_link::Entity {
    const COLUMNS: [Self::Column; 3] =
        [social_link::Column::SiteId, social_link::Column::IsDeleted, social_link::Column::DeletedAt];
}

impl SiteTrash for document::Entity {
    const COLUMNS: [Self::Column; 3] =
        [document::Column::SiteId, document::Column::IsDeleted, document::Column::DeletedAt];
}

impl SiteTrash for nav_item::Entity {
    const COLUMNS: [Self::Column; 3] =
        [nav_item::Column::SiteId, nav_item::Column::IsDeleted, nav_item::Column::DeletedAt];
}

impl SiteTrash for nav_menu::Entity {
    const COLUMNS: [Self::Column; 3] =
        [nav_menu::Column::SiteId, nav_menu::Column::IsDeleted, nav_menu::Column::DeletedAt];
}

/// Soft-deletes every live row of one table on the site; answers how many.
async fn trash_all<E: SiteTrash>(db: &impl ConnectionTrait, now: DateTime<Utc>, site_id: Uuid) -> Result<u64, DbErr> {
    let [site, is_deleted, deleted_at] = E::COLUMNS;
    Ok(E::update_many()
        .col_expr(is_deleted, Expr::value(true))
        .col_expr(deleted_at, Expr::value(now))
        .filter(site.eq(site_id))
        .filter(is_deleted.eq(false))
        .exec(db)
        .await?
        .rows_affected)
}

/// Moves all of the site's content, legal documents, social links and
/// navigation to the trash, with one audit entry and the content's events.
/// `site` is a grant of OwnSite on the site.
pub async fn reset_content(state: &AppState, site: &SiteGrant, now: DateTime<Utc>) -> ApiResult<ResetCounts> {
    let site_id = site.site_id();
    state.site_state(site_id).await?;
    let counts = audit::write(&state.db, async |txn| {
        let items = read::on_site_only(content::Entity::find().filter(content::Column::IsDeleted.eq(false)), site_id)
            .all(txn)
            .await?;
        let mut counts = ResetCounts::default();
        let mut events = Vec::new();
        for kind in ContentKind::ALL {
            let ids: Vec<Uuid> = items.iter().filter(|i| i.kind == kind).map(|i| i.id).collect();
            if ids.is_empty() {
                continue;
            }
            let deleted = write::soft_delete_many(txn, now, site.actor(), kind, &ids).await?;
            events.extend(deleted.iter().flat_map(|item| events::events_for(kind, "deleted", item, now)));
            if kind == ContentKind::Legal {
                counts.legal_documents += deleted.len() as u64;
            } else {
                counts.contents += deleted.len() as u64;
            }
        }
        counts.social_links = trash_all::<social_link::Entity>(txn, now, site_id).await?;
        counts.navigation_items = trash_all::<nav_item::Entity>(txn, now, site_id).await?;
        counts.navigation_menus = trash_all::<nav_menu::Entity>(txn, now, site_id).await?;
        counts.media_files = crate::media::trash::reset_site_media(txn, now, site_id).await?;
        counts.documents = trash_all::<document::Entity>(txn, now, site_id).await?;
        counts.total = counts.contents
            + counts.legal_documents
            + counts.documents
            + counts.social_links
            + counts.navigation_menus
            + counts.navigation_items
            + counts.media_files;
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
