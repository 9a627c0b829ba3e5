//! `translate`: a text, or chosen fields of a content item of the site,
//! optionally stored as the item's localization through the content engine's
//! own localization path (so its audit entry and `<kind>.updated` event are
//! written as for any edit).

use std::collections::BTreeMap;

use plinth_entities::values::TranslationStatus;
use plinth_entities::{content, content_localization, content_site, site_locale};
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use uuid::Uuid;

use super::actions::{self, Language};
use super::model::{TranslateField, TranslateRequest, TranslateResponse};
use super::service::{language, within_limit};
use super::{provider, settings};
use crate::content::access::ItemAccess;
use crate::content::localizations;
use crate::content::model::{LocalizationInput, UpdateLocalization};
use crate::content::ContentKind;
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::state::AppState;

const DEFAULT_FIELDS: [TranslateField; 3] = [TranslateField::Title, TranslateField::Excerpt, TranslateField::Body];

fn invalid(detail: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::AiTranslateInvalid, detail)
}

async fn known_locale(state: &AppState, field: &str, code: &str) -> ApiResult<Language> {
    language(state, code).await?.ok_or_else(|| invalid(format!("{field} '{code}' is not a locale of the global list")))
}

/// A live content item that appears on `site_id`.
async fn item_on_site(state: &AppState, site_id: Uuid, id: Uuid) -> ApiResult<content::Model> {
    let item = content::Entity::find_by_id(id).filter(content::Column::IsDeleted.eq(false)).one(&state.db).await?;
    let on_site = content_site::Entity::find_by_id((id, site_id)).one(&state.db).await?.is_some();
    match item {
        Some(item) if on_site => Ok(item),
        _ => Err(ApiError::not_found("content", id)),
    }
}

/// The non-empty source texts of `fields`: the item's localization in
/// `source` when it has one (meta fields included), else the item's own title,
/// excerpt and body.
async fn source_texts(
    state: &AppState,
    item: &content::Model,
    source: Option<&Language>,
    fields: &[TranslateField],
) -> ApiResult<BTreeMap<String, String>> {
    let localized = match source {
        Some(lang) => {
            content_localization::Entity::find()
                .filter(content_localization::Column::ContentId.eq(item.id))
                .filter(content_localization::Column::LocaleId.eq(lang.id))
                .one(&state.db)
                .await?
        }
        None => None,
    };
    let mut texts = BTreeMap::new();
    for field in fields {
        let text = match (&localized, field) {
            (Some(l), TranslateField::Title) => l.title.as_str(),
            (Some(l), TranslateField::Excerpt) => l.excerpt.as_str(),
            (Some(l), TranslateField::Body) => l.body.as_str(),
            (Some(l), TranslateField::MetaTitle) => l.meta_title.as_str(),
            (Some(l), TranslateField::MetaDescription) => l.meta_description.as_str(),
            (None, TranslateField::Title) => item.title.as_str(),
            (None, TranslateField::Excerpt) => item.excerpt.as_str(),
            (None, TranslateField::Body) => item.body.as_str(),
            (None, TranslateField::MetaTitle | TranslateField::MetaDescription) => "",
        };
        if !text.trim().is_empty() {
            texts.insert(field.as_str().to_string(), text.to_string());
        }
    }
    Ok(texts)
}

/// Where a saved translation goes: checked before the provider is paid.
struct SaveTarget {
    kind: ContentKind,
    existing: Option<Uuid>,
}

async fn save_target(
    state: &AppState,
    item: &content::Model,
    target: &Language,
    texts: &BTreeMap<String, String>,
) -> ApiResult<SaveTarget> {
    let kind = item.kind;
    let sites: Vec<Uuid> = content_site::Entity::find()
        .filter(content_site::Column::ContentId.eq(item.id))
        .all(&state.db)
        .await?
        .into_iter()
        .map(|s| s.site_id)
        .collect();
    let assigned = site_locale::Entity::find()
        .filter(site_locale::Column::LocaleId.eq(target.id))
        .filter(site_locale::Column::SiteId.is_in(sites))
        .count(&state.db)
        .await?;
    if assigned == 0 {
        return Err(ApiError::validation(vec![FieldError::new(
            "target_locale",
            ErrorCode::ValidationInvalidFormat,
            "to save, the locale must be assigned to one of the item's sites",
        )]));
    }
    let existing = content_localization::Entity::find()
        .filter(content_localization::Column::ContentId.eq(item.id))
        .filter(content_localization::Column::LocaleId.eq(target.id))
        .one(&state.db)
        .await?
        .map(|l| l.id);
    if existing.is_none() && !texts.contains_key("title") {
        return Err(ApiError::validation(vec![FieldError::new(
            "fields",
            ErrorCode::ValidationRequiredField,
            "a new localization needs a title: translate the title too",
        )]));
    }
    Ok(SaveTarget { kind, existing })
}

/// `may_save`: the handler's check that the caller may edit the item of a
/// given kind and id (`content::access::editable`), asked only when the
/// translation is saved, after the provider answered.
pub async fn translate(
    state: &AppState,
    site_id: Uuid,
    body: TranslateRequest,
    may_save: impl AsyncFnOnce(ContentKind, Uuid) -> ApiResult<ItemAccess>,
) -> ApiResult<TranslateResponse> {
    let config = settings::config(state, site_id).await?;
    let target_code = body.target_locale.trim();
    if target_code.is_empty() {
        return Err(invalid("target_locale is required"));
    }
    let target = known_locale(state, "target_locale", target_code).await?;
    let source = match body.source_locale.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        Some(code) => Some(known_locale(state, "source_locale", code).await?),
        None => None,
    };
    if source.as_ref().is_some_and(|s| s.id == target.id) {
        return Err(invalid("source_locale and target_locale are the same"));
    }
    let (texts, item) = match (body.text.as_deref(), body.content_id) {
        (Some(_), Some(_)) => return Err(invalid("send text or content_id, not both")),
        (None, None) => return Err(invalid("send a text or a content_id to translate")),
        (Some(text), None) => {
            if text.trim().is_empty() {
                return Err(invalid("the text to translate is empty"));
            }
            within_limit("text", text)?;
            (BTreeMap::from([("text".to_string(), text.to_string())]), None)
        }
        (None, Some(id)) => {
            let item = item_on_site(state, site_id, id).await?;
            let mut fields = body.fields.clone().unwrap_or_else(|| DEFAULT_FIELDS.to_vec());
            fields.sort();
            fields.dedup();
            let texts = source_texts(state, &item, source.as_ref(), &fields).await?;
            if texts.is_empty() {
                return Err(invalid("the item's chosen fields are empty: nothing to translate"));
            }
            if texts.values().map(|t| t.chars().count()).sum::<usize>() > actions::MAX_INPUT_CHARS {
                return Err(ApiError::validation(vec![FieldError::new(
                    "fields",
                    ErrorCode::ValidationOutOfRange,
                    format!("the chosen fields are longer than {} characters together", actions::MAX_INPUT_CHARS),
                )]));
            }
            (texts, Some(item))
        }
    };
    let save = match (&item, body.save) {
        (Some(item), true) => Some((item, save_target(state, item, &target, &texts).await?)),
        (None, true) => return Err(invalid("save needs a content_id")),
        (_, false) => None,
    };
    let prompt = actions::translate(&texts, source.as_ref(), &target);
    let answer = provider::complete(state, &config, &config.model, &prompt).await?;
    let translations = actions::read_translations(&texts, &answer)?;
    let saved_localization_id = match save {
        Some((item, to)) => {
            let editable = may_save(to.kind, item.id).await?;
            Some(store(state, editable, &target, to, &translations).await?)
        }
        None => None,
    };
    Ok(TranslateResponse { target_locale: target.code, translations, saved_localization_id })
}

/// Creates the item's localization in `target`, or updates the one it has.
async fn store(
    state: &AppState,
    item: ItemAccess,
    target: &Language,
    to: SaveTarget,
    translations: &BTreeMap<String, String>,
) -> ApiResult<Uuid> {
    let get = |field: TranslateField| translations.get(field.as_str()).cloned();
    let saved = match to.existing {
        Some(id) => {
            let changes = UpdateLocalization {
                title: get(TranslateField::Title),
                excerpt: get(TranslateField::Excerpt),
                body: get(TranslateField::Body),
                meta_title: get(TranslateField::MetaTitle),
                meta_description: get(TranslateField::MetaDescription),
                // A machine translation waits for a person to check it.
                translation_status: Some(TranslationStatus::Review),
                ..Default::default()
            };
            let current = localizations::find(state, to.kind, id).await?;
            localizations::update(state, item, current, changes).await?
        }
        None => {
            let input = LocalizationInput {
                locale_id: target.id.into(),
                title: get(TranslateField::Title).unwrap_or_default(),
                excerpt: get(TranslateField::Excerpt).unwrap_or_default(),
                body: get(TranslateField::Body).unwrap_or_default(),
                meta_title: get(TranslateField::MetaTitle).unwrap_or_default(),
                meta_description: get(TranslateField::MetaDescription).unwrap_or_default(),
                subtitle: String::new(),
                translation_status: TranslationStatus::Review,
            };
            localizations::create(state, item, input).await?
        }
    };
    Ok(saved.id)
}
