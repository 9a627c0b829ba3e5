//! Writes an imported site batch by batch. The site row comes first, with an
//! import lease (`sites.import_lease_until`) that keeps it out of every lookup
//! and list; each batch is its own short write transaction (on SQLite one
//! writer at a time: other writers take their turn between batches) and
//! renews the lease; the last one adds the owner and clears it. A stopped
//! import leaves an invisible site that `unfinished` deletes.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use plinth_entities::{
    content, content_category, content_localization, content_site, content_tag, content_template, locale, media_file,
    media_metadata, media_site, media_variant, nav_item, nav_menu, site, site_locale, site_member, site_setting, term,
    term_localization,
};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DbErr, EntityTrait, IntoActiveModel, QueryFilter, QuerySelect,
};
use serde_json::{json, Value};
use uuid::Uuid;

use super::format::{Content, Header, Media, Menu, Taxonomy, Term};
use crate::audit::{self, Action, Actor, AuditEntry};
use crate::auth::Role;
use crate::content::parts;
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode};
use crate::state::AppState;

/// An import whose lease is not renewed for this long has stopped.
pub const LEASE: chrono::Duration = chrono::Duration::minutes(5);

/// Old ids (the archive's) to new ones, for everything the archive holds.
#[derive(Default)]
pub struct Ids(HashMap<Uuid, Uuid>);

impl Ids {
    /// Gives `old` its new id; false when it had one (the id is repeated).
    pub fn add(&mut self, old: Uuid) -> bool {
        self.0.insert(old, Uuid::new_v4()).is_none()
    }

    pub fn get(&self, old: Uuid) -> Option<Uuid> {
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

/// Rows waiting for the next transaction, in the order foreign keys need.
#[derive(Default)]
struct Batch {
    media: Vec<media_file::ActiveModel>,
    media_sites: Vec<media_site::ActiveModel>,
    variants: Vec<media_variant::ActiveModel>,
    metadata: Vec<media_metadata::ActiveModel>,
    terms: Vec<term::ActiveModel>,
    term_texts: Vec<term_localization::ActiveModel>,
    contents: Vec<content::ActiveModel>,
    placements: Vec<content_site::ActiveModel>,
    content_texts: Vec<content_localization::ActiveModel>,
    categories: Vec<content_category::ActiveModel>,
    tags: Vec<content_tag::ActiveModel>,
    menus: Vec<nav_menu::ActiveModel>,
    items: Vec<nav_item::ActiveModel>,
    templates: Vec<content_template::ActiveModel>,
    part_keys: Vec<crate::content::part_keys::KeyRow>,
    rows: usize,
}

async fn insert_all<E, A>(db: &impl ConnectionTrait, rows: Vec<A>) -> Result<(), DbErr>
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

/// The rows of one batch, parents before what names them.
async fn write_batch(txn: &impl ConnectionTrait, b: Batch) -> Result<(), DbErr> {
    insert_all(txn, b.media).await?;
    insert_all(txn, b.media_sites).await?;
    insert_all(txn, b.variants).await?;
    insert_all(txn, b.metadata).await?;
    insert_all(txn, b.terms).await?;
    insert_all(txn, b.term_texts).await?;
    insert_all(txn, b.contents).await?;
    insert_all(txn, b.part_keys).await?;
    insert_all(txn, b.placements).await?;
    insert_all(txn, b.content_texts).await?;
    insert_all(txn, b.categories).await?;
    insert_all(txn, b.tags).await?;
    insert_all(txn, b.menus).await?;
    // One by one: an item may name a parent of the same batch.
    for item in b.items {
        nav_item::Entity::insert(item).exec(txn).await?;
    }
    insert_all(txn, b.templates).await?;
    Ok(())
}

/// The slug, or `slug-2`, `-3`, … when taken (sites being imported included).
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

/// The storage key of an archive entry `media/<sha-256>.<ext>` (checked by the reader).
pub fn stored_key(entry: &str) -> Option<String> {
    let (checksum, ext) = entry.strip_prefix("media/")?.rsplit_once('.')?;
    Some(format!("media/{checksum}/original.{ext}"))
}

pub struct Writer<'a> {
    state: &'a AppState,
    ids: Ids,
    /// This deployment's locales by code.
    locales: HashMap<String, Uuid>,
    now: DateTime<Utc>,
    site: Option<site::Model>,
    imported_from: String,
    batch: Batch,
    contents: usize,
    media: usize,
}

impl<'a> Writer<'a> {
    pub async fn new(state: &'a AppState, ids: Ids) -> ApiResult<Writer<'a>> {
        let locales = locale::Entity::find().all(&state.db).await?.into_iter().map(|l| (l.code, l.id)).collect();
        Ok(Writer {
            state,
            ids,
            locales,
            now: state.clock.now(),
            site: None,
            imported_from: String::new(),
            batch: Batch::default(),
            contents: 0,
            media: 0,
        })
    }

    /// The site being written, once its header was.
    pub fn site_id(&self) -> Option<Uuid> {
        self.site.as_ref().map(|s| s.id)
    }

    fn site(&self) -> ApiResult<Uuid> {
        self.site_id().ok_or_else(|| ApiError::bad_request("not a Plinth site export: items before the site"))
    }

    fn locale(&self, code: &str) -> Option<Uuid> {
        self.locales.get(code).copied()
    }

    /// The site row (invisible, under its lease), settings, locales and environments.
    pub async fn header(&mut self, header: Header) -> ApiResult<()> {
        if self.site.is_some() {
            return Err(ApiError::bad_request("not a Plinth site export: a second site"));
        }
        let now = self.now;
        let site_id = Uuid::new_v4();
        let txn = crate::db::begin_unaudited(&self.state.db, "an import's batch: its last transaction audits the site")
            .await?;
        let slug = free_slug(&txn, &header.site.slug).await?;
        self.imported_from = header.site.slug.clone();
        let row = site::Model {
            id: site_id,
            slug,
            created_at: now,
            updated_at: now,
            deleted_at: None,
            import_lease_until: Some(now + LEASE),
            ..header.site
        };
        let row = site::Entity::insert(row.into_active_model()).exec_with_returning(&txn).await?;
        if let Some(overrides) = header.settings.filter(Value::is_object) {
            let settings =
                site_setting::ActiveModel { site_id: Set(site_id), overrides: Set(overrides), updated_at: Set(now) };
            site_setting::Entity::insert(settings).exec(&txn).await?;
        }
        let assigned: Vec<site_locale::ActiveModel> = header
            .locales
            .iter()
            .filter_map(|l| {
                Some(site_locale::ActiveModel {
                    site_id: Set(site_id),
                    locale_id: Set(self.locale(&l.code)?),
                    is_default: Set(l.is_default),
                    is_active: Set(l.is_active),
                    url_prefix: Set(l.url_prefix.clone()),
                    created_at: Set(l.created_at),
                })
            })
            .collect();
        insert_all(&txn, assigned).await?;
        crate::environments::seed(&txn, now, site_id, row.base_url.clone()).await?;
        txn.commit().await?;
        self.site = Some(row);
        Ok(())
    }

    /// A media record whose bytes (if any) are in storage already; `bytes`
    /// when it is an image whose variants are made again.
    pub async fn media(&mut self, item: Media, bytes: Option<bytes::Bytes>) -> ApiResult<()> {
        let site_id = self.site()?;
        let Some(id) = self.ids.get(item.file.id) else { return Ok(()) };
        if let (Some(bytes), Some(checksum)) = (bytes, item.file.checksum.as_deref()) {
            let rendered =
                crate::media::variants::render(self.state, id, checksum, bytes, &item.file.mime_type).await?;
            self.batch.rows += rendered.variants.len();
            self.batch.variants.extend(rendered.variants);
        }
        for text in &item.metadata {
            let Some(locale_id) = self.locale(&text.locale) else { continue };
            self.batch.metadata.push(media_metadata::ActiveModel {
                id: Set(Uuid::new_v4()),
                media_id: Set(id),
                locale_id: Set(locale_id),
                alt_text: Set(text.alt_text.clone()),
                caption: Set(text.caption.clone()),
                title: Set(text.title.clone()),
                created_at: Set(text.created_at),
                updated_at: Set(text.updated_at),
            });
        }
        let storage_key = item.entry.as_deref().and_then(stored_key);
        let row = media_file::Model { id, storage_key, folder_id: None, ..item.file };
        self.batch.media.push(row.into_active_model());
        self.batch.media_sites.push(media_site::ActiveModel { media_id: Set(id), site_id: Set(site_id) });
        self.batch.rows += 2 + item.metadata.len();
        self.media += 1;
        self.flush_when_full().await
    }

    pub async fn term(&mut self, taxonomy: Taxonomy, item: Term) -> ApiResult<()> {
        let site_id = self.site()?;
        let Some(id) = self.ids.get(item.id) else { return Ok(()) };
        for text in item.localizations {
            let Some(locale_id) = self.locale(&text.locale) else { continue };
            self.batch.term_texts.push(term_localization::ActiveModel {
                id: Set(Uuid::new_v4()),
                term_id: Set(id),
                locale_id: Set(locale_id),
                name: Set(text.name),
                description: Set(text.description),
                created_at: Set(text.created_at),
                updated_at: Set(text.updated_at),
            });
            self.batch.rows += 1;
        }
        self.batch.terms.push(term::ActiveModel {
            id: Set(id),
            site_id: Set(site_id),
            taxonomy: Set(taxonomy.as_str().into()),
            slug: Set(item.slug),
            name: Set(item.name),
            description: Set(item.description),
            created_at: Set(item.created_at),
            updated_at: Set(item.updated_at),
        });
        self.batch.rows += 1;
        self.flush_when_full().await
    }

    pub async fn content(&mut self, item: Content) -> ApiResult<()> {
        let site_id = self.site()?;
        let Some(id) = self.ids.get(item.content.id) else { return Ok(()) };
        let mut fields = item.content.fields.clone();
        self.ids.remap_json(&mut fields);
        // An item's parts (a page's sections, a legal document's consent
        // groups) get ids of their own here, a section's texts this site's
        // locales (by code; a text in a locale the site lacks is left out).
        let kind = item.content.kind;
        parts::renew_ids(kind, &mut fields, |text| text.locale.as_deref().and_then(|code| self.locale(code)));
        self.batch.part_keys.extend(parts::keys(kind, id, &fields));
        let row = content::Model {
            id,
            cover_image_id: item.content.cover_image_id.and_then(|m| self.ids.get(m)),
            header_image_id: item.content.header_image_id.and_then(|m| self.ids.get(m)),
            fields,
            ..item.content
        };
        self.batch.contents.push(row.into_active_model());
        self.batch.placements.push(content_site::ActiveModel {
            content_id: Set(id),
            site_id: Set(site_id),
            kind: Set(kind),
            slug: Set(item.placement.slug),
            route: Set(item.placement.route),
        });
        self.batch.rows += 2;
        for text in item.localizations {
            let Some(locale_id) = self.locale(&text.locale) else { continue };
            self.batch.content_texts.push(content_localization::ActiveModel {
                id: Set(Uuid::new_v4()),
                content_id: Set(id),
                locale_id: Set(locale_id),
                title: Set(text.title),
                subtitle: Set(text.subtitle),
                excerpt: Set(text.excerpt),
                body: Set(text.body),
                meta_title: Set(text.meta_title),
                meta_description: Set(text.meta_description),
                translation_status: Set(text.translation_status),
                created_at: Set(text.created_at),
                updated_at: Set(text.updated_at),
            });
            self.batch.rows += 1;
        }
        for c in item.categories {
            let Some(category_id) = self.ids.get(c.id) else { continue };
            self.batch.categories.push(content_category::ActiveModel {
                content_id: Set(id),
                category_id: Set(category_id),
                is_primary: Set(c.is_primary),
            });
            self.batch.rows += 1;
        }
        for t in item.tags {
            let Some(tag_id) = self.ids.get(t) else { continue };
            self.batch.tags.push(content_tag::ActiveModel { content_id: Set(id), tag_id: Set(tag_id) });
            self.batch.rows += 1;
        }
        self.contents += 1;
        self.flush_when_full().await
    }

    pub async fn menu(&mut self, item: Menu) -> ApiResult<()> {
        let site_id = self.site()?;
        let Some(menu_id) = self.ids.get(item.menu.id) else { return Ok(()) };
        self.batch.menus.push(nav_menu::Model { id: menu_id, site_id, ..item.menu }.into_active_model());
        // Parents before children: items in the order of their depth.
        let parents: HashMap<Uuid, Option<Uuid>> = item.items.iter().map(|i| (i.id, i.parent_id)).collect();
        let depth = |i: &plinth_entities::nav_item::Model| {
            let (mut depth, mut parent) = (0, i.parent_id);
            while let Some(p) = parent.filter(|_| depth < 64) {
                depth += 1;
                parent = parents.get(&p).copied().flatten();
            }
            depth
        };
        let mut items = item.items.clone();
        items.sort_by_key(depth);
        for i in items {
            let Some(id) = self.ids.get(i.id) else { continue };
            let row = nav_item::Model {
                id,
                menu_id,
                site_id,
                parent_id: i.parent_id.and_then(|p| self.ids.get(p)),
                content_id: i.content_id.and_then(|c| self.ids.get(c)),
                ..i
            };
            self.batch.items.push(row.into_active_model());
            self.batch.rows += 1;
        }
        self.batch.rows += 1;
        self.flush_when_full().await
    }

    pub async fn template(&mut self, template: content_template::Model) -> ApiResult<()> {
        let site_id = self.site()?;
        let Some(id) = self.ids.get(template.id) else { return Ok(()) };
        self.batch.templates.push(content_template::Model { id, site_id, ..template }.into_active_model());
        self.batch.rows += 1;
        self.flush_when_full().await
    }

    async fn flush_when_full(&mut self) -> ApiResult<()> {
        if self.batch.rows >= crate::db::rows_per_job_transaction(self.state.db.get_database_backend()) {
            self.flush().await?;
        }
        Ok(())
    }

    /// One transaction for the waiting rows, renewing the lease.
    async fn flush(&mut self) -> ApiResult<()> {
        let site_id = self.site()?;
        let batch = std::mem::take(&mut self.batch);
        let txn = crate::db::begin_unaudited(&self.state.db, "an import's batch: its last transaction audits the site")
            .await?;
        write_batch(&txn, batch).await.map_err(on_constraint(Constraint::Unique, || {
            ApiError::bad_request("not a Plinth site export: two of its items are one row (a slug or route repeated)")
        }))?;
        site::Entity::update_many()
            .col_expr(site::Column::ImportLeaseUntil, Expr::value(Some(self.state.clock.now() + LEASE)))
            .filter(site::Column::Id.eq(site_id))
            .exec(&txn)
            .await?;
        txn.commit().await?;
        Ok(())
    }

    /// The last batch, the owner (a user importing) and the audit entry; then
    /// the site is visible.
    pub async fn finish(mut self, owner: Option<String>, actor: &Actor) -> ApiResult<site::Model> {
        let site_id = self.site()?;
        self.flush().await?;
        let now = self.now;
        audit::write(&self.state.db, async |txn| {
            if let Some(idp_user_id) = owner {
                let member = site_member::ActiveModel {
                    id: Set(Uuid::new_v4()),
                    site_id: Set(site_id),
                    idp_user_id: Set(idp_user_id),
                    role: Set(Role::Owner),
                    created_at: Set(now),
                    updated_at: Set(now),
                };
                site_member::Entity::insert(member).exec(txn).await?;
            }
            let entry = AuditEntry {
                actor,
                action: Action::Create,
                entity_type: "site",
                entity_id: site_id.to_string(),
                site_id: Some(site_id),
            };
            let summary = json!({"imported_from": self.imported_from, "contents": self.contents, "media": self.media});
            audit::record(txn, now, entry, &Value::Null, &summary).await?;
            site::Entity::update_many()
                .col_expr(site::Column::ImportLeaseUntil, Expr::value(Option::<DateTime<Utc>>::None))
                .filter(site::Column::Id.eq(site_id))
                .exec(txn)
                .await?;
            Ok(())
        })
        .await?;
        let mut site = self.site.take().ok_or_else(|| ApiError::internal("the imported site is gone"))?;
        site.import_lease_until = None;
        Ok(site)
    }
}
