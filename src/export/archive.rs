//! The archive of a site: `archive.json` (site, settings, locales, blogs,
//! pages, taxonomy, navigation, media records, with their localizations) and
//! the bytes of the site's media under `media/`. The ZIP is written to a
//! temporary file on the blocking pool, media streamed into it chunk by chunk,
//! then streamed to storage: the archive is never in memory.

use std::io::{Read, Write};

use chrono::{DateTime, Utc};
use futures_util::StreamExt;
use plinth_entities::{
    content, content_category, content_localization, content_site, content_tag, locale, media_file, media_metadata,
    media_site, nav_item, nav_menu, site, site_locale, site_setting, term, term_localization,
};
use sea_orm::sea_query::Query;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde::{Deserialize, Serialize};
use uuid::Uuid;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

pub const FORMAT: &str = "plinth-site-export/1";

/// `archive.json`: the site's rows, table by table, as stored.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct Archive {
    pub format: String,
    pub exported_at: DateTime<Utc>,
    pub site: site::Model,
    pub settings: Vec<site_setting::Model>,
    /// The global locales the site uses (matched by code on import).
    pub locales: Vec<locale::Model>,
    pub site_locales: Vec<site_locale::Model>,
    /// Blogs and pages.
    pub contents: Vec<content::Model>,
    pub content_sites: Vec<content_site::Model>,
    pub content_localizations: Vec<content_localization::Model>,
    pub content_categories: Vec<content_category::Model>,
    pub content_tags: Vec<content_tag::Model>,
    pub terms: Vec<term::Model>,
    pub term_localizations: Vec<term_localization::Model>,
    pub navigation_menus: Vec<nav_menu::Model>,
    pub navigation_items: Vec<nav_item::Model>,
    pub media: Vec<media_file::Model>,
    pub media_metadata: Vec<media_metadata::Model>,
    /// Entries under `media/`: `media/<sha-256>.<ext>`.
    pub media_files: Vec<String>,
}

/// The name of a media file's bytes in the archive.
pub fn media_entry(file: &media_file::Model) -> Option<String> {
    let (key, checksum) = (file.storage_key.as_ref()?, file.checksum.as_ref()?);
    Some(format!("media/{checksum}.{}", key.rsplit('.').next().unwrap_or("bin")))
}

/// Everything of the site but media bytes; with the storage keys of the
/// media bytes and their names in the archive.
pub async fn archive_json(state: &AppState, site_id: Uuid) -> ApiResult<(Archive, Vec<(String, String)>)> {
    let db = &state.db;
    let site = site::Entity::find_by_id(site_id).one(db).await?.ok_or_else(|| ApiError::not_found("site", site_id))?;
    let settings = site_setting::Entity::find().filter(site_setting::Column::SiteId.eq(site_id)).all(db).await?;
    let site_locales = site_locale::Entity::find().filter(site_locale::Column::SiteId.eq(site_id)).all(db).await?;
    let used: Vec<Uuid> = site_locales.iter().map(|l| l.locale_id).collect();
    let locales = locale::Entity::find().filter(locale::Column::Id.is_in(used)).all(db).await?;
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
        .order_by_asc(content::Column::Id)
        .all(db)
        .await?;
    let ids: Vec<Uuid> = contents.iter().map(|c| c.id).collect();
    let content_sites = content_site::Entity::find()
        .filter(content_site::Column::SiteId.eq(site_id))
        .filter(content_site::Column::ContentId.is_in(ids.clone()))
        .order_by_asc(content_site::Column::Kind)
        .order_by_asc(content_site::Column::Slug)
        .all(db)
        .await?;
    // Orders that survive an import (ids do not): what a re-export compares.
    let content_localizations = content_localization::Entity::find()
        .filter(content_localization::Column::ContentId.is_in(ids.clone()))
        .order_by_asc(content_localization::Column::CreatedAt)
        .order_by_asc(content_localization::Column::Title)
        .all(db)
        .await?;
    let content_categories =
        content_category::Entity::find().filter(content_category::Column::ContentId.is_in(ids.clone())).all(db).await?;
    let content_tags = content_tag::Entity::find().filter(content_tag::Column::ContentId.is_in(ids)).all(db).await?;
    let terms =
        term::Entity::find().filter(term::Column::SiteId.eq(site_id)).order_by_asc(term::Column::Slug).all(db).await?;
    let term_ids: Vec<Uuid> = terms.iter().map(|t| t.id).collect();
    let term_localizations =
        term_localization::Entity::find().filter(term_localization::Column::TermId.is_in(term_ids)).all(db).await?;
    let navigation_menus = nav_menu::Entity::find()
        .filter(nav_menu::Column::SiteId.eq(site_id))
        .filter(nav_menu::Column::IsDeleted.eq(false))
        .order_by_asc(nav_menu::Column::Slug)
        .all(db)
        .await?;
    let navigation_items = nav_item::Entity::find()
        .filter(nav_item::Column::SiteId.eq(site_id))
        .filter(nav_item::Column::IsDeleted.eq(false))
        .order_by_asc(nav_item::Column::DisplayOrder)
        .order_by_asc(nav_item::Column::Label)
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
        .order_by_asc(media_file::Column::CreatedAt)
        .all(db)
        .await?;
    let media_ids: Vec<Uuid> = media.iter().map(|m| m.id).collect();
    let media_metadata = media_metadata::Entity::find()
        .filter(media_metadata::Column::MediaId.is_in(media_ids))
        .order_by_asc(media_metadata::Column::CreatedAt)
        .all(db)
        .await?;
    // Owned bytes: each stored original once, named by its checksum.
    let mut files: Vec<(String, String)> = Vec::new();
    for m in &media {
        if let (Some(key), Some(name)) = (&m.storage_key, media_entry(m)) {
            if !files.iter().any(|(_, n)| *n == name) {
                files.push((key.clone(), name));
            }
        }
    }
    let archive = Archive {
        format: FORMAT.into(),
        exported_at: state.clock.now(),
        site,
        settings,
        locales,
        site_locales,
        contents,
        content_sites,
        content_localizations,
        content_categories,
        content_tags,
        terms,
        term_localizations,
        navigation_menus,
        navigation_items,
        media,
        media_metadata,
        media_files: files.iter().map(|(_, name)| name.clone()).collect(),
    };
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
