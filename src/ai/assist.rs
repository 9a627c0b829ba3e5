//! Content assist as the origin service's admin asks for it
//! (`POST /sites/{site_id}/ai/generate` `{action, content, target_locale?}`):
//! SEO fields, an excerpt, a translation of a whole post, an outline from a
//! topic, a post from an outline. Each action's instructions are the site's
//! own (`system_prompts`) or Plinth's; either way the prompt ends by naming
//! the JSON object to answer with, as every action's does.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::actions::Language;
pub use super::model::AssistAction;
use super::provider::{Prompt, UserContent};
use crate::error::{ApiError, ApiResult, ErrorCode};

/// What each action asks the model for.
trait AssistActionText {
    fn default_instructions(self) -> &'static str;
    fn answer_shape(self) -> &'static str;
    fn required(self) -> &'static [&'static str];
}

impl AssistActionText for AssistAction {
    /// Plinth's instructions when the site has none of its own.
    fn default_instructions(self) -> &'static str {
        match self {
            AssistAction::Seo => {
                "You optimise web pages for search engines. From the article the user sends, write a meta title \
                 of at most 60 characters and a meta description of at most 160 characters that make a reader \
                 want to open it."
            }
            AssistAction::Excerpt => {
                "You edit a publication. Summarise the article the user sends in one or two plain sentences that \
                 can stand under its title in a list of posts."
            }
            AssistAction::Translate => {
                "You translate articles for a publication. Translate every field the user sends, keeping its \
                 meaning, tone and Markdown; leave a field empty when the user's is empty."
            }
            AssistAction::DraftOutline => {
                "You plan articles for a publication. From the topic the user sends, propose a title, a subtitle \
                 and an outline of five to eight short points, each a section the article will have."
            }
            AssistAction::DraftPost => {
                "You write articles for a publication. From the title and outline the user sends, write the \
                 article in Markdown: a `##` heading per point (never `#`), plain paragraphs under each, no bold \
                 text and no horizontal rules. Also write a one- or two-sentence excerpt and SEO fields (a meta \
                 title of at most 60 characters, a meta description of at most 160)."
            }
        }
    }

    /// The object the model must answer with.
    fn answer_shape(self) -> &'static str {
        match self {
            AssistAction::Seo => r#"{"meta_title": "…", "meta_description": "…"}"#,
            AssistAction::Excerpt => r#"{"excerpt": "…"}"#,
            AssistAction::Translate => {
                r#"{"title": "…", "subtitle": "…", "excerpt": "…", "body": "…", "meta_title": "…", "meta_description": "…"}"#
            }
            AssistAction::DraftOutline => r#"{"title": "…", "subtitle": "…", "outline": ["…", "…"]}"#,
            AssistAction::DraftPost => r#"{"body": "…", "excerpt": "…", "meta_title": "…", "meta_description": "…"}"#,
        }
    }

    /// The fields of the answer this action must have.
    fn required(self) -> &'static [&'static str] {
        match self {
            AssistAction::Seo => &["meta_title", "meta_description"],
            AssistAction::Excerpt => &["excerpt"],
            AssistAction::Translate => &["title", "body"],
            AssistAction::DraftOutline => &["title", "outline"],
            AssistAction::DraftPost => &["body"],
        }
    }
}

/// What the model wrote, by field (absent fields are left out).
#[derive(Clone, Debug, Default, PartialEq, Serialize, ToSchema)]
pub struct GenerateResponse {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta_title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta_description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excerpt: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subtitle: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outline: Option<Vec<String>>,
}

/// The prompt of `action` over `content`, with the site's own instructions
/// for it when it has some.
pub fn prompt(
    action: AssistAction,
    content: &str,
    target: Option<&Language>,
    own: &BTreeMap<String, String>,
) -> Prompt {
    let instructions = own.get(action.key()).map_or(action.default_instructions(), String::as_str);
    let into = match (action, target) {
        (AssistAction::Translate, Some(language)) => format!(" Translate into {} ({}).", language.name, language.code),
        _ => String::new(),
    };
    Prompt {
        system: format!(
            "{instructions}{into} Answer with only this JSON object, nothing else: {}",
            action.answer_shape()
        ),
        user: UserContent::Text(content.to_string()),
    }
}

fn parse_failed(detail: String) -> ApiError {
    ApiError::new(ErrorCode::AiResponseParseFailed, format!("the AI provider's answer {detail}"))
}

/// The answer's fields; one this action needs missing (or of the wrong type)
/// is AI_RESPONSE_PARSE_FAILED.
pub fn read(action: AssistAction, answer: &Map<String, Value>) -> ApiResult<GenerateResponse> {
    let text = |field: &str| -> ApiResult<Option<String>> {
        match answer.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
            Some(_) => Err(parse_failed(format!("has a {field} that is not text"))),
        }
    };
    let outline = match answer.get("outline") {
        None | Some(Value::Null) => None,
        Some(Value::Array(points)) => Some(
            points
                .iter()
                .map(|p| p.as_str().map(|s| s.trim().to_string()))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| parse_failed("has an outline point that is not text".into()))?,
        ),
        Some(_) => return Err(parse_failed("has an outline that is not a list".into())),
    };
    let response = GenerateResponse {
        meta_title: text("meta_title")?,
        meta_description: text("meta_description")?,
        excerpt: text("excerpt")?,
        title: text("title")?,
        subtitle: text("subtitle")?,
        body: text("body")?,
        outline,
    };
    let fields = serde_json::to_value(&response).unwrap_or_default();
    if let Some(missing) = action.required().iter().find(|f| fields.get(**f).is_none()) {
        return Err(parse_failed(format!("has no {missing}")));
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_sites_own_instructions_replace_plinths_and_the_shape_is_always_named() {
        let own = BTreeMap::from([("seo".to_string(), "Write like a pirate.".to_string())]);
        let seo = prompt(AssistAction::Seo, "text", None, &own);
        assert!(seo.system.starts_with("Write like a pirate.") && seo.system.contains(r#"{"meta_title""#));
        let excerpt = prompt(AssistAction::Excerpt, "text", None, &own);
        assert!(excerpt.system.starts_with("You edit a publication.") && excerpt.system.contains(r#"{"excerpt""#));
    }

    #[test]
    fn answers_need_their_actions_fields() {
        let answer = |v: Value| v.as_object().unwrap().clone();
        let outline =
            read(AssistAction::DraftOutline, &answer(json!({"title": "T", "outline": [" a ", "b"]}))).unwrap();
        assert_eq!(outline.outline, Some(vec!["a".to_string(), "b".to_string()]));
        assert!(read(AssistAction::Seo, &answer(json!({"meta_title": "T"}))).is_err());
        assert!(read(AssistAction::DraftOutline, &answer(json!({"title": "T", "outline": [1]}))).is_err());
    }
}
