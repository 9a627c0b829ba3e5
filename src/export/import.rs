//! `POST /sites/import`: an export archive becomes a new site, with new ids
//! and a free slug, its media bytes put back in storage; the rows go in one
//! transaction. How an operator moves a site between deployments (and
//! between SQLite and PostgreSQL).

use std::collections::HashMap;
use std::io::{Read, Write};

use actix_multipart::Multipart;
use futures_util::TryStreamExt;
use plinth_entities::{
    content, content_category, content_localization, content_site, content_tag, locale, media_file, media_metadata,
    media_site, nav_item, nav_menu, site, site_locale, site_member, site_setting, term, term_localization,
};
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, QueryFilter, QuerySelect};
use serde_json::{json, Value};
use uuid::Uuid;

use super::archive::{media_entry, Archive, FORMAT};
use super::bounds::{self, Capped, Limits};
use crate::audit::{self, Action, AuditEntry};
use crate::auth::{Principal, Role};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;

/// Archives being read in this process (one at a time), and how long another
/// import waits for its turn before it is told to retry.
static IMPORTS_OPENING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(1);
const IMPORT_QUEUE_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

fn invalid(why: impl std::fmt::Display) -> ApiError {
    ApiError::bad_request(format!("not a Plinth site export: {why}"))
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
        while let Some(chunk) = field.try_next().await.map_err(invalid)? {
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

/// Reads `archive.json` and each media file, off the request threads, within
/// the archive's limits (`bounds`): declared sizes are checked before anything
/// is inflated, and every entry is read through a cap.
async fn open(path: std::path::PathBuf, limits: Limits) -> ApiResult<(Archive, Vec<(String, Vec<u8>)>)> {
    tokio::task::spawn_blocking(move || -> ApiResult<_> {
        let file = std::fs::File::open(&path).map_err(ApiError::internal)?;
        let mut zip = zip::ZipArchive::new(file).map_err(invalid)?;
        bounds::check_declared(&mut zip, limits)?;
        let archive: Archive = {
            let mut document = Capped::new(zip.by_name("archive.json").map_err(invalid)?, limits.max_document_bytes);
            let parsed: Result<Archive, _> = serde_json::from_reader(&mut document);
            match parsed {
                Err(_) if document.exceeded => return Err(bounds::too_large("archive.json inflates past its limit")),
                parsed => parsed.map_err(invalid)?,
            }
        };
        if archive.format != FORMAT {
            return Err(invalid(format!("format {} (expected {FORMAT})", archive.format)));
        }
        let mut files = Vec::new();
        for name in &archive.media_files {
            let mut bytes = Vec::new();
            let mut entry = Capped::new(zip.by_name(name).map_err(invalid)?, limits.max_media_bytes);
            if let Err(e) = entry.read_to_end(&mut bytes) {
                return Err(match entry.exceeded {
                    true => bounds::too_large(format!("{name} inflates past its limit")),
                    false => invalid(e),
                });
            }
            files.push((name.clone(), bytes));
        }
        Ok((archive, files))
    })
    .await
    .map_err(ApiError::internal)?
}

/// The slug, or `slug-2`, `-3`, … when taken: one query over the candidates
/// (index probes of the unique slug), a batch of 100 after another.
async fn free_slug(db: &impl ConnectionTrait, wanted: &str) -> ApiResult<String> {
    for batch in 0..100u32 {
        let candidates = crate::values::numbered(wanted, batch * 100 + 1..=batch * 100 + 100);
        let taken: std::collections::HashSet<String> = site::Entity::find()
            .select_only()
            .column(site::Column::Slug)
            .filter(site::Column::Slug.is_in(candidates.clone()))
            .into_tuple::<String>()
            .all(db)
            .await?
            .into_iter()
            .collect();
        if let Some(free) = candidates.into_iter().find(|c| !taken.contains(c)) {
            return Ok(free);
        }
    }
    Err(ApiError::new(ErrorCode::Conflict, "no free slug for the imported site"))
}

/// Old ids to new ones.
#[derive(Default)]
struct Ids(HashMap<Uuid, Uuid>);

impl Ids {
    fn renew(&mut self, old: Uuid) -> Uuid {
        *self.0.entry(old).or_insert_with(Uuid::new_v4)
    }

    fn get(&self, old: Uuid) -> Option<Uuid> {
        self.0.get(&old).copied()
    }

    /// Replaces every string in `value` naming an old id (page sections, galleries).
    fn remap_json(&self, value: &mut Value) {
        match value {
            Value::String(s) => {
                if let Some(new) = s.parse::<Uuid>().ok().and_then(|old| self.get(old)) {
                    *s = new.to_string();
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.remap_json(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.remap_json(v)),
            _ => {}
        }
    }
}

async fn insert_all<E, A>(db: &impl ConnectionTrait, rows: Vec<A>) -> ApiResult<()>
where
    E: EntityTrait,
    A: sea_orm::ActiveModelTrait<Entity = E> + Send,
{
    let mut rows = rows.into_iter().peekable();
    while rows.peek().is_some() {
        let batch: Vec<A> = rows.by_ref().take(100).collect();
        E::insert_many(batch).exec(db).await?;
    }
    Ok(())
}

pub async fn import(state: &AppState, principal: &Principal, multipart: Multipart) -> ApiResult<site::Model> {
    crate::sites::check_may_create(principal)?;
    let path = receive(state, multipart).await?;
    // One archive opened at a time per process: `archive.json` is parsed in
    // memory (up to its limit), so concurrent imports would multiply it.
    let turn = tokio::time::timeout(IMPORT_QUEUE_WAIT, IMPORTS_OPENING.acquire()).await;
    let Ok(Ok(_opening)) = turn else {
        let _ = std::fs::remove_file(&path);
        return Err(ApiError::new(ErrorCode::ServiceUnavailable, "another import is being read; retry shortly")
            .with_header(
                actix_web::http::header::RETRY_AFTER,
                actix_web::http::header::HeaderValue::from_static("10"),
            ));
    };
    let opened = open(path.clone(), Limits::from_config(&state.config)).await;
    let _ = std::fs::remove_file(&path);
    let (archive, files) = opened?;

    // Media bytes first: content-addressed, so a failed import leaves only
    // bytes a later upload of the same file would reuse.
    let mut stored: HashMap<String, bytes::Bytes> = HashMap::new();
    for (name, bytes) in files {
        let Some((checksum, ext)) = name.strip_prefix("media/").and_then(|n| n.rsplit_once('.')) else { continue };
        let bytes = bytes::Bytes::from(bytes);
        state.storage.put(&format!("media/{checksum}/original.{ext}"), bytes.clone()).await.map_err(|e| {
            tracing::error!(error = %e, "storing imported media failed");
            ApiError::new(ErrorCode::StorageError, "the archive's media could not be stored")
        })?;
        stored.insert(name, bytes);
    }

    let now = state.clock.now();
    let mut ids = Ids::default();
    let site_id = Uuid::new_v4();
    let codes: HashMap<Uuid, String> = archive.locales.iter().map(|l| (l.id, l.code.clone())).collect();
    let here: HashMap<String, Uuid> =
        locale::Entity::find().all(&state.db).await?.into_iter().map(|l| (l.code, l.id)).collect();
    let locale_of = |old: Uuid| codes.get(&old).and_then(|code| here.get(code)).copied();

    // Images get their variants again (the archive carries originals only),
    // made before the transaction so no write lock is held while they render.
    let mut variants = Vec::new();
    for m in &archive.media {
        let (Some(name), Some(checksum)) = (media_entry(m), m.checksum.as_deref()) else { continue };
        let Some(bytes) = stored.get(&name).filter(|_| crate::media::is_raster_image(&m.mime_type)) else { continue };
        let rendered =
            crate::media::variants::render(state, ids.renew(m.id), checksum, bytes.clone(), &m.mime_type).await?;
        variants.extend(rendered.variants);
    }
    drop(stored);

    let txn = crate::db::begin_write(&state.db).await?;
    let slug = free_slug(&*txn, &archive.site.slug).await?;
    let site_row =
        site::Model { id: site_id, slug, created_at: now, updated_at: now, deleted_at: None, ..archive.site.clone() };
    let site_row = site::Entity::insert(site_row.into_active_model()).exec_with_returning(&*txn).await?;
    insert_all(
        &*txn,
        archive.settings.iter().map(|s| site_setting::Model { site_id, ..s.clone() }.into_active_model()).collect(),
    )
    .await?;
    insert_all(
        &*txn,
        archive
            .site_locales
            .iter()
            .filter_map(|l| {
                Some(
                    site_locale::Model { site_id, locale_id: locale_of(l.locale_id)?, ..l.clone() }.into_active_model(),
                )
            })
            .collect(),
    )
    .await?;
    crate::environments::seed(&*txn, now, site_id, site_row.base_url.clone()).await?;

    // Media records (new ids) before content, whose covers name them.
    for m in &archive.media {
        ids.renew(m.id);
    }
    let media: Vec<media_file::ActiveModel> = archive
        .media
        .iter()
        .map(|m| {
            let key = media_entry(m).and_then(|n| {
                let (checksum, ext) = n.strip_prefix("media/")?.rsplit_once('.')?;
                Some(format!("media/{checksum}/original.{ext}"))
            });
            media_file::Model { id: ids.renew(m.id), storage_key: key, folder_id: None, ..m.clone() }
                .into_active_model()
        })
        .collect();
    insert_all(&*txn, media).await?;
    insert_all(
        &*txn,
        archive
            .media
            .iter()
            .map(|m| media_site::ActiveModel { media_id: Set(ids.renew(m.id)), site_id: Set(site_id) })
            .collect(),
    )
    .await?;
    insert_all(&*txn, variants).await?;
    insert_all(
        &*txn,
        archive
            .media_metadata
            .iter()
            .filter_map(|m| {
                Some(
                    media_metadata::Model {
                        id: Uuid::new_v4(),
                        media_id: ids.get(m.media_id)?,
                        locale_id: locale_of(m.locale_id)?,
                        ..m.clone()
                    }
                    .into_active_model(),
                )
            })
            .collect(),
    )
    .await?;

    for t in &archive.terms {
        ids.renew(t.id);
    }
    insert_all(
        &*txn,
        archive
            .terms
            .iter()
            .map(|t| term::Model { id: ids.renew(t.id), site_id, ..t.clone() }.into_active_model())
            .collect(),
    )
    .await?;
    insert_all(
        &*txn,
        archive
            .term_localizations
            .iter()
            .filter_map(|l| {
                Some(
                    term_localization::Model {
                        id: Uuid::new_v4(),
                        term_id: ids.get(l.term_id)?,
                        locale_id: locale_of(l.locale_id)?,
                        ..l.clone()
                    }
                    .into_active_model(),
                )
            })
            .collect(),
    )
    .await?;

    for c in &archive.contents {
        ids.renew(c.id);
    }
    let contents: Vec<content::ActiveModel> = archive
        .contents
        .iter()
        .map(|c| {
            let mut fields = c.fields.clone();
            ids.remap_json(&mut fields);
            content::Model {
                id: ids.renew(c.id),
                cover_image_id: c.cover_image_id.and_then(|m| ids.get(m)),
                header_image_id: c.header_image_id.and_then(|m| ids.get(m)),
                fields,
                ..c.clone()
            }
            .into_active_model()
        })
        .collect();
    insert_all(&*txn, contents).await?;
    insert_all(
        &*txn,
        archive
            .content_sites
            .iter()
            .filter_map(|p| {
                Some(
                    content_site::Model { content_id: ids.get(p.content_id)?, site_id, ..p.clone() }
                        .into_active_model(),
                )
            })
            .collect(),
    )
    .await?;
    insert_all(
        &*txn,
        archive
            .content_localizations
            .iter()
            .filter_map(|l| {
                Some(
                    content_localization::Model {
                        id: Uuid::new_v4(),
                        content_id: ids.get(l.content_id)?,
                        locale_id: locale_of(l.locale_id)?,
                        ..l.clone()
                    }
                    .into_active_model(),
                )
            })
            .collect(),
    )
    .await?;
    insert_all(
        &*txn,
        archive
            .content_categories
            .iter()
            .filter_map(|c| {
                Some(
                    content_category::Model {
                        content_id: ids.get(c.content_id)?,
                        category_id: ids.get(c.category_id)?,
                        ..c.clone()
                    }
                    .into_active_model(),
                )
            })
            .collect(),
    )
    .await?;
    insert_all(
        &*txn,
        archive
            .content_tags
            .iter()
            .filter_map(|c| {
                Some(
                    content_tag::Model { content_id: ids.get(c.content_id)?, tag_id: ids.get(c.tag_id)? }
                        .into_active_model(),
                )
            })
            .collect(),
    )
    .await?;

    for m in &archive.navigation_menus {
        ids.renew(m.id);
    }
    for i in &archive.navigation_items {
        ids.renew(i.id);
    }
    insert_all(
        &*txn,
        archive
            .navigation_menus
            .iter()
            .map(|m| nav_menu::Model { id: ids.renew(m.id), site_id, ..m.clone() }.into_active_model())
            .collect(),
    )
    .await?;
    // Parents before children: items in the order of their depth.
    let mut items = archive.navigation_items.clone();
    let depth = |item: &nav_item::Model| {
        let mut depth = 0;
        let mut parent = item.parent_id;
        while let Some(p) = parent.filter(|_| depth < 64) {
            depth += 1;
            parent = archive.navigation_items.iter().find(|i| i.id == p).and_then(|i| i.parent_id);
        }
        depth
    };
    items.sort_by_key(depth);
    let items: Vec<nav_item::ActiveModel> = items
        .iter()
        .filter_map(|i| {
            Some(
                nav_item::Model {
                    id: ids.get(i.id)?,
                    menu_id: ids.get(i.menu_id)?,
                    site_id,
                    parent_id: i.parent_id.and_then(|p| ids.get(p)),
                    content_id: i.content_id.and_then(|c| ids.get(c)),
                    ..i.clone()
                }
                .into_active_model(),
            )
        })
        .collect();
    for item in items {
        nav_item::Entity::insert(item).exec(&*txn).await?;
    }

    if let Some(user) = principal.user() {
        let owner = site_member::ActiveModel {
            id: Set(Uuid::new_v4()),
            site_id: Set(site_id),
            idp_user_id: Set(user.idp_user_id.clone()),
            role: Set(Role::Owner.as_str().to_string()),
            created_at: Set(now),
            updated_at: Set(now),
        };
        site_member::Entity::insert(owner).exec(&*txn).await?;
    }
    let actor = principal.actor_id();
    let entry = AuditEntry {
        actor: &actor,
        action: Action::Create,
        entity_type: "site",
        entity_id: site_id.to_string(),
        site_id: Some(site_id),
    };
    let summary =
        json!({"imported_from": archive.site.slug, "contents": archive.contents.len(), "media": archive.media.len()});
    audit::record(&*txn, now, entry, &Value::Null, &summary).await?;
    txn.commit().await?;
    crate::db::refresh_statistics(&state.db).await;
    Ok(site_row)
}
