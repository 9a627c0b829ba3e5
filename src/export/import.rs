//! `POST /sites/import`: an export archive becomes a new site, with new ids
//! and a free slug, its media bytes put back in storage. How an operator
//! moves a site between deployments (and between SQLite and PostgreSQL).
//!
//! Everything runs on the blocking pool, in bounded memory whatever the
//! archive's size: a first pass reads `archive.json` item by item to check it
//! and give every id its new one (nothing is written if the document is not
//! whole and well formed); a second pass reads it again and writes the site in
//! batches (`restore`), copying each media entry to storage as it comes.

use std::collections::HashSet;
use std::io::{Read, Write};

use actix_multipart::Multipart;
use actix_web::web;
use futures_util::TryStreamExt;
use plinth_entities::site;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::bounds::{self, Capped, Limits};
use super::format::{Event, FORMAT_V1};
use super::restore::{stored_key, Ids, Writer};
use super::{stream, unfinished, v1};
use crate::audit::Actor;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::sites::SiteCreator;
use crate::state::AppState;

/// Archives being read in this process (one at a time: a format-1 document
/// is still parsed whole; so one per site and caller too), taken in turn
/// across tenants, and how long another import waits for its turn before it
/// is told to retry.
static IMPORTS_OPENING: std::sync::LazyLock<std::sync::Arc<plinth_actors::FairShare<crate::tenant::Tenant>>> =
    std::sync::LazyLock::new(|| plinth_actors::FairShare::new(plinth_actors::Policy::exclusive()));
const IMPORT_QUEUE_WAIT: std::time::Duration = std::time::Duration::from_secs(30);
/// Media bytes are copied this much at a time.
const CHUNK: usize = 256 * 1024;

fn invalid(why: impl std::fmt::Display) -> ApiError {
    ApiError::bad_request(format!("not a Plinth site export: {why}"))
}

fn storage_failed(e: impl std::fmt::Display) -> ApiError {
    tracing::error!(error = %e, "storing imported media failed");
    ApiError::new(ErrorCode::StorageError, "the archive's media could not be stored")
}

/// The `archive` (or `file`) part, streamed to a temporary file.
async fn receive(state: &AppState, mut multipart: Multipart) -> ApiResult<std::path::PathBuf> {
    let limit = state.config.media.max_upload_bytes;
    let dir = state.config.data_dir.join("tmp");
    std::fs::create_dir_all(&dir).map_err(ApiError::internal)?;
    while let Some(mut field) = multipart.try_next().await.map_err(invalid)? {
        if !matches!(field.name(), Some("archive" | "file")) {
            while field.try_next().await.map_err(invalid)?.is_some() {}
            continue;
        }
        let path = dir.join(format!("import-{}.zip", Uuid::new_v4()));
        let mut file = std::fs::File::create(&path).map_err(ApiError::internal)?;
        let mut size = 0u64;
        while let Some(chunk) = field.try_next().await.map_err(|e| {
            let _ = std::fs::remove_file(&path);
            invalid(e)
        })? {
            size += chunk.len() as u64;
            if size > limit {
                let _ = std::fs::remove_file(&path);
                return Err(ApiError::new(ErrorCode::PayloadTooLarge, format!("the archive exceeds {limit} bytes")));
            }
            file.write_all(&chunk).map_err(ApiError::internal)?;
        }
        return Ok(path);
    }
    Err(ApiError::bad_request("send the export ZIP as the multipart part `archive`"))
}

/// `creator`: the caller, once it may create sites (`sites::creator`).
pub async fn import(state: &web::Data<AppState>, creator: SiteCreator, multipart: Multipart) -> ApiResult<site::Model> {
    let path = receive(state, multipart).await?;
    let turn = tokio::time::timeout(IMPORT_QUEUE_WAIT, IMPORTS_OPENING.acquire(crate::tenant::current())).await;
    let Ok(_opening) = turn else {
        let _ = std::fs::remove_file(&path);
        return Err(ApiError::new(ErrorCode::ServiceUnavailable, "another import is being read; retry shortly")
            .with_header(
                actix_web::http::header::RETRY_AFTER,
                actix_web::http::header::HeaderValue::from_static("10"),
            ));
    };
    let job = Job {
        state: state.clone(),
        handle: tokio::runtime::Handle::current(),
        tenant: crate::tenant::current(),
        path: path.clone(),
        limits: Limits::from_config(&state.config),
        owner: creator.owner,
        actor: creator.actor,
    };
    let imported = tokio::task::spawn_blocking(move || job.run()).await;
    let _ = std::fs::remove_file(&path);
    let site = imported.map_err(ApiError::internal)??;
    state.statistics.after_bulk_write(&state.db);
    Ok(site)
}

/// One import, run on the blocking pool (database and storage calls are
/// driven through `handle`).
struct Job {
    state: web::Data<AppState>,
    handle: tokio::runtime::Handle,
    /// The request's tenant: the import's writes wait in its lane at the
    /// write lock, not in the background's beside every site's fan-out.
    tenant: crate::tenant::Tenant,
    path: std::path::PathBuf,
    limits: Limits,
    owner: Option<String>,
    actor: Actor,
}

/// What the first pass learnt: every new id, and a format-1 document's events.
struct Plan {
    ids: Ids,
    version_1: Option<Vec<Event>>,
}

impl Job {
    fn open(&self) -> ApiResult<zip::ZipArchive<std::fs::File>> {
        let file = std::fs::File::open(&self.path).map_err(ApiError::internal)?;
        zip::ZipArchive::new(file).map_err(invalid)
    }

    /// Runs one of the import's writes to its end, on the request's behalf.
    fn write<T>(&self, write: impl std::future::Future<Output = T>) -> T {
        self.handle.block_on(crate::tenant::acting_for(self.tenant.clone(), write))
    }

    fn run(self) -> ApiResult<site::Model> {
        let mut zip = self.open()?;
        bounds::check_declared(&mut zip, self.limits)?;
        let plan = self.plan(&mut zip)?;
        let state: &AppState = &self.state;
        let mut writer = self.write(Writer::new(state, plan.ids))?;
        let mut copier = Copier { job: &self, zip: self.open()?, copied: HashSet::new(), used: 0 };
        let written = {
            let job = &self;
            let mut write = |event: Event| -> ApiResult<()> {
                match event {
                    Event::Header(h) => job.write(writer.header(*h)),
                    Event::Media(m) => {
                        let bytes = copier.copy(&m)?;
                        job.write(writer.media(*m, bytes))
                    }
                    Event::Term(taxonomy, t) => job.write(writer.term(taxonomy, *t)),
                    Event::Content(c) => job.write(writer.content(*c)),
                    Event::Menu(m) => job.write(writer.menu(*m)),
                    Event::Template(t) => job.write(writer.template(*t)),
                }
            };
            match plan.version_1 {
                Some(events) => events.into_iter().try_for_each(&mut write),
                None => read_document(&mut zip, self.limits, &mut write).map(|_| ()),
            }
        };
        let site_id = writer.site_id();
        let finished = written.and_then(|()| self.write(writer.finish(self.owner.clone(), &self.actor)));
        if let (Err(_), Some(site_id)) = (&finished, site_id) {
            // Nothing half-written stays; if this fails too, the lease runs out and the Janitor removes it.
            if let Err(e) = self.write(unfinished::remove(state, site_id)) {
                tracing::warn!(error = %e, site_id = %site_id, "an unfinished import stays until the Janitor removes it");
            }
        }
        finished
    }

    /// The first pass: the whole document is read and checked, every id gets
    /// its new one, and the media entries it names are checked against the
    /// site's quota by their declared sizes; nothing is written.
    fn plan(&self, zip: &mut zip::ZipArchive<std::fs::File>) -> ApiResult<Plan> {
        let mut ids = Ids::default();
        let mut entries: HashSet<String> = HashSet::new();
        let mut renew = |id: uuid::Uuid| match ids.add(id) {
            true => Ok(()),
            false => Err(invalid(format!("the id {id} is given to two items"))),
        };
        let mut collect = |event: &Event| -> ApiResult<()> {
            match event {
                Event::Header(_) => {}
                Event::Media(m) => {
                    renew(m.file.id)?;
                    if let Some(entry) = &m.entry {
                        let checksum = entry_checksum(entry)?;
                        if m.file.checksum.as_deref() != Some(checksum) {
                            return Err(invalid(format!("{entry} is not the file of checksum {:?}", m.file.checksum)));
                        }
                        entries.insert(entry.clone());
                    }
                }
                Event::Term(_, t) => renew(t.id)?,
                Event::Content(c) => renew(c.content.id)?,
                Event::Menu(m) => {
                    renew(m.menu.id)?;
                    m.items.iter().try_for_each(|i| renew(i.id))?;
                }
                Event::Template(t) => renew(t.id)?,
            }
            Ok(())
        };
        let version_1 = if read_document(zip, self.limits, &mut |e| collect(&e))? {
            let events = v1::events(read_version_1(zip, self.limits)?);
            events.iter().try_for_each(&mut collect)?;
            Some(events)
        } else {
            None
        };
        let mut declared = 0u64;
        for name in &entries {
            let entry = zip.by_name(name).map_err(|_| invalid(format!("{name} is named but not in the archive")))?;
            declared = declared.saturating_add(entry.size());
        }
        let quota = self.state.config.media.site_quota_bytes;
        if quota > 0 && declared > quota {
            return Err(over_quota(declared, quota));
        }
        Ok(Plan { ids, version_1 })
    }
}

fn over_quota(bytes: u64, quota: u64) -> ApiError {
    ApiError::new(
        ErrorCode::StorageQuotaExceeded,
        format!("the archive's media ({bytes} bytes or more) exceed the site's storage quota of {quota} bytes"),
    )
}

/// The checksum a media entry is named by: `media/<sha-256 in hex>.<ext>` and
/// nothing else, so no name reaches storage outside `media/`.
fn entry_checksum(entry: &str) -> ApiResult<&str> {
    let named = entry.strip_prefix("media/").and_then(|n| n.split_once('.'));
    match named {
        Some((checksum, ext))
            if checksum.len() == 64
                && checksum.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
                && (1..=10).contains(&ext.len())
                && ext.bytes().all(|b| b.is_ascii_alphanumeric()) =>
        {
            Ok(checksum)
        }
        _ => Err(invalid(format!("the media entry {entry:?} is not named media/<sha-256>.<extension>"))),
    }
}

/// Streams `archive.json` of format 2 to `sink`; true when it is of format 1
/// (then nothing went to the sink but, maybe, nothing at all).
fn read_document(
    zip: &mut zip::ZipArchive<std::fs::File>,
    limits: Limits,
    sink: &mut dyn FnMut(Event) -> ApiResult<()>,
) -> ApiResult<bool> {
    let entry = zip.by_name("archive.json").map_err(invalid)?;
    let mut document = Capped::new(entry, limits.max_document_bytes);
    match stream::read(&mut document, sink) {
        Ok(()) => Ok(false),
        Err(stream::Stop::Version1) => Ok(true),
        Err(stream::Stop::Sink(e)) => Err(e),
        Err(stream::Stop::Invalid(_)) if document.exceeded => {
            Err(bounds::too_large("archive.json inflates past its limit"))
        }
        Err(stream::Stop::Invalid(why)) => Err(invalid(why)),
    }
}

/// A format-1 document, read whole as it always was (within its limit).
fn read_version_1(zip: &mut zip::ZipArchive<std::fs::File>, limits: Limits) -> ApiResult<v1::Archive> {
    let mut document = Capped::new(zip.by_name("archive.json").map_err(invalid)?, limits.max_document_bytes);
    let parsed: Result<v1::Archive, _> = serde_json::from_reader(std::io::BufReader::new(&mut document));
    let archive = match parsed {
        Err(_) if document.exceeded => return Err(bounds::too_large("archive.json inflates past its limit")),
        parsed => parsed.map_err(invalid)?,
    };
    if archive.format != FORMAT_V1 {
        return Err(invalid(format!("format {}", archive.format)));
    }
    Ok(archive)
}

/// Copies media entries to storage one at a time, chunk by chunk.
struct Copier<'j> {
    job: &'j Job,
    zip: zip::ZipArchive<std::fs::File>,
    /// Entries stored by this import, and their bytes together.
    copied: HashSet<String>,
    used: u64,
}

impl Copier<'_> {
    /// Stores the record's bytes under their checksum (checked while they are
    /// copied, so no entry overwrites another file's bytes); answers them when
    /// the record is an image whose variants are made again.
    fn copy(&mut self, media: &super::format::Media) -> ApiResult<Option<bytes::Bytes>> {
        let Some(name) = media.entry.as_deref() else { return Ok(None) };
        let keep = crate::media::is_raster_image(&media.file.mime_type);
        let fresh = !self.copied.contains(name);
        if !fresh && !keep {
            return Ok(None);
        }
        let checksum = entry_checksum(name)?;
        let key = stored_key(name).ok_or_else(|| invalid(name))?;
        let (handle, storage) = (&self.job.handle, &self.job.state.storage);
        let quota = self.job.state.config.media.site_quota_bytes;
        let temp = format!("uploads/import-{}", Uuid::new_v4());
        let mut reader = Capped::new(self.zip.by_name(name).map_err(invalid)?, self.job.limits.max_media_bytes);
        let mut out = handle.block_on(storage.writer(&temp)).map_err(storage_failed)?;
        let (mut hasher, mut kept, mut size) = (Sha256::new(), Vec::new(), 0u64);
        let mut buffer = vec![0u8; CHUNK];
        let copied = loop {
            let n = match reader.read(&mut buffer) {
                Ok(0) => break Ok(()),
                Ok(n) => n,
                Err(_) if reader.exceeded => break Err(bounds::too_large(format!("{name} inflates past its limit"))),
                Err(e) => break Err(invalid(format!("{name}: {e}"))),
            };
            size += n as u64;
            if fresh && quota > 0 && self.used + size > quota {
                break Err(over_quota(self.used + size, quota));
            }
            hasher.update(&buffer[..n]);
            if keep {
                kept.extend_from_slice(&buffer[..n]);
            }
            if let Err(e) = handle.block_on(out.write(&buffer[..n])) {
                break Err(storage_failed(e));
            }
        };
        if let Err(e) = copied {
            handle.block_on(out.abort());
            return Err(e);
        }
        handle.block_on(out.finish()).map_err(storage_failed)?;
        let placed = if hex::encode(hasher.finalize()) != checksum {
            Err(invalid(format!("the bytes of {name} do not have its checksum")))
        } else {
            handle.block_on(storage.rename(&temp, &key)).map_err(storage_failed)
        };
        if let Err(e) = placed {
            let _ = handle.block_on(storage.delete(&temp));
            return Err(e);
        }
        if fresh {
            self.used += size;
            self.copied.insert(name.to_string());
        }
        Ok(keep.then(|| bytes::Bytes::from(kept)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_checksum_named_media_entries_are_read() {
        let sum = "a".repeat(64);
        assert!(entry_checksum(&format!("media/{sum}.jpg")).is_ok());
        for bad in [
            format!("media/../{sum}.jpg"),
            format!("/etc/{sum}.jpg"),
            format!("media/{sum}.j/g"),
            format!("media/{}.jpg", "A".repeat(64)),
            "media/../../etc/passwd".to_string(),
            format!("media/{sum}."),
        ] {
            assert!(entry_checksum(&bad).is_err(), "{bad}");
        }
    }
}
