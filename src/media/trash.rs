//! Media in the trash (`media`), and a site's media when its content is reset.

use chrono::{DateTime, Utc};
use futures_util::future::BoxFuture;
use plinth_entities::{media_file, media_listing, media_site};
use sea_orm::sea_query::{Expr, ExprTrait, Query, SelectStatement, SimpleExpr, SubQueryStatement};
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QuerySelect};
use serde_json::json;
use uuid::Uuid;

use super::listing::{self, LibraryFilter};
use super::records::{self, Media};
use super::{access, service, stored};
use crate::audit::{self, Action};
use crate::auth::SitesGrant;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::trash_source::{count_of, trash_rows, SiteReset, TrashColumns, TrashSource, Trashed};

pub struct MediaTrash;

/// The site's files in the trash, latest deleted first (`ix_media_sites_trash`).
fn deleted_media(site_id: Uuid) -> LibraryFilter {
    LibraryFilter { site_id, deleted: true, ..LibraryFilter::default() }
}

impl TrashSource for MediaTrash {
    fn entity_types(&self) -> &'static [&'static str] {
        &["media"]
    }

    fn deleted(&self, site_id: Uuid, limit: u64) -> Vec<SelectStatement> {
        // The site's rows in deletion order; the file's name by its key.
        let filename = Query::select()
            .column(media_file::Column::Filename)
            .from(media_file::Entity)
            .and_where(
                Expr::col((media_file::Entity, media_file::Column::Id))
                    .equals((media_listing::Entity, media_listing::Column::MediaId)),
            )
            .to_owned();
        let filename = SimpleExpr::SubQuery(None, Box::new(SubQueryStatement::SelectStatement(filename)));
        let columns = TrashColumns {
            id: Expr::col((media_listing::Entity, media_listing::Column::MediaId)),
            entity_type: "media",
            title: filename.clone(),
            slug: filename,
            deleted_at: Expr::col((media_listing::Entity, media_listing::Column::DeletedAt)),
        };
        vec![trash_rows(listing::site_rows(&deleted_media(site_id)).limit(limit), columns)]
    }

    fn counts(&self, site_id: Uuid) -> Vec<SelectStatement> {
        vec![count_of(listing::site_rows(&deleted_media(site_id)))]
    }

    fn find<'a>(&'a self, state: &'a AppState, _: &'a str, id: Uuid) -> BoxFuture<'a, ApiResult<Box<dyn Trashed>>> {
        Box::pin(async move {
            let media = records::load(state, id, true).await?;
            // Nobody's rights reach a file on no site.
            if media.site_ids.is_empty() {
                return Err(access::no_site());
            }
            Ok(Box::new(TrashedMedia(media)) as Box<dyn Trashed>)
        })
    }

    fn trash_site<'a>(
        &'a self,
        txn: &'a crate::db::WriteTxn,
        now: chrono::DateTime<chrono::Utc>,
        _actor: &'a crate::audit::Actor,
        site_id: Uuid,
    ) -> BoxFuture<'a, ApiResult<SiteReset>> {
        Box::pin(async move { Ok(SiteReset::of(vec![("media", reset_site_media(txn, now, site_id).await?)])) })
    }
}

/// A file found for the trash, with its sites.
struct TrashedMedia(Media);

impl Trashed for TrashedMedia {
    fn site_ids(&self) -> &[Uuid] {
        &self.0.site_ids
    }

    fn restore<'a>(
        self: Box<Self>,
        state: &'a AppState,
        grant: &'a SitesGrant,
    ) -> BoxFuture<'a, ApiResult<serde_json::Value>> {
        Box::pin(async move {
            let TrashedMedia(media) = *self;
            crate::trash_source::ensure_in_trash(media.file.is_deleted)?;
            let now = state.clock.now();
            let mut row: media_file::ActiveModel = media.file.clone().into();
            row.is_deleted = Set(false);
            row.deleted_at = Set(None);
            let restored = audit::write(&state.db, async |txn| {
                let restored = media_file::Entity::update(row).exec(txn).await?;
                let entry =
                    service::audit_entry(grant.actor(), Action::Restore, &restored, media.site_ids.first().copied());
                audit::record(txn, now, entry, &json!({"is_deleted": true}), &json!({"is_deleted": false})).await?;
                Ok(restored)
            })
            .await?;
            let response = records::response(state, restored).await?;
            serde_json::to_value(response).map_err(|e| ApiError::internal(format!("restored media: {e}")))
        })
    }

    fn purge<'a>(self: Box<Self>, state: &'a AppState, grant: &'a SitesGrant) -> BoxFuture<'a, ApiResult<()>> {
        Box::pin(async move {
            let TrashedMedia(media) = *self;
            let id = media.file.id;
            crate::trash_source::ensure_purgeable(media.file.is_deleted)?;
            audit::write(&state.db, async |txn| {
                // Sites, variants and metadata go with it (foreign keys cascade).
                media_file::Entity::delete_by_id(id).exec(txn).await?;
                let entry =
                    service::audit_entry(grant.actor(), Action::Purge, &media.file, media.site_ids.first().copied());
                audit::record_on_sites(
                    txn,
                    state.clock.now(),
                    entry,
                    &media.site_ids,
                    &json!({"filename": media.file.filename, "checksum": media.file.checksum}),
                    &(),
                )
                .await?;
                Ok(())
            })
            .await?;
            // The bytes go when no other record shares them.
            if let Some(checksum) = &media.file.checksum {
                if media.file.storage_key.is_some() && stored::count_with_checksum(&state.db, checksum).await? == 0 {
                    if let Err(e) = state.storage.delete_prefix(&format!("media/{checksum}")).await {
                        tracing::warn!(error = %e, %checksum, "could not remove purged media files");
                    }
                }
            }
            Ok(())
        })
    }
}

/// Resetting a site's content: files only on this site go to the trash; files
/// shared with other sites just leave this one. Answers how many were trashed.
async fn reset_site_media(db: &impl ConnectionTrait, now: DateTime<Utc>, site_id: Uuid) -> Result<u64, DbErr> {
    let shared = Query::select()
        .column(media_site::Column::MediaId)
        .from(media_site::Entity)
        .and_where(media_site::Column::SiteId.ne(site_id))
        .to_owned();
    let on_site = Query::select()
        .column(media_site::Column::MediaId)
        .from(media_site::Entity)
        .and_where(media_site::Column::SiteId.eq(site_id))
        .to_owned();
    let trashed = media_file::Entity::update_many()
        .col_expr(media_file::Column::IsDeleted, Expr::value(true))
        .col_expr(media_file::Column::DeletedAt, Expr::value(now))
        .filter(media_file::Column::IsDeleted.eq(false))
        .filter(media_file::Column::Id.in_subquery(on_site))
        .filter(media_file::Column::Id.not_in_subquery(shared.clone()))
        .exec(db)
        .await?
        .rows_affected;
    media_site::Entity::delete_many()
        .filter(media_site::Column::SiteId.eq(site_id))
        .filter(media_site::Column::MediaId.in_subquery(shared))
        .exec(db)
        .await?;
    Ok(trashed)
}
