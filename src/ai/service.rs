//! The text actions (`suggest`, `section_content`) and what every action
//! shares: input bounds and the languages prompts name.

use plinth_entities::locale;
use sea_orm::EntityTrait;
use uuid::Uuid;

use super::actions::{self, Language, MAX_INPUT_CHARS, MIN_SECTION_CONTEXT_CHARS, MIN_SUGGEST_CHARS};
use super::model::{SectionContentRequest, SectionContentResponse, SuggestRequest, SuggestResponse};
use super::{provider, settings};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::state::AppState;

/// 422 past [`MAX_INPUT_CHARS`].
pub fn within_limit(field: &str, text: &str) -> ApiResult<()> {
    if text.chars().count() > MAX_INPUT_CHARS {
        return Err(ApiError::validation(vec![FieldError::new(
            field,
            ErrorCode::ValidationOutOfRange,
            format!("must be at most {MAX_INPUT_CHARS} characters"),
        )]));
    }
    Ok(())
}

/// A locale of the global list by its code (any letter case).
pub async fn language(state: &AppState, code: &str) -> ApiResult<Option<Language>> {
    let code = code.trim();
    let all = locale::Entity::find().all(&state.db).await?;
    Ok(all.into_iter().find(|l| l.code.eq_ignore_ascii_case(code)).map(|l| Language {
        id: l.id,
        code: l.code,
        name: l.name,
    }))
}

/// The language `field` names, if any; an unknown code is 422.
pub async fn optional_language(state: &AppState, field: &str, raw: Option<&str>) -> ApiResult<Option<Language>> {
    let Some(code) = raw.map(str::trim).filter(|c| !c.is_empty()) else { return Ok(None) };
    match language(state, code).await? {
        Some(found) => Ok(Some(found)),
        None => Err(ApiError::validation(vec![FieldError::new(
            field,
            ErrorCode::ValidationInvalidFormat,
            format!("'{code}' is not a locale of the global list"),
        )])),
    }
}

/// The site's default locale, if it has one.
pub async fn site_language(state: &AppState, site_id: Uuid) -> ApiResult<Option<Language>> {
    let site = state.site_state(site_id).await?;
    Ok(site.locales.iter().find(|l| l.is_default).map(|l| Language {
        id: l.locale_id,
        code: l.code.clone(),
        name: l.name.clone(),
    }))
}

pub async fn suggest(state: &AppState, site_id: Uuid, body: SuggestRequest) -> ApiResult<SuggestResponse> {
    let config = settings::config(state, site_id).await?;
    let content = body.content.trim();
    within_limit("content", content)?;
    if content.chars().count() < MIN_SUGGEST_CHARS {
        return Err(ApiError::new(
            ErrorCode::AiContextInsufficient,
            format!("content needs at least {MIN_SUGGEST_CHARS} characters to suggest from"),
        ));
    }
    let language = optional_language(state, "locale", body.locale.as_deref()).await?;
    let prompt = actions::suggest(body.field, content, language.as_ref());
    let answer = provider::complete(state, &config, &config.model, &prompt).await?;
    Ok(SuggestResponse { field: body.field, suggestions: actions::read_suggestions(body.field, &answer)? })
}

pub async fn section_content(
    state: &AppState,
    site_id: Uuid,
    body: SectionContentRequest,
) -> ApiResult<SectionContentResponse> {
    let config = settings::config(state, site_id).await?;
    let insufficient = |detail: String| ApiError::new(ErrorCode::AiSectionContextInsufficient, detail);
    let Some(raw_type) = body.section_type.as_deref().map(str::trim).filter(|t| !t.is_empty()) else {
        return Err(insufficient("section_content needs a section_type and a section_context".into()));
    };
    let Some((section_type, shape)) = actions::section_shape(raw_type) else {
        let known: Vec<&str> = actions::SECTION_TYPES.iter().map(|(name, _)| *name).collect();
        return Err(ApiError::new(
            ErrorCode::AiSectionTypeUnknown,
            format!("unknown section type '{raw_type}': expected one of {}", known.join(", ")),
        ));
    };
    let context = body.section_context.as_deref().unwrap_or_default().trim();
    within_limit("section_context", context)?;
    if context.chars().count() < MIN_SECTION_CONTEXT_CHARS {
        return Err(insufficient(format!(
            "section_context needs at least {MIN_SECTION_CONTEXT_CHARS} characters saying what the section is about"
        )));
    }
    let language = optional_language(state, "locale", body.locale.as_deref()).await?;
    let prompt = actions::section(section_type, shape, context, language.as_ref());
    let answer = provider::complete(state, &config, &config.model, &prompt).await?;
    Ok(SectionContentResponse { section_type: section_type.to_string(), content: actions::read_section(&answer)? })
}
