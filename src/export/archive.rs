//! The archive of a site: `archive.json` (site, settings, locales, blogs,
//! pages, taxonomy, navigation, media records, with their localizations) and
//! the bytes of the site's media under `media/`. The ZIP is written to a
//! temporary file on the blocking pool, media streamed into it chunk by chunk,
//! then streamed to storage: the archive is never in memory.

use std::io::{Read, Write};

use futures_util::StreamExt;
use plinth_entities::{
    content, content_category, content_localization, content_site, content_tag, locale, media_file, media_metadata,
    media_site, nav_item, nav_menu, site, site_locale, site_setting, term, term_localization,
};
use sea_orm::sea_query::Query;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::{json, Value};
use uuid::Uuid;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

pub const FORMAT: &str = "plinth-site-export/1";

/// Everything of the site but media bytes, as JSON rows of each table.
pub async fn archive_json(state: &AppState, site_id: Uuid) -> ApiResult<(Value, Vec<(String, String)>)> {
    let db = &state.db;
    let site = site::Entity::find_by_id(site_id)
        .into_json()
        .one(db)
        .await?
        .ok_or_else(|| ApiError::not_found("site", site_id))?;
    let settings =
        site_setting::Entity::find().filter(site_setting::Column::SiteId.eq(site_id)).into_json().all(db).await?;
    let site_locales =
        site_locale::Entity::find().filter(site_locale::Column::SiteId.eq(site_id)).into_json().all(db).await?;
    let locales = locale::Entity::find().into_json().all(db).await?;
    let on_site = Query::select()
        .column(content_site::Column::ContentId)
        .from(content_site::Entity)
        .and_where(content_site::Column::SiteId.eq(site_id))
        .to_owned();
    let contents = content::Entity::find()
        .filter(content::Column::Kind.is_in(["blog", "page"]))
        .filter(content::Column::IsDeleted.eq(false))
        .filter(content::Column::Id.in_subquery(on_site))
        .order_by_asc(content::Column::CreatedAt)
        .into_json()
        .all(db)
        .await?;
    let ids: Vec<Uuid> = contents.iter().filter_map(|c| c["id"].as_str()?.parse().ok()).collect();
    let placements = content_site::Entity::find()
        .filter(content_site::Column::SiteId.eq(site_id))
        .filter(content_site::Column::ContentId.is_in(ids.clone()))
        .into_json()
        .all(db)
        .await?;
    let localizations = content_localization::Entity::find()
        .filter(content_localization::Column::ContentId.is_in(ids.clone()))
        .into_json()
        .all(db)
        .await?;
    let categories = content_category::Entity::find()
        .filter(content_category::Column::ContentId.is_in(ids.clone()))
        .into_json()
        .all(db)
        .await?;
    let tags =
        content_tag::Entity::find().filter(content_tag::Column::ContentId.is_in(ids)).into_json().all(db).await?;
    let terms = term::Entity::find().filter(term::Column::SiteId.eq(site_id)).into_json().all(db).await?;
    let term_ids: Vec<Uuid> = terms.iter().filter_map(|t| t["id"].as_str()?.parse().ok()).collect();
    let term_localizations = term_localization::Entity::find()
        .filter(term_localization::Column::TermId.is_in(term_ids))
        .into_json()
        .all(db)
        .await?;
    let menus = nav_menu::Entity::find()
        .filter(nav_menu::Column::SiteId.eq(site_id))
        .filter(nav_menu::Column::IsDeleted.eq(false))
        .into_json()
        .all(db)
        .await?;
    let items = nav_item::Entity::find()
        .filter(nav_item::Column::SiteId.eq(site_id))
        .filter(nav_item::Column::IsDeleted.eq(false))
        .into_json()
        .all(db)
        .await?;
    let media_on_site = Query::select()
        .column(media_site::Column::MediaId)
        .from(media_site::Entity)
        .and_where(media_site::Column::SiteId.eq(site_id))
        .to_owned();
    let media: Vec<media_file::Model> = media_file::Entity::find()
        .filter(media_file::Column::IsDeleted.eq(false))
        .filter(media_file::Column::Id.in_subquery(media_on_site))
        .all(db)
        .await?;
    let media_ids: Vec<Uuid> = media.iter().map(|m| m.id).collect();
    let media_metadata = media_metadata::Entity::find()
        .filter(media_metadata::Column::MediaId.is_in(media_ids.clone()))
        .into_json()
        .all(db)
        .await?;
    let media_rows =
        media_file::Entity::find().filter(media_file::Column::Id.is_in(media_ids)).into_json().all(db).await?;
    // Owned bytes: each stored original once, named by its checksum.
    let mut files: Vec<(String, String)> = Vec::new();
    for m in &media {
        if let (Some(key), Some(checksum)) = (&m.storage_key, &m.checksum) {
            let ext = key.rsplit('.').next().unwrap_or("bin");
            let name = format!("media/{checksum}.{ext}");
            if !files.iter().any(|(_, n)| *n == name) {
                files.push((key.clone(), name));
            }
        }
    }
    let archive = json!({
        "format": FORMAT,
        "exported_at": state.clock.now(),
        "site": site,
        "settings": settings,
        "locales": locales,
        "site_locales": site_locales,
        "contents": contents,
        "content_sites": placements,
        "content_localizations": localizations,
        "content_categories": categories,
        "content_tags": tags,
        "terms": terms,
        "term_localizations": term_localizations,
        "navigation_menus": menus,
        "navigation_items": items,
        "media": media_rows,
        "media_metadata": media_metadata,
        "media_files": files.iter().map(|(_, name)| name.clone()).collect::<Vec<_>>(),
    });
    Ok((archive, files))
}

fn failed(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Builds the archive of `site_id` into storage at `key`; answers its size.
pub async fn build(state: &AppState, site_id: Uuid, key: &str) -> Result<i64, String> {
    let (archive, files) = archive_json(state, site_id).await.map_err(|e| e.to_string())?;
    let temp_dir = state.config.data_dir.join("tmp");
    std::fs::create_dir_all(&temp_dir).map_err(failed)?;
    let temp_path = temp_dir.join(format!("export-{}.zip", Uuid::new_v4()));
    let handle = tokio::runtime::Handle::current();
    let storage = state.storage.store.clone();
    let path = temp_path.clone();
    let written = tokio::task::spawn_blocking(move || -> Result<(), String> {
        let file = std::fs::File::create(&path).map_err(failed)?;
        let mut zip = ZipWriter::new(std::io::BufWriter::new(file));
        let deflated = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated).large_file(true);
        zip.start_file("archive.json", deflated).map_err(failed)?;
        serde_json::to_writer_pretty(&mut zip, &archive).map_err(failed)?;
        // Media is compressed already: stored as is.
        let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored).large_file(true);
        for (source, name) in files {
            zip.start_file(name.as_str(), stored).map_err(failed)?;
            let mut stream = handle
                .block_on(storage.get(&object_store::path::Path::from(source.as_str())))
                .map_err(failed)?
                .into_stream();
            while let Some(chunk) = handle.block_on(stream.next()) {
                zip.write_all(&chunk.map_err(failed)?).map_err(failed)?;
            }
        }
        zip.finish().map_err(failed)?.flush().map_err(failed)?;
        Ok(())
    })
    .await
    .map_err(failed)?;
    let result = match written {
        Ok(()) => upload(state, &temp_path, key).await,
        Err(e) => Err(e),
    };
    let _ = std::fs::remove_file(&temp_path);
    result
}

/// Streams the finished file to storage, 1 MiB at a time.
async fn upload(state: &AppState, path: &std::path::Path, key: &str) -> Result<i64, String> {
    let mut file = std::fs::File::open(path).map_err(failed)?;
    let mut out = state.storage.writer(key).await.map_err(failed)?;
    let mut buffer = vec![0u8; 1024 * 1024];
    let mut size = 0i64;
    loop {
        let n = file.read(&mut buffer).map_err(failed)?;
        if n == 0 {
            break;
        }
        size += n as i64;
        if let Err(e) = out.write(&buffer[..n]).await {
            out.abort().await;
            return Err(failed(e));
        }
    }
    out.finish().await.map_err(failed)?;
    Ok(size)
}
