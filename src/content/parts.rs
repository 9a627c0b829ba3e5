//! Parts an item keeps in its `fields` with ids of their own, so that a client
//! can address one (`/pages/sections/{id}`, `/legal/groups/{id}`): a page's
//! sections and their texts, a legal document's consent groups and their
//! items. The parts are written and read with the item, on its one write path;
//! `content_part_keys` (id → item, part) finds an id's item again and is
//! rewritten with the item in the same transaction. A copied or imported item
//! gets new ids, so an id names one part of one item.

use sea_orm::ConnectionTrait;
use serde_json::Value;
use uuid::Uuid;

use super::part_keys::KeyRow;
use super::{legal_consent, page_sections, ContentKind};
use crate::error::ApiResult;

pub use super::part_keys::{find_key, replace_keys};

/// The key rows of an item's parts (none for a kind without parts).
pub fn keys(kind: ContentKind, content_id: Uuid, fields: &Value) -> Vec<KeyRow> {
    match kind {
        ContentKind::Page => page_sections::keys(content_id, fields),
        ContentKind::Legal => legal_consent::keys(content_id, fields),
        _ => Vec::new(),
    }
}

/// New ids for every part of an item's `fields` (a copy, an import); a
/// section's texts kept only where `locale_of` knows their locale.
pub fn renew_ids(
    kind: ContentKind,
    fields: &mut Value,
    locale_of: impl Fn(&page_sections::SectionLocalization) -> Option<Uuid>,
) {
    match kind {
        ContentKind::Page => page_sections::renew_ids(fields, locale_of),
        ContentKind::Legal => legal_consent::renew_ids(fields),
        _ => {}
    }
}

/// In an item's write, before its row is written with `fields`: when its
/// parts were given, checks what needs the database (a section's locales
/// against `site_ids`, writing each code in) and answers the key rows
/// [`replace_keys`] writes after the row; `None` when the write leaves the
/// parts alone.
pub async fn prepare<C: ConnectionTrait>(
    db: &C,
    kind: ContentKind,
    parts_given: bool,
    site_ids: &[Uuid],
    content_id: Uuid,
    fields: &mut Value,
) -> ApiResult<Option<Vec<KeyRow>>> {
    if !parts_given {
        return Ok(None);
    }
    if kind == ContentKind::Page {
        page_sections::check_stored_locales(db, site_ids, fields).await?;
    }
    Ok(Some(keys(kind, content_id, fields)))
}
