//! The archive of a site: the bytes of its media under `media/` and
//! `archive.json` (format 2, see `format`). Built on the blocking pool into a
//! temporary file, then streamed to storage. Nothing is held whole: rows are
//! read in pages of `pages::PAGE` rows by primary key (keyset: each page starts after
//! the last id of the one before), each page written to the ZIP and dropped,
//! and media bytes are copied from storage chunk by chunk. The reads are
//! plain pages on the read pool: no write lock, and no long transaction that
//! would keep other requests waiting.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};

use actix_web::web;
use futures_util::StreamExt;
use plinth_entities::{locale, site, site_locale, site_setting};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde::Serialize;
use uuid::Uuid;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use super::format::{SiteLocale, Taxonomy, CONTENT_SECTIONS, FORMAT};
use super::pages::{self, media_entry};
use crate::state::AppState;

fn failed(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Builds the archive of `site_id` into storage at `key`; answers its size.
pub async fn build(state: &web::Data<AppState>, site_id: Uuid, key: &str) -> Result<i64, String> {
    let temp_dir = state.config.data_dir.join("tmp");
    std::fs::create_dir_all(&temp_dir).map_err(failed)?;
    let temp_path = temp_dir.join(format!("export-{}.zip", Uuid::new_v4()));
    let handle = tokio::runtime::Handle::current();
    let (shared, path) = (state.clone(), temp_path.clone());
    let written = tokio::task::spawn_blocking(move || write_zip(&shared, &handle, site_id, &path))
        .await
        .map_err(failed)
        .and_then(|r| r);
    let result = match written {
        Ok(()) => upload(state, &temp_path, key).await,
        Err(e) => Err(e),
    };
    let _ = std::fs::remove_file(&temp_path);
    result
}

/// `[`, the items separated by commas (one a line), `]`.
struct List<'w, W: Write> {
    out: &'w mut W,
    first: bool,
}

impl<'w, W: Write> List<'w, W> {
    fn open(out: &'w mut W, key: &str) -> Result<Self, String> {
        write!(out, ",\n\"{key}\": [").map_err(failed)?;
        Ok(List { out, first: true })
    }

    fn item(&mut self, value: &impl Serialize) -> Result<(), String> {
        self.out.write_all(if self.first { b"\n" } else { b",\n" }).map_err(failed)?;
        self.first = false;
        serde_json::to_writer(&mut *self.out, value).map_err(failed)
    }

    fn close(self) -> Result<(), String> {
        self.out.write_all(b"\n]").map_err(failed)
    }
}

fn write_zip(
    state: &AppState,
    handle: &tokio::runtime::Handle,
    site_id: Uuid,
    path: &std::path::Path,
) -> Result<(), String> {
    let db = &state.db;
    let site = handle
        .block_on(site::Entity::find_by_id(site_id).one(db))
        .map_err(failed)?
        .ok_or_else(|| format!("site {site_id} not found"))?;
    let file = std::fs::File::create(path).map_err(failed)?;
    let mut zip = ZipWriter::new(std::io::BufWriter::new(file));

    // Media bytes first, each stored original once (by checksum): entries
    // are found by name, so their place in the ZIP does not matter, and
    // archive.json is then written in one go. Media is compressed already:
    // stored as is.
    let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored).large_file(true);
    let mut names: HashSet<String> = HashSet::new();
    let mut after = None;
    loop {
        let page = handle.block_on(pages::media(db, site_id, after)).map_err(failed)?;
        let Some(last) = page.last().map(|m| m.id) else { break };
        after = Some(last);
        for m in &page {
            let (Some(key), Some(name)) = (&m.storage_key, media_entry(m)) else { continue };
            if !names.insert(name.clone()) {
                continue;
            }
            zip.start_file(name.as_str(), stored).map_err(failed)?;
            let mut stream = handle
                .block_on(state.storage.store.get(&object_store::path::Path::from(key.as_str())))
                .map_err(failed)?
                .into_stream();
            while let Some(chunk) = handle.block_on(stream.next()) {
                zip.write_all(&chunk.map_err(failed)?).map_err(failed)?;
            }
        }
    }
    drop(names);

    let deflated = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated).large_file(true);
    zip.start_file("archive.json", deflated).map_err(failed)?;
    {
        let mut out = std::io::BufWriter::with_capacity(256 * 1024, &mut zip);
        write_document(state, handle, site, &mut out)?;
        out.flush().map_err(failed)?;
    }
    zip.finish().map_err(failed)?.flush().map_err(failed)?;
    Ok(())
}

/// `archive.json`, section by section in the order of `format::SECTIONS`.
fn write_document(
    state: &AppState,
    handle: &tokio::runtime::Handle,
    site: site::Model,
    out: &mut impl Write,
) -> Result<(), String> {
    let db = &state.db;
    let site_id = site.id;
    let codes: HashMap<Uuid, locale::Model> =
        handle.block_on(locale::Entity::find().all(db)).map_err(failed)?.into_iter().map(|l| (l.id, l)).collect();
    let code = |id: Uuid| codes.get(&id).map(|l| l.code.clone());
    write!(out, "{{\n\"format\": {},\n\"exported_at\": {},\n\"site\": ", json(&FORMAT)?, json(&state.clock.now())?)
        .map_err(failed)?;
    serde_json::to_writer(&mut *out, &site).map_err(failed)?;
    let settings = handle.block_on(site_setting::Entity::find_by_id(site_id).one(db)).map_err(failed)?;
    write!(out, ",\n\"settings\": {}", json(&settings.map(|s| s.overrides))?).map_err(failed)?;
    let assigned = handle
        .block_on(site_locale::Entity::find().filter(site_locale::Column::SiteId.eq(site_id)).all(db))
        .map_err(failed)?;
    let mut locales = List::open(out, "locales")?;
    for l in assigned {
        let Some(global) = codes.get(&l.locale_id) else { continue };
        locales.item(&SiteLocale {
            code: global.code.clone(),
            name: global.name.clone(),
            native_name: global.native_name.clone(),
            direction: global.direction.clone(),
            is_default: l.is_default,
            is_active: l.is_active,
            url_prefix: l.url_prefix,
            created_at: l.created_at,
        })?;
    }
    locales.close()?;

    let mut media = List::open(out, "media")?;
    let mut after = None;
    loop {
        let page = handle.block_on(pages::media_items(db, site_id, after, &code)).map_err(failed)?;
        let Some(last) = page.last().map(|m| m.file.id) else { break };
        after = Some(last);
        page.iter().try_for_each(|m| media.item(m))?;
    }
    media.close()?;

    out.write_all(b",\n\"taxonomy\": {\"categories\": [").map_err(failed)?;
    for taxonomy in [Taxonomy::Category, Taxonomy::Tag] {
        if taxonomy == Taxonomy::Tag {
            out.write_all(b"\n],\n\"tags\": [").map_err(failed)?;
        }
        let mut first = true;
        let mut after = None;
        loop {
            let page = handle.block_on(pages::terms(db, site_id, taxonomy, after, &code)).map_err(failed)?;
            let Some(last) = page.last().map(|t| t.id) else { break };
            after = Some(last);
            for term in &page {
                out.write_all(if first { b"\n" } else { b",\n" }).map_err(failed)?;
                first = false;
                serde_json::to_writer(&mut *out, term).map_err(failed)?;
            }
        }
    }
    out.write_all(b"\n]}").map_err(failed)?;

    for (key, kind) in CONTENT_SECTIONS {
        let mut list = List::open(out, key)?;
        let mut after = None;
        loop {
            let (page, last) = handle.block_on(pages::contents(db, site_id, kind, after, &code)).map_err(failed)?;
            let Some(last) = last else { break };
            after = Some(last);
            page.iter().try_for_each(|c| list.item(c))?;
        }
        list.close()?;
    }

    out.write_all(b",\n\"navigation\": {\"menus\": [").map_err(failed)?;
    let mut first = true;
    let mut after = None;
    loop {
        let page = handle.block_on(pages::menus(db, site_id, after)).map_err(failed)?;
        let Some(last) = page.last().map(|m| m.menu.id) else { break };
        after = Some(last);
        for menu in &page {
            out.write_all(if first { b"\n" } else { b",\n" }).map_err(failed)?;
            first = false;
            serde_json::to_writer(&mut *out, menu).map_err(failed)?;
        }
    }
    out.write_all(b"\n]}").map_err(failed)?;

    let mut list = List::open(out, "content_templates")?;
    let mut after = None;
    loop {
        let page = handle.block_on(pages::templates(db, site_id, after)).map_err(failed)?;
        let Some(last) = page.last().map(|t| t.id) else { break };
        after = Some(last);
        page.iter().try_for_each(|t| list.item(t))?;
    }
    list.close()?;
    out.write_all(b"\n}\n").map_err(failed)
}

fn json(value: &impl Serialize) -> Result<String, String> {
    serde_json::to_string(value).map_err(failed)
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
