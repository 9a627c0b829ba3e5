//! Media embedded in a front end's content reads (`include=media`): each
//! media file the items reference, with what rendering it takes (URLs of the
//! file and its variants, size, type, alt text, placeholder), read for a whole
//! page in three queries (the files, their variants, their alt texts), never
//! one per item. Only a file on the site, or shared with every site, is
//! embedded: any other id stays a bare id. Below the content engine and the
//! media family both: the engine embeds, the family owns the files.

use std::collections::{BTreeMap, HashMap};

use plinth_entities::{media_file, media_metadata, media_site, media_variant};
use sea_orm::sea_query::{Expr, ExprTrait, Query};
use sea_orm::{ColumnTrait, Condition, EntityTrait, QueryFilter, Select};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiResult;
use crate::state::AppState;

/// A media file as a page renders it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EmbeddedMedia {
    pub id: Uuid,
    /// Detected from the content at upload.
    pub mime_type: String,
    /// Where the original is served (or lives, for external records).
    pub url: Option<String>,
    /// Width in pixels; null when unknown.
    pub width: Option<i32>,
    /// Height in pixels; null when unknown.
    pub height: Option<i32>,
    /// The alt text in the read's locale (or the first of its fallbacks that
    /// has one, then the site's default locale); null when none has it.
    pub alt_text: Option<String>,
    /// A ~25-byte placeholder to paint before the image loads (base64 ThumbHash).
    pub thumbhash: Option<String>,
    /// The image's average colour, `#rrggbb`.
    pub dominant_color: Option<String>,
    /// Resized copies, smallest first.
    pub variants: Vec<EmbeddedVariant>,
}

/// A resized copy of an embedded image.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EmbeddedVariant {
    /// `thumbnail`, `small`, `medium` or `large`.
    pub name: String,
    pub width: i32,
    pub height: i32,
    pub mime_type: String,
    pub url: String,
}

/// The files among `ids` that `site_id` may show, by id, with alt texts
/// from the first of `locales` (in order) that has one.
pub async fn embedded(
    state: &AppState,
    site_id: Uuid,
    ids: &[Uuid],
    locales: &[Uuid],
) -> ApiResult<BTreeMap<Uuid, EmbeddedMedia>> {
    if ids.is_empty() {
        return Ok(BTreeMap::new());
    }
    let files = files_query(site_id, ids).all(&state.db).await?;
    if files.is_empty() {
        return Ok(BTreeMap::new());
    }
    let shown: Vec<Uuid> = files.iter().map(|file| file.id).collect();
    let mut variants: HashMap<Uuid, Vec<media_variant::Model>> = HashMap::new();
    for variant in variants_query(&shown).all(&state.db).await? {
        variants.entry(variant.media_id).or_default().push(variant);
    }
    let mut texts: HashMap<Uuid, Vec<media_metadata::Model>> = HashMap::new();
    if !locales.is_empty() {
        for text in texts_query(&shown, locales).all(&state.db).await? {
            texts.entry(text.media_id).or_default().push(text);
        }
    }
    let base = state.config.public_url();
    let url = |key: &str| crate::storage::url_of(&base, key);
    Ok(files
        .into_iter()
        .map(|file| {
            let alt_text = alt_text(texts.get(&file.id), locales);
            let mut copies: Vec<EmbeddedVariant> = variants
                .remove(&file.id)
                .unwrap_or_default()
                .into_iter()
                .map(|v| EmbeddedVariant {
                    url: url(&v.storage_key),
                    name: v.variant_name,
                    width: v.width,
                    height: v.height,
                    mime_type: v.mime_type,
                })
                .collect();
            copies.sort_by_key(|v| v.width * v.height);
            let media = EmbeddedMedia {
                id: file.id,
                url: file.storage_key.as_deref().map(url).or(file.external_url),
                mime_type: file.mime_type,
                width: file.width,
                height: file.height,
                alt_text,
                thumbhash: file.thumbhash,
                dominant_color: file.dominant_color,
                variants: copies,
            };
            (media.id, media)
        })
        .collect())
}

/// The live files among `ids` that `site_id` shows: on the site, or shared
/// (primary key probes; public for the plan tests).
pub fn files_query(site_id: Uuid, ids: &[Uuid]) -> Select<media_file::Entity> {
    let on_site = Query::select()
        .column(media_site::Column::MediaId)
        .from(media_site::Entity)
        .and_where(Expr::col(media_site::Column::SiteId).eq(site_id))
        .and_where(Expr::col(media_site::Column::MediaId).is_in(ids.iter().copied()))
        .to_owned();
    let shown =
        Condition::any().add(media_file::Column::IsGlobal.eq(true)).add(media_file::Column::Id.in_subquery(on_site));
    media_file::Entity::find()
        .filter(media_file::Column::Id.is_in(ids.iter().copied()))
        .filter(media_file::Column::IsDeleted.eq(false))
        .filter(shown)
}

/// The variants of `files` (`ix_media_variants_media`).
pub fn variants_query(files: &[Uuid]) -> Select<media_variant::Entity> {
    media_variant::Entity::find().filter(media_variant::Column::MediaId.is_in(files.iter().copied()))
}

/// The texts of `files` in `locales` (`ux_media_metadata_locale`).
pub fn texts_query(files: &[Uuid], locales: &[Uuid]) -> Select<media_metadata::Entity> {
    media_metadata::Entity::find()
        .filter(media_metadata::Column::MediaId.is_in(files.iter().copied()))
        .filter(media_metadata::Column::LocaleId.is_in(locales.iter().copied()))
}

/// The alt text of the first of `locales` that has a non-empty one.
fn alt_text(texts: Option<&Vec<media_metadata::Model>>, locales: &[Uuid]) -> Option<String> {
    let texts = texts?;
    locales.iter().find_map(|locale| {
        texts
            .iter()
            .find(|text| text.locale_id == *locale)
            .and_then(|text| text.alt_text.clone())
            .filter(|alt| !alt.trim().is_empty())
    })
}
