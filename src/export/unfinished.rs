//! Sites an import left unfinished: the import failed (removed at once) or its
//! process stopped (its lease runs out, and the Janitor's pass, the first one
//! at start included, deletes it). Deleted in batches of short transactions:
//! the site is invisible meanwhile, and other writers keep their turn.

use plinth_entities::{content, content_count, content_site, media_file, media_site, site};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
use uuid::Uuid;

use crate::error::ApiResult;
use crate::state::AppState;

const BATCH: u64 = 1_000;

/// Deletes the unfinished site `site_id` and everything written for it.
pub async fn remove(state: &AppState, site_id: Uuid) -> ApiResult<()> {
    // Only a site still under its import lease: never one an import completed.
    let unfinished = || site::Entity::find_by_id(site_id).filter(site::Column::ImportLeaseUntil.is_not_null());
    if unfinished().one(&state.db).await?.is_none() {
        return Ok(());
    }
    loop {
        // Its contents and media are its own: the site was never visible to link them elsewhere.
        let contents: Vec<Uuid> = content_site::Entity::find()
            .select_only()
            .column(content_site::Column::ContentId)
            .filter(content_site::Column::SiteId.eq(site_id))
            .limit(BATCH)
            .into_tuple()
            .all(&state.db)
            .await?;
        let media: Vec<Uuid> = media_site::Entity::find()
            .select_only()
            .column(media_site::Column::MediaId)
            .filter(media_site::Column::SiteId.eq(site_id))
            .limit(BATCH)
            .into_tuple()
            .all(&state.db)
            .await?;
        if contents.is_empty() && media.is_empty() {
            break;
        }
        let txn = crate::db::begin_unaudited(&state.db, "removing what an unfinished import left").await?;
        content::Entity::delete_many().filter(content::Column::Id.is_in(contents)).exec(&txn).await?;
        media_file::Entity::delete_many().filter(media_file::Column::Id.is_in(media)).exec(&txn).await?;
        txn.commit().await?;
    }
    let txn = crate::db::begin_unaudited(&state.db, "removing what an unfinished import left").await?;
    // Terms, menus, settings, locales, environments cascade.
    site::Entity::delete_many()
        .filter(site::Column::Id.eq(site_id))
        .filter(site::Column::ImportLeaseUntil.is_not_null())
        .exec(&txn)
        .await?;
    content_count::Entity::delete_many().filter(content_count::Column::SiteId.eq(site_id)).exec(&txn).await?;
    txn.commit().await?;
    Ok(())
}

/// The Janitor's pass: sites whose import lease ran out go; answers how many.
pub async fn remove_abandoned(state: &AppState) -> ApiResult<usize> {
    let abandoned: Vec<Uuid> = site::Entity::find()
        .select_only()
        .column(site::Column::Id)
        .filter(site::Column::ImportLeaseUntil.lt(state.clock.now()))
        .into_tuple()
        .all(&state.db)
        .await?;
    for site_id in &abandoned {
        remove(state, *site_id).await?;
        tracing::info!(site_id = %site_id, "an unfinished import was removed");
    }
    Ok(abandoned.len())
}
