//! What each action asks the model for, and how its answer is read. Every
//! prompt ends by naming the one JSON object the model must answer with; an
//! answer without it (or of the wrong shape) is AI_RESPONSE_PARSE_FAILED.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::model::SuggestField;
use super::provider::{Prompt, UserContent};
use crate::error::{ApiError, ApiResult, ErrorCode};

/// `suggest` needs this much content (characters, trimmed).
pub const MIN_SUGGEST_CHARS: usize = 50;
/// `section_content` needs this much context (characters, trimmed).
pub const MIN_SECTION_CONTEXT_CHARS: usize = 20;
/// The most text one request may send (characters).
pub const MAX_INPUT_CHARS: usize = 50_000;
/// The most suggestions answered.
pub const MAX_SUGGESTIONS: usize = 10;
/// Alt text is stored as media metadata, which takes this many characters.
pub const MAX_ALT_TEXT_CHARS: usize = 500;
/// Tags as the media library takes them.
pub const MAX_TAGS: usize = 20;
pub const MAX_TAG_CHARS: usize = 50;

/// The section types `section_content` writes, with the object each asks for.
pub const SECTION_TYPES: [(&str, &str); 6] = [
    ("hero", r#"{"title": "…", "subtitle": "…", "cta_label": "…"}"#),
    ("text", r#"{"title": "…", "body": "… (Markdown)"}"#),
    ("features", r#"{"title": "…", "items": [{"title": "…", "description": "…"}]}"#),
    ("faq", r#"{"title": "…", "items": [{"question": "…", "answer": "…"}]}"#),
    ("testimonials", r#"{"title": "…", "items": [{"quote": "…", "author": "…", "role": "…"}]}"#),
    ("call_to_action", r#"{"title": "…", "body": "…", "button_label": "…"}"#),
];

/// A locale of the global list, as prompts name it.
#[derive(Clone, Debug)]
pub struct Language {
    pub id: uuid::Uuid,
    pub code: String,
    pub name: String,
}

impl Language {
    fn describe(&self) -> String {
        format!("{} ({})", self.name, self.code)
    }
}

fn write_in(language: Option<&Language>, otherwise: &str) -> String {
    match language {
        Some(l) => format!("Write in {}.", l.describe()),
        None => otherwise.to_string(),
    }
}

fn parse_failed(detail: &str) -> ApiError {
    ApiError::new(ErrorCode::AiResponseParseFailed, format!("the AI provider's answer {detail}"))
}

const PREAMBLE: &str = "You assist the editors of a content management system.";

pub fn suggest(field: SuggestField, content: &str, language: Option<&Language>) -> Prompt {
    let what = match field {
        SuggestField::Title => "3 to 5 titles for the content, each at most 100 characters",
        SuggestField::Excerpt => {
            "3 excerpts summarising the content in one or two sentences, each at most 300 characters"
        }
        SuggestField::MetaTitle => "3 to 5 SEO page titles for the content, each at most 60 characters",
        SuggestField::MetaDescription => "3 SEO meta descriptions for the content, each at most 160 characters",
        SuggestField::Slug => {
            "3 to 5 URL slugs for the content: lowercase words joined by hyphens, at most 60 characters"
        }
        SuggestField::Tags => "5 to 10 tags for the content, each one to three words",
    };
    Prompt {
        system: format!(
            "{PREAMBLE} Propose {what}. {} Answer with one JSON object of the form {{\"suggestions\": [\"…\"]}}.",
            write_in(language, "Write in the language of the content.")
        ),
        user: UserContent::Text(content.to_string()),
    }
}

fn strings(answer: &Map<String, Value>, key: &str) -> ApiResult<Vec<String>> {
    let list = answer.get(key).and_then(Value::as_array).ok_or_else(|| parse_failed(&format!("has no {key} array")))?;
    let mut seen = Vec::<String>::new();
    for item in list.iter().filter_map(Value::as_str).map(str::trim).filter(|s| !s.is_empty()) {
        if !seen.iter().any(|s| s.eq_ignore_ascii_case(item)) {
            seen.push(item.to_string());
        }
    }
    Ok(seen)
}

pub fn read_suggestions(field: SuggestField, answer: &Map<String, Value>) -> ApiResult<Vec<String>> {
    let mut found = strings(answer, "suggestions")?;
    if field == SuggestField::Slug {
        let mut slugs: Vec<String> = Vec::new();
        for slug in found.iter().map(|s| crate::content::slugify(s)).filter(|s| !s.is_empty()) {
            if !slugs.contains(&slug) {
                slugs.push(slug);
            }
        }
        found = slugs;
    }
    found.truncate(MAX_SUGGESTIONS);
    Ok(found)
}

pub fn translate(texts: &BTreeMap<String, String>, source: Option<&Language>, target: &Language) -> Prompt {
    let from = source.map(|s| format!(" from {}", s.describe())).unwrap_or_default();
    Prompt {
        system: format!(
            "{PREAMBLE} Translate the values of the JSON object the user sends{from} into {}. Keep Markdown, \
             HTML tags, URLs and placeholders such as {{{{name}}}} as they are, and do not translate the keys. \
             Answer with one JSON object of the form {{\"translations\": {{\"<key>\": \"<translated value>\"}}}} \
             with exactly the keys the user sent.",
            target.describe()
        ),
        user: UserContent::Text(serde_json::to_string(texts).unwrap_or_default()),
    }
}

/// The translation of every key sent; one missing is a parse failure.
pub fn read_translations(
    sent: &BTreeMap<String, String>,
    answer: &Map<String, Value>,
) -> ApiResult<BTreeMap<String, String>> {
    let translations = answer
        .get("translations")
        .and_then(Value::as_object)
        .ok_or_else(|| parse_failed("has no translations object"))?;
    sent.keys()
        .map(|key| match translations.get(key).and_then(Value::as_str) {
            Some(text) => Ok((key.clone(), text.to_string())),
            None => Err(parse_failed(&format!("has no translation of {key}"))),
        })
        .collect()
}

pub fn alt_text(image_url: &str, language: Option<&Language>) -> Prompt {
    Prompt {
        system: format!(
            "{PREAMBLE} Write the alternative text of the image for readers who cannot see it: what it shows, \
             in one sentence of at most 125 characters, without \"image of\". {} Answer with one JSON object \
             of the form {{\"alt_text\": \"…\"}}.",
            write_in(language, "Write in English.")
        ),
        user: UserContent::WithImage { text: "Describe this image.".into(), image_url: image_url.to_string() },
    }
}

pub fn read_alt_text(answer: &Map<String, Value>) -> ApiResult<String> {
    let text = answer
        .get("alt_text")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| parse_failed("has no alt_text"))?;
    Ok(text.chars().take(MAX_ALT_TEXT_CHARS).collect())
}

pub fn auto_tag(image_url: &str, language: Option<&Language>) -> Prompt {
    Prompt {
        system: format!(
            "{PREAMBLE} Propose 3 to 10 tags for the image, each one to three words of letters and digits, \
             to find it in a media library. {} Answer with one JSON object of the form {{\"tags\": [\"…\"]}}.",
            write_in(language, "Write in English.")
        ),
        user: UserContent::WithImage { text: "Tag this image.".into(), image_url: image_url.to_string() },
    }
}

/// A tag as the media library takes it: letters, digits, spaces, `-` and `_`,
/// 1-50 characters; other characters become spaces.
pub fn clean_tag(raw: &str) -> Option<String> {
    let kept: String =
        raw.chars().map(|c| if c.is_alphanumeric() || matches!(c, '-' | '_') { c } else { ' ' }).collect();
    let tag = kept.split_whitespace().collect::<Vec<_>>().join(" ");
    let tag: String = tag.chars().take(MAX_TAG_CHARS).collect::<String>().trim().to_string();
    (!tag.is_empty()).then_some(tag)
}

/// Adds `more` to `tags`, dropping duplicates (any case), at most [`MAX_TAGS`].
pub fn merge_tags(tags: &mut Vec<String>, more: impl IntoIterator<Item = String>) {
    for tag in more {
        if tags.len() == MAX_TAGS {
            break;
        }
        if !tags.iter().any(|t| t.eq_ignore_ascii_case(&tag)) {
            tags.push(tag);
        }
    }
}

pub fn read_tags(answer: &Map<String, Value>) -> ApiResult<Vec<String>> {
    let mut tags = Vec::new();
    merge_tags(&mut tags, strings(answer, "tags")?.iter().filter_map(|t| clean_tag(t)));
    Ok(tags)
}

/// A known section type (any spelling: `call-to-action`, `CallToAction`) by
/// its name, with the object it asks for; `None` for an unknown type.
pub fn section_shape(section_type: &str) -> Option<(&'static str, &'static str)> {
    let key = crate::values::wire_key(section_type);
    SECTION_TYPES.iter().find(|(name, _)| crate::values::wire_key(name) == key).copied()
}

pub fn section(section_type: &str, shape: &str, context: &str, language: Option<&Language>) -> Prompt {
    Prompt {
        system: format!(
            "{PREAMBLE} Write the content of a web page section of type {section_type} from what the user \
             says the section is about. {} Answer with one JSON object of the form {{\"content\": {shape}}}.",
            write_in(language, "Write in the language the user writes in.")
        ),
        user: UserContent::Text(context.to_string()),
    }
}

pub fn read_section(answer: &Map<String, Value>) -> ApiResult<Value> {
    match answer.get("content") {
        Some(Value::Object(content)) if !content.is_empty() => Ok(Value::Object(content.clone())),
        _ => Err(parse_failed("has no content object")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn suggestions_are_trimmed_deduplicated_and_slugs_made_safe() {
        let answer = object(json!({"suggestions": [" Hello World ", "hello world", 3, "Grüße aus Köln"]}));
        assert_eq!(read_suggestions(SuggestField::Title, &answer).unwrap(), ["Hello World", "Grüße aus Köln"]);
        assert_eq!(read_suggestions(SuggestField::Slug, &answer).unwrap(), ["hello-world", "grusse-aus-koln"]);
        assert!(read_suggestions(SuggestField::Title, &object(json!({"ideas": []}))).is_err());
    }

    #[test]
    fn translations_must_cover_every_key_sent() {
        let sent = BTreeMap::from([("title".to_string(), "Hello".to_string()), ("body".into(), "World".into())]);
        let full = object(json!({"translations": {"title": "Hallo", "body": "Welt", "extra": "x"}}));
        assert_eq!(read_translations(&sent, &full).unwrap().len(), 2);
        assert!(read_translations(&sent, &object(json!({"translations": {"title": "Hallo"}}))).is_err());
    }

    #[test]
    fn tags_are_cleaned_for_the_media_library() {
        assert_eq!(clean_tag("  #sunset / beach! "), Some("sunset beach".into()));
        assert_eq!(clean_tag("!!!"), None);
        let answer = object(json!({"tags": ["Cat", "cat", "black-cat", "x".repeat(80)]}));
        let tags = read_tags(&answer).unwrap();
        assert_eq!(tags.len(), 3);
        assert_eq!(tags[2].chars().count(), MAX_TAG_CHARS);
        let mut many: Vec<String> = (0..19).map(|i| format!("t{i}")).collect();
        merge_tags(&mut many, ["a".to_string(), "b".to_string()]);
        assert_eq!(many.len(), MAX_TAGS);
    }

    #[test]
    fn every_section_type_has_a_shape() {
        assert!(SECTION_TYPES.iter().all(|(_, shape)| serde_json::from_str::<Value>(&shape.replace('…', "")).is_ok()));
        assert_eq!(section_shape("CallToAction").map(|(name, _)| name), Some("call_to_action"));
        assert!(section_shape("carousel").is_none());
        assert!(read_section(&object(json!({"content": {}}))).is_err());
    }
}
