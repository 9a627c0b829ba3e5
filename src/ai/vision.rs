//! The image actions (`alt_text`, `auto_tag`) on the vision model: the image
//! is an `image_url` of the request or a media file of the site (its largest
//! variant, else the original, as served under `/api/v1/files/…`). With
//! `save`, alt text goes to the file's metadata through the media metadata
//! service and tags to the file through the media update, each audited there.

use plinth_entities::{media_file, media_metadata};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

use super::actions::{self, Language};
use super::model::{AltTextResponse, AutoTagResponse, VisionRequest};
use super::provider;
use super::service::{optional_language, site_language};
use super::settings::{self, AiConfig};
use crate::audit::Actor;
use crate::auth::SiteGrant;
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::media::metadata::service as metadata;
use crate::media::records::{self, Media};
use crate::media::{CreateMediaMetadata, UpdateMedia, UpdateMediaMetadata};
use crate::state::AppState;

fn invalid(field: &str, message: &str) -> ApiError {
    ApiError::validation(vec![FieldError::new(field, ErrorCode::ValidationInvalidFormat, message)])
}

/// The image of a vision request, with the site's AI settings: an
/// `image_url`, or a media file of the site named by `media_id`.
pub struct Image {
    config: AiConfig,
    save: bool,
    source: Source,
}

enum Source {
    Url(String),
    Media(Box<Media>),
}

impl Image {
    /// The sites of the media file the request saves to: the handler checks
    /// the caller's capability on them before the action runs.
    pub fn saving_to(&self) -> Option<&[Uuid]> {
        match &self.source {
            Source::Media(media) if self.save => Some(&media.site_ids),
            _ => None,
        }
    }

    /// The URL the model reads, and the media file it is.
    async fn into_url(self, state: &AppState) -> ApiResult<(AiConfig, String, Option<Media>)> {
        match self.source {
            Source::Url(url) => Ok((self.config, url, None)),
            Source::Media(media) => {
                let shown = records::response(state, media.file.clone()).await?;
                let url = shown.variants.last().map(|v| v.public_url.clone()).or(shown.public_url);
                let url = url.ok_or_else(|| invalid("media_id", "the file has no URL"))?;
                Ok((self.config, url, Some(*media)))
            }
        }
    }
}

/// The site's AI settings (AI_NOT_CONFIGURED without), then the image to
/// describe: the media file named by `media_id` (an image of the site), else
/// the `image_url`.
pub async fn image(state: &AppState, site_id: Uuid, body: &VisionRequest) -> ApiResult<Image> {
    let config = settings::config(state, site_id).await?;
    if let Some(media_id) = body.media_id {
        let file = media_file::Entity::find_by_id(media_id)
            .filter(media_file::Column::IsDeleted.eq(false))
            .one(&state.db)
            .await?;
        let site_ids = records::sites_of(&state.db, &[media_id]).await?.remove(&media_id).unwrap_or_default();
        let Some(file) = file.filter(|_| site_ids.contains(&site_id)) else {
            return Err(ApiError::not_found("media", media_id));
        };
        if !file.mime_type.starts_with("image/") {
            return Err(invalid("media_id", "the file is not an image"));
        }
        return Ok(Image { config, save: body.save, source: Source::Media(Box::new(Media { file, site_ids })) });
    }
    let Some(url) = body.image_url.as_deref().map(str::trim).filter(|u| !u.is_empty()) else {
        return Err(ApiError::new(ErrorCode::AiVisionMissingImage, "send an image_url or a media_id"));
    };
    let is_web = url::Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.has_host());
    if !is_web && !url.starts_with("data:image/") {
        return Err(invalid("image_url", "must be an http(s) URL or a data:image/… URL"));
    }
    if body.save {
        return Err(invalid("save", "saving needs a media_id"));
    }
    Ok(Image { config, save: false, source: Source::Url(url.to_string()) })
}

/// The locale the answer is written in (and stored under): the request's,
/// else the site's default.
async fn language_of(state: &AppState, site_id: Uuid, body: &VisionRequest) -> ApiResult<Option<Language>> {
    match optional_language(state, "locale", body.locale.as_deref()).await? {
        Some(found) => Ok(Some(found)),
        None => site_language(state, site_id).await,
    }
}

/// Alt text for `image` (of the grant's site, the caller's read capability on
/// a media file it saves to checked), saved as the caller when asked.
pub async fn alt_text(
    state: &AppState,
    site: &SiteGrant,
    image: Image,
    body: VisionRequest,
) -> ApiResult<AltTextResponse> {
    let site_id = site.site_id();
    let (config, url, media) = image.into_url(state).await?;
    let language = language_of(state, site_id, &body).await?;
    if body.save && language.is_none() {
        return Err(invalid("locale", "the site has no default locale: name the locale to save in"));
    }
    let prompt = actions::alt_text(&url, language.as_ref());
    let answer = provider::complete(state, &config, config.vision_model(), &prompt).await?;
    let alt_text = actions::read_alt_text(&answer)?;
    let saved_metadata_id = match (body.save, media, language) {
        (true, Some(media), Some(language)) => {
            Some(save_alt_text(state, site.actor(), &media, language.id, &alt_text).await?)
        }
        _ => None,
    };
    Ok(AltTextResponse { alt_text, saved_metadata_id })
}

/// Updates the file's metadata in the locale, or creates it.
async fn save_alt_text(state: &AppState, actor: &Actor, media: &Media, locale_id: Uuid, text: &str) -> ApiResult<Uuid> {
    let current = media_metadata::Entity::find()
        .filter(media_metadata::Column::MediaId.eq(media.file.id))
        .filter(media_metadata::Column::LocaleId.eq(locale_id))
        .one(&state.db)
        .await?;
    let saved = match current {
        Some(current) => {
            let changes = UpdateMediaMetadata { alt_text: Some(text.to_string()), ..Default::default() };
            metadata::update(state, actor, media, current, changes).await?
        }
        None => {
            let input = CreateMediaMetadata {
                locale_id: locale_id.into(),
                alt_text: Some(text.to_string()),
                caption: None,
                title: None,
            };
            metadata::create(state, actor, media, input).await?
        }
    };
    Ok(saved.id)
}

/// Tags for `image` (of the grant's site, the caller's content capability on a
/// media file it saves to checked), added to the file as the caller when asked.
pub async fn auto_tag(
    state: &AppState,
    site: &SiteGrant,
    image: Image,
    body: VisionRequest,
) -> ApiResult<AutoTagResponse> {
    let site_id = site.site_id();
    let (config, url, media) = image.into_url(state).await?;
    let language = language_of(state, site_id, &body).await?;
    let prompt = actions::auto_tag(&url, language.as_ref());
    let answer = provider::complete(state, &config, config.vision_model(), &prompt).await?;
    let tags = actions::read_tags(&answer)?;
    let saved_tags = match (body.save, media) {
        (true, Some(media)) => Some(save_tags(state, site.actor(), media, &tags).await?),
        _ => None,
    };
    Ok(AutoTagResponse { tags, saved_tags })
}

/// Adds the tags to the file's own (at most 20 in all) through the media update.
async fn save_tags(state: &AppState, actor: &Actor, media: Media, tags: &[String]) -> ApiResult<Vec<String>> {
    let mut merged: Vec<String> = serde_json::from_value(media.file.tags.clone()).unwrap_or_default();
    actions::merge_tags(&mut merged, tags.iter().cloned());
    let update = UpdateMedia { tags: Some(merged), ..Default::default() };
    let changes = crate::media::service::changes(state, &media, &update).await?;
    let updated = crate::media::service::save_update(state, actor, media, changes.row, None).await?;
    Ok(updated.tags)
}
