//! The query parameters of content lists and reads, and the preview link.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::model::CvEntryType;
use super::ContentStatus;

#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PublishedQuery {
    #[param(schema_with = crate::pagination::page_number_schema)]
    pub page: Option<u64>,
    /// Items per page (default 10, at most 100). Also accepted as `page_size`.
    #[serde(alias = "page_size")]
    #[param(schema_with = crate::pagination::per_page_schema)]
    pub per_page: Option<u32>,
    /// Keep only items with a localization in this locale: its UUID, or the
    /// code of one of the site's locales (`de`).
    #[param(pattern = "<locale>")]
    pub locale_id: Option<String>,
}

/// A front end's read in one language (`content::localized`).
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LocaleQuery {
    /// Answer each item in this locale (a code of one of the site's locales,
    /// `de`, or its UUID): its localized title, excerpt and body (and on one
    /// item its subtitle and meta fields) merged in, and `locale` naming the
    /// locale that served it. Without it, items answer in their own text.
    #[param(pattern = "<locale>")]
    pub locale: Option<String>,
    /// With `locale`: where a field that locale leaves empty comes from,
    /// codes in order (`en,fr`); the site's default locale when omitted. The
    /// item's own text comes last.
    #[param(pattern = "<locales>")]
    pub fallback: Option<String>,
}

/// What a front end's read embeds (`content::rendering`).
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct IncludeQuery {
    /// `media`: each item answers `media`, the media files it references
    /// (cover, header, a project's media, a page's section images) by id,
    /// with their URLs, variants, size, alt text and placeholder.
    #[param(pattern = "<includes>")]
    pub include: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// From 1 (default 1).
    #[param(schema_with = crate::pagination::page_number_schema)]
    pub page: Option<u64>,
    /// Default 10, at most 100. Also accepted as `page_size`.
    #[serde(alias = "page_size")]
    #[param(schema_with = crate::pagination::content_per_page_schema)]
    pub per_page: Option<u32>,
    /// work, education, volunteer, certification or project (documented on the CV list only: every other kind's
    /// list refuses it with 400).
    pub entry_type: Option<CvEntryType>,
    /// Only items in this status.
    pub status: Option<ContentStatus>,
    /// The order: `created_at`, `updated_at`, `published_at` or `title`, each
    /// with a leading `-` for descending (default `-created_at`). Unknown: 422.
    #[param(pattern = r"^-?(created_at|updated_at|published_at|title)$")]
    pub sort: Option<String>,
    /// Only items whose title or slug has each of these words, or a word
    /// starting with it, in any letter case (`hel wor` finds "Hello, World";
    /// punctuation separates words). Matched on a text index.
    #[param(max_length = 200)]
    pub search: Option<String>,
}

/// A front end's read of one item (by id or slug).
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ItemQuery {
    /// `published`: answer 404 unless the item is published, so a site's front
    /// end, holding a Read key that sees drafts too, shows only what is live.
    /// Without it the item is answered in any status, as the spec says.
    #[param(inline)]
    pub status: Option<OnlyStatus>,
}

/// The one status a front end asks an item to be in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum OnlyStatus {
    Published,
}

impl ItemQuery {
    /// 404 when the query asks for a status the item is not in, worded as
    /// for an item that does not exist (`asked_by`: the id or slug asked
    /// for), so a draft's slug tells a visitor nothing.
    pub fn admits(
        &self,
        item: &super::model::ContentResponse,
        kind: super::ContentKind,
        asked_by: impl std::fmt::Display,
    ) -> crate::error::ApiResult<()> {
        match self.status {
            Some(OnlyStatus::Published) if item.status != ContentStatus::Published => {
                Err(crate::error::ApiError::not_found(kind.as_str(), asked_by))
            }
            _ => Ok(()),
        }
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LimitQuery {
    /// How many items at most: featured default 10, up to 100; similar default
    /// 3, up to 10. Larger values are clamped, 0 is read as 1.
    #[param(minimum = 0)]
    limit: Option<i64>,
}

impl LimitQuery {
    /// The limit asked for, `default` without one; a negative one is 400.
    /// (Read as the document's `int64`: a number past it is refused when the
    /// query is parsed, as the document says.)
    pub fn limit_or(&self, default: u64) -> crate::error::ApiResult<u64> {
        match self.limit {
            None => Ok(default),
            Some(limit) => u64::try_from(limit)
                .map_err(|_| crate::error::ApiError::bad_request(format!("limit must be 0 or more, not {limit}"))),
        }
    }
}

/// Where an item can be previewed.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PreviewLink {
    /// The environment previewed on.
    pub environment_id: Uuid,
    /// Its name.
    pub environment: String,
    /// The environment's `base_url` followed by the item's path there (a
    /// page's route, `/blog/{slug}`, `/projects/{slug}`, …).
    pub url: String,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PreviewQuery {
    /// The environment to preview on; the site's default when omitted.
    pub environment_id: Option<Uuid>,
}
