//! Parse, don't validate: values whose constructor is the only way in.

use serde::{Deserialize, Deserializer};

use crate::error::{ErrorCode, FieldError};

/// The documented schema of a string the server reads and checks against a
/// fixed list: only `values`. It carries its `description` because utoipa
/// drops the doc comment of a `schema_with` field or parameter.
pub fn one_of(description: &str, values: &[&str]) -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::String)
        .enum_values(Some(values.iter().copied()))
        .description(Some(description))
        .build()
}

/// A URL slug: lowercase ASCII letters, digits and single hyphens, 1 to 100
/// characters, no hyphen at either end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slug(String);

impl Slug {
    pub fn parse(field: &str, raw: &str) -> Result<Slug, FieldError> {
        let ok = (1..=100).contains(&raw.len())
            && raw.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && !raw.starts_with('-')
            && !raw.ends_with('-')
            && !raw.contains("--");
        if ok {
            Ok(Slug(raw.to_string()))
        } else {
            Err(FieldError::new(
                field,
                ErrorCode::ValidationInvalidFormat,
                "a slug has 1 to 100 lowercase letters, digits and single hyphens, and no hyphen at either end",
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_inner(self) -> String {
        self.0
    }
}

/// An absolute http(s) URL without credentials, normalized without a trailing slash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaseUrl(String);

impl BaseUrl {
    pub fn parse(field: &str, raw: &str) -> Result<BaseUrl, FieldError> {
        let invalid = |why: &str| FieldError::new(field, ErrorCode::ValidationInvalidFormat, why);
        let url = url::Url::parse(raw.trim())
            .map_err(|_| invalid("must be a valid URL with protocol, e.g. https://example.org"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(invalid("must use http or https"));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(invalid("must name a host"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(invalid("must not contain credentials"));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(invalid("must not have a query or fragment"));
        }
        Ok(BaseUrl(url.as_str().trim_end_matches('/').to_string()))
    }

    pub fn into_inner(self) -> String {
        self.0
    }
}

/// Where a link may point: an absolute http(s) URL, or (where `allow_path`) a
/// path on the site itself, starting with `/`. Returns the trimmed value.
pub fn link_target(field: &str, raw: &str, allow_path: bool) -> Result<String, FieldError> {
    let raw = raw.trim();
    let valid = if raw.starts_with("http://") || raw.starts_with("https://") {
        url::Url::parse(raw).is_ok_and(|u| u.host_str().is_some_and(|h| !h.is_empty()))
    } else {
        allow_path && raw.starts_with('/') && !raw.contains(char::is_whitespace)
    };
    if valid {
        Ok(raw.to_string())
    } else {
        let expected =
            if allow_path { "must be an http(s) URL or a path starting with /" } else { "must be an http(s) URL" };
        Err(FieldError::new(field, ErrorCode::ValidationInvalidFormat, expected))
    }
}

/// A `#rgb` or `#rrggbb` colour.
pub fn parse_hex_color(field: &str, raw: &str) -> Result<String, FieldError> {
    let hex = raw.strip_prefix('#').unwrap_or("");
    if matches!(hex.len(), 3 | 6) && hex.chars().all(|c| c.is_ascii_hexdigit()) {
        Ok(raw.to_ascii_lowercase())
    } else {
        Err(FieldError::new(field, ErrorCode::ValidationInvalidFormat, "must be a hex colour such as #ffffff"))
    }
}

/// A plausible e-mail address: one `@`, a local part and a dotted domain.
pub fn is_email(raw: &str) -> bool {
    match raw.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.contains('@')
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !raw.chars().any(char::is_whitespace)
        }
        None => false,
    }
}

/// For PATCH-like updates: absent = `None`, `null` = `Some(None)`, a value =
/// `Some(Some(v))`. Use with `#[serde(default, deserialize_with = "double_option")]`.
pub fn double_option<'de, T, D>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    T: Deserialize<'de>,
    D: Deserializer<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// Characters no text is stored with, and why. What people type never holds them;
/// they arrive from pasted or crafted input, and each does harm downstream:
///
/// - Text of any kind (bodies, descriptions, notes) refuses the C0 and C1 control
///   characters (U+0000–U+001F, U+007F–U+009F) except TAB, LF and CR. NUL cuts
///   strings short in C consumers and PostgreSQL cannot store it at all; the
///   others are terminal escapes and invisible junk.
/// - Text of one line (titles, names, labels: what lists show and people compare
///   by eye) refuses every control character, TAB and line breaks included
///   (U+2028 and U+2029 too), the bidi embeddings, overrides and isolates
///   (U+202A–U+202E, U+2066–U+2069), which reorder what follows them (an
///   override makes `exe.txt` read `txt.exe`), ZERO WIDTH SPACE (U+200B) and
///   the byte order mark (U+FEFF), which make two names that look the same
///   differ. ZWNJ and ZWJ (U+200C, U+200D) stay: Persian and Indic scripts
///   need them to spell words, and emoji sequences (❤️‍🔥) are built with them;
///   so do the direction marks LRM, RLM and ALM (U+200E, U+200F, U+061C), which
///   set the direction of neutral characters and reorder nothing. A Thai or
///   Khmer word-break hint (U+200B) is a layout aid a renderer supplies itself,
///   so refusing it costs a title nothing.
fn refused_in_text(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

fn refused_in_line(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}')
        || matches!(c, '\u{200B}' | '\u{FEFF}')
}

fn refuse_chars(field: &str, raw: &str, refused: fn(char) -> bool, what: &str) -> Result<(), FieldError> {
    match raw.chars().find(|c| refused(*c)) {
        None => Ok(()),
        Some(c) => Err(FieldError::new(
            field,
            ErrorCode::ValidationInvalidFormat,
            format!("must not contain U+{:04X}; {what}", u32::from(c)),
        )),
    }
}

/// Text that may span lines (a body, an excerpt, a note): no control character
/// but TAB, LF and CR (see [`refused_in_text`]).
pub fn text(field: &str, raw: &str) -> Result<(), FieldError> {
    refuse_chars(field, raw, refused_in_text, "control characters other than tab and line breaks are refused")
}

/// Text that must be non-empty after trimming and at most `max` characters, and
/// holds no control character but TAB, LF and CR: multi-line text such as notes.
/// Titles, names and labels use [`required_line`].
pub fn required_text(field: &str, raw: &str, max: usize) -> Result<String, FieldError> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err(FieldError::new(field, ErrorCode::ValidationRequiredField, "must not be empty"));
    }
    bounded_text(field, trimmed, max)?;
    Ok(trimmed.to_string())
}

/// Text that may be empty, of at most `max` characters, with no control
/// character but TAB, LF and CR (see [`text`]): a section's body, a
/// template's fields.
pub fn bounded_text(field: &str, raw: &str, max: usize) -> Result<(), FieldError> {
    if raw.chars().count() > max {
        return Err(FieldError::new(
            field,
            ErrorCode::ValidationOutOfRange,
            format!("must be at most {max} characters"),
        ));
    }
    text(field, raw)
}

/// [`required_text`] for one line (titles, names, labels): no control character
/// at all, no bidi override or isolate, no zero width space or byte order mark
/// (see [`refused_in_text`] for why).
pub fn required_line(field: &str, raw: &str, max: usize) -> Result<String, FieldError> {
    let line = required_text(field, raw, max)?;
    refuse_chars(
        field,
        &line,
        refused_in_line,
        "a single line holds no control characters, line breaks, bidi overrides or invisible spaces",
    )?;
    Ok(line)
}

/// The most entries one reordering names (links, menu items).
pub const REORDER_MAX: usize = 1000;

/// The ids of a reordering's `items`: at most [`REORDER_MAX`], each once.
pub fn reorder_ids(ids: impl ExactSizeIterator<Item = uuid::Uuid>) -> Result<(), crate::error::ApiError> {
    use crate::error::ApiError;
    if ids.len() > REORDER_MAX {
        let detail = format!("at most {REORDER_MAX} at once");
        return Err(ApiError::validation(vec![FieldError::new("items", ErrorCode::ValidationOutOfRange, detail)]));
    }
    let mut sorted: Vec<uuid::Uuid> = ids.collect();
    sorted.sort_unstable();
    if sorted.windows(2).any(|pair| pair[0] == pair[1]) {
        let detail = "names an entry twice";
        return Err(ApiError::validation(vec![FieldError::new("items", ErrorCode::ValidationInvalidFormat, detail)]));
    }
    Ok(())
}

/// An optional line (an alt text, a description): blank or absent is none,
/// anything else is a [`required_line`] of at most `max` characters.
pub fn optional_line(field: &str, raw: Option<&str>, max: usize) -> Result<Option<String>, FieldError> {
    match raw {
        Some(raw) if !raw.trim().is_empty() => required_line(field, raw, max).map(Some),
        _ => Ok(None),
    }
}

/// `column` contains `term` in any letter case: LIKE on both backends, over
/// the lowercased column, the term's wildcards escaped (`%` is a character).
/// A scan of the rows the query's other conditions leave, for lists whose
/// other conditions bound them (one site's files or templates).
pub fn contains_any_case(
    column: impl Into<sea_orm::sea_query::SimpleExpr>,
    term: &str,
) -> sea_orm::sea_query::SimpleExpr {
    use sea_orm::sea_query::{Expr, ExprTrait, Func, LikeExpr};
    let pattern = format!("%{}%", term.to_lowercase().replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"));
    Expr::expr(Func::lower(column.into())).like(LikeExpr::new(pattern).escape('\\'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_candidates_start_with_the_base_itself() {
        assert_eq!(numbered("post", 1..=3), ["post", "post-2", "post-3"]);
        assert_eq!(numbered("post", 101..=102), ["post-101", "post-102"]);
    }

    #[test]
    fn slugs() {
        assert!(Slug::parse("slug", "my-site-2").is_ok());
        for bad in ["", "-a", "a-", "A", "a--b", "a b", "ä"] {
            assert!(Slug::parse("slug", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn base_urls() {
        assert_eq!(
            BaseUrl::parse("u", "https://example.org/").map(BaseUrl::into_inner),
            Ok("https://example.org".to_string())
        );
        for bad in
            ["example.org", "ftp://example.org", "https://u:p@example.org", "https://example.org/?q=1", "not a url"]
        {
            assert!(BaseUrl::parse("u", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn hostile_characters() {
        assert_eq!(required_text("body", "a\tb\r\nc", 10).as_deref(), Ok("a\tb\r\nc"));
        let heart_on_fire = "Ada \u{2764}\u{FE0F}\u{200D}\u{1F525}";
        assert_eq!(required_line("title", heart_on_fire, 10).as_deref(), Ok(heart_on_fire));
        assert!(required_line("title", "\u{645}\u{6CC}\u{200C}\u{62E}\u{648}\u{627}\u{647}\u{645}", 10).is_ok());
        assert!(required_line("title", "\u{200F}abc", 10).is_ok());
        for bad in ["a\0b", "a\u{1B}[31m", "a\u{7F}", "a\u{85}b"] {
            assert!(required_text("body", bad, 10).is_err(), "{bad:?}");
            assert!(text("body", bad).is_err(), "{bad:?}");
        }
        for bad in ["a\tb", "a\nb", "a\u{202E}b", "a\u{2066}b", "a\u{200B}b", "a\u{FEFF}b", "a\u{2028}b"] {
            assert!(required_text("title", bad, 10).is_ok(), "{bad:?}");
            let e = required_line("title", bad, 10).unwrap_err();
            assert_eq!((e.field.as_str(), e.code.as_str()), ("title", "VALIDATION_INVALID_FORMAT"), "{bad:?}");
        }
    }

    #[test]
    fn colours_and_emails() {
        assert_eq!(parse_hex_color("c", "#FFF"), Ok("#fff".to_string()));
        assert!(parse_hex_color("c", "fff").is_err());
        assert!(is_email("a@example.org"));
        assert!(!is_email("a@b") && !is_email("@example.org") && !is_email("a b@example.org"));
    }
}

#[cfg(test)]
mod link_target_tests {
    use super::link_target;

    #[test]
    fn urls_and_optionally_paths() {
        assert_eq!(link_target("url", " https://example.org/a ", false).unwrap(), "https://example.org/a");
        assert!(link_target("url", "/about", false).is_err());
        assert_eq!(link_target("url", "/about", true).unwrap(), "/about");
        for bad in ["ftp://example.org", "https://", "about", "/with space", "javascript:alert(1)"] {
            assert!(link_target("url", bad, true).is_err(), "{bad}");
        }
    }
}

/// An optional instant given as RFC 3339 (`2026-05-01T09:00:00Z`) or as a plain
/// date (`2026-05-01`, midnight UTC), as clients of a `published_date` send it.
pub fn date_or_datetime<'de, D>(d: D) -> Result<Option<chrono::DateTime<chrono::Utc>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let Some(raw) = <Option<String> as serde::Deserialize>::deserialize(d)? else { return Ok(None) };
    if let Ok(at) = chrono::DateTime::parse_from_rfc3339(&raw) {
        return Ok(Some(at.with_timezone(&chrono::Utc)));
    }
    chrono::NaiveDate::parse_from_str(&raw, "%Y-%m-%d")
        .ok()
        .and_then(|date| date.and_hms_opt(0, 0, 0))
        .map(|at| Some(at.and_utc()))
        .ok_or_else(|| serde::de::Error::custom(format!("'{raw}' is not a date (YYYY-MM-DD) or an RFC 3339 time")))
}

/// `null` read as the field's default, as when it is left out: clients that
/// send every field of a form send `"description": null` for an empty one.
pub fn null_as_default<'de, T, D>(d: D) -> Result<T, D::Error>
where
    T: Default + serde::Deserialize<'de>,
    D: serde::Deserializer<'de>,
{
    Ok(<Option<T> as serde::Deserialize>::deserialize(d)?.unwrap_or_default())
}

/// `base`, `base-2`, `base-3`, … for the numbers given (1 is `base` itself):
/// the candidates of a free slug, looked up all at once.
pub fn numbered(base: &str, numbers: std::ops::RangeInclusive<u32>) -> Vec<String> {
    numbers.map(|n| if n == 1 { base.to_string() } else { format!("{base}-{n}") }).collect()
}

pub use plinth_entities::values::wire_key;

/// A locale as a request body names it (`locale_id`): its UUID, as the spec
/// says, or its code (`de`, `pt-BR`, any letter case), as a person writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LocaleName {
    Id(uuid::Uuid),
    Code(String),
}

impl LocaleName {
    /// A UUID, or a code: 1 to 36 letters, digits, `-` and `_` (trimmed;
    /// the document's `<locale>` pattern).
    pub fn parse(raw: &str) -> Option<Self> {
        if let Ok(id) = uuid::Uuid::parse_str(raw) {
            return Some(Self::Id(id));
        }
        let code = raw.trim();
        let is_code =
            (1..=36).contains(&code.len()) && code.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        is_code.then(|| Self::Code(code.to_owned()))
    }

    /// Whether it names the locale `id` with the code `code`.
    pub fn names(&self, id: uuid::Uuid, code: &str) -> bool {
        match self {
            Self::Id(named) => *named == id,
            Self::Code(named) => named.eq_ignore_ascii_case(code),
        }
    }
}

/// What an error says of a locale named where none of `codes` is it: the
/// codes to pick from, and that a UUID is taken too.
pub fn not_among(named: &dyn std::fmt::Display, codes: &[&str]) -> String {
    format!("`{named}` is not a locale here; give one of the codes {} or its locale UUID", codes.join(", "))
}

impl std::fmt::Display for LocaleName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Id(id) => write!(f, "{id}"),
            Self::Code(code) => f.write_str(code),
        }
    }
}

impl From<uuid::Uuid> for LocaleName {
    fn from(id: uuid::Uuid) -> Self {
        Self::Id(id)
    }
}

impl<'de> Deserialize<'de> for LocaleName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        Self::parse(&raw)
            .ok_or_else(|| serde::de::Error::custom("expected a locale's UUID or its code (`de`, `pt-BR`)"))
    }
}

impl utoipa::PartialSchema for LocaleName {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .description(Some("A locale's UUID (`GET /locales`) or its code (`de`, `pt-BR`)"))
            .pattern(Some("<locale>"))
            .into()
    }
}

impl utoipa::ToSchema for LocaleName {}
