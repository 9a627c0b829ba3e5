//! How a front end asks for the items of a page: in one language
//! (`locale`, `fallback`: [`super::localized`]) and with the media they
//! reference embedded (`include=media`: [`crate::embedded_media`]). Each is
//! read for a whole page in a fixed number of queries, never one per item;
//! without them, an item answers exactly as the spec says.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use uuid::Uuid;

use super::localized::LocaleChain;
use super::model::{ContentListItem, ContentResponse};
use super::queries::{IncludeQuery, LocaleQuery};
use crate::embedded_media::{embedded, EmbeddedMedia};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::state::{AppState, SiteState};

/// What `include` may name.
const INCLUDES: [&str; 1] = ["media"];

/// A front-end read's rendering, resolved against its site.
pub struct Rendering {
    site_id: Uuid,
    chain: Option<LocaleChain>,
    /// With `include=media`: the locales whose alt text an embedded file
    /// takes, first to last.
    media_locales: Option<Vec<Uuid>>,
}

impl Rendering {
    pub fn of_request(site: &SiteState, locale: &LocaleQuery, include: &IncludeQuery) -> ApiResult<Self> {
        let chain = LocaleChain::of_request(site, locale.locale.as_deref(), locale.fallback.as_deref())?;
        let mut with_media = false;
        for named in include.include.iter().flat_map(|list| list.split(',')).map(str::trim).filter(|n| !n.is_empty()) {
            if !INCLUDES.contains(&named) {
                let detail = format!("`{named}` cannot be embedded; `include` takes {}", INCLUDES.join(", "));
                return Err(ApiError::validation(vec![FieldError::new(
                    "include",
                    ErrorCode::ValidationInvalidFormat,
                    detail,
                )]));
            }
            with_media = true;
        }
        let media_locales = with_media.then(|| {
            let mut locales = chain.as_ref().map(LocaleChain::locale_ids).unwrap_or_default();
            locales.extend(site.default_locale().map(|l| l.locale_id).filter(|id| !locales.contains(id)));
            locales
        });
        Ok(Self { site_id: site.site.id, chain, media_locales })
    }

    /// What tells cached answers apart: `de>en+media`.
    pub fn key(&self) -> String {
        let locales = self.chain.as_ref().map(LocaleChain::key).unwrap_or_default();
        let media = if self.media_locales.is_some() { "+media" } else { "" };
        format!("{locales}{media}")
    }

    /// Renders a page of list items.
    pub async fn list(&self, state: &AppState, items: &mut [ContentListItem]) -> ApiResult<()> {
        if let Some(chain) = &self.chain {
            chain.localize_list(&*state.db, items).await?;
        }
        if let Some(locales) = &self.media_locales {
            let referenced: Vec<Vec<Uuid>> =
                items.iter().map(|item| media_of(item.cover_image_id, None, &item.kind_fields)).collect();
            let found = self.embedded(state, &referenced, locales).await?;
            for (item, ids) in items.iter_mut().zip(referenced) {
                item.media = Some(taken(&found, &ids));
            }
        }
        Ok(())
    }

    /// Renders one item.
    pub async fn item(&self, state: &AppState, item: &mut ContentResponse) -> ApiResult<()> {
        if let Some(chain) = &self.chain {
            chain.localize_item(&*state.db, item).await?;
        }
        if let Some(locales) = &self.media_locales {
            let ids = media_of(item.cover_image_id, item.header_image_id, &item.kind_fields);
            let found = self.embedded(state, std::slice::from_ref(&ids), locales).await?;
            item.media = Some(taken(&found, &ids));
        }
        Ok(())
    }

    async fn embedded(
        &self,
        state: &AppState,
        referenced: &[Vec<Uuid>],
        locales: &[Uuid],
    ) -> ApiResult<BTreeMap<Uuid, EmbeddedMedia>> {
        let mut all: Vec<Uuid> = referenced.iter().flatten().copied().collect();
        all.sort_unstable();
        all.dedup();
        embedded(state, self.site_id, &all, locales).await
    }
}

/// The media files an item references: its cover and header, a project's
/// `media_ids`, and its page sections' images.
fn media_of(cover: Option<Uuid>, header: Option<Uuid>, kind_fields: &Map<String, Value>) -> Vec<Uuid> {
    let uuid = |value: &Value| value.as_str().and_then(|s| Uuid::parse_str(s).ok());
    let listed = kind_fields.get("media_ids").and_then(Value::as_array).into_iter().flatten().filter_map(uuid);
    let sections = kind_fields
        .get("sections")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|section| section.get("cover_image_id").and_then(uuid));
    let mut ids: Vec<Uuid> = cover.into_iter().chain(header).chain(listed).chain(sections).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// The embedded files among `ids` (an id of a file not shown is left out).
fn taken(found: &BTreeMap<Uuid, EmbeddedMedia>, ids: &[Uuid]) -> BTreeMap<Uuid, EmbeddedMedia> {
    ids.iter().filter_map(|id| found.get(id).map(|media| (*id, media.clone()))).collect()
}
