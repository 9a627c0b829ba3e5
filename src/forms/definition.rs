//! The rules a form definition must meet when it is saved, so that a submit
//! never meets a field it cannot check: unique labels, options where a type
//! needs them, consistent bounds, and patterns that compile (ECMAScript, no
//! lookaround or backreferences).

use std::collections::HashSet;

use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::values::required_line;

use super::model::{FieldInput, FieldType};
use super::pattern::FieldPattern;

/// The most fields a form may have.
pub const MAX_FIELDS: usize = 100;
/// The most options a select, radio or checkbox field may offer.
pub const MAX_OPTIONS: usize = 200;
/// The longest label, option, placeholder or help text.
pub const MAX_TEXT: usize = 500;
/// The longest form or template name.
pub const MAX_NAME: usize = 200;
/// The longest description or consent text.
pub const MAX_DESCRIPTION: usize = 5_000;
/// The longest retention a form may ask for (ten years).
pub const MAX_RETENTION_DAYS: i32 = 3_650;

/// Checks and normalizes `fields` (labels trimmed, `display_order` filled in
/// by position where missing).
pub fn check_fields(fields: Vec<FieldInput>) -> ApiResult<Vec<FieldInput>> {
    if fields.len() > MAX_FIELDS {
        return Err(ApiError::validation(vec![FieldError::new(
            "fields",
            ErrorCode::ValidationOutOfRange,
            format!("a form has at most {MAX_FIELDS} fields"),
        )]));
    }
    let mut errors = Vec::new();
    let mut seen = HashSet::new();
    let mut duplicates = Vec::new();
    let mut out = Vec::with_capacity(fields.len());
    for (i, mut field) in fields.into_iter().enumerate() {
        let at = |name: &str| format!("fields[{i}].{name}");
        match required_line(&at("label"), &field.label, MAX_TEXT) {
            Ok(label) => field.label = label,
            Err(e) => errors.push(e),
        }
        if !seen.insert(field.label.clone()) {
            duplicates.push(field.label.clone());
        }
        check_field(&field, &at, &mut errors);
        field.display_order = Some(field.display_order.unwrap_or(i as i32));
        out.push(field);
    }
    if !duplicates.is_empty() {
        return Err(ApiError::new(
            ErrorCode::FormDuplicateFieldLabels,
            format!("field labels must be unique within a form; repeated: {}", duplicates.join(", ")),
        ));
    }
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    Ok(out)
}

fn check_field(field: &FieldInput, at: &dyn Fn(&str) -> String, errors: &mut Vec<FieldError>) {
    let invalid = |errors: &mut Vec<FieldError>, name: &str, message: String| {
        errors.push(FieldError::new(at(name), ErrorCode::ValidationInvalidFormat, message));
    };
    match &field.options {
        Some(options) => {
            if options.len() > MAX_OPTIONS {
                invalid(errors, "options", format!("at most {MAX_OPTIONS} options"));
            }
            if options.iter().any(|o| o.trim().is_empty() || o.chars().count() > MAX_TEXT) {
                invalid(errors, "options", format!("options must be non-empty and at most {MAX_TEXT} characters"));
            }
            let distinct: HashSet<&String> = options.iter().collect();
            if distinct.len() != options.len() {
                invalid(errors, "options", "options must be distinct".into());
            }
        }
        None if field.field_type.has_options() => {
            invalid(errors, "options", format!("a {} field needs options", field.field_type.as_str()));
        }
        None => {}
    }
    if let (Some(min), Some(max)) = (field.min_length, field.max_length) {
        if min > max {
            invalid(errors, "min_length", "must not exceed max_length".into());
        }
    }
    if field.min.is_some_and(|v| !v.is_finite()) || field.max.is_some_and(|v| !v.is_finite()) {
        invalid(errors, "min", "min and max must be finite numbers".into());
    }
    if let (Some(min), Some(max)) = (field.min, field.max) {
        if min > max {
            invalid(errors, "min", "must not exceed max".into());
        }
    }
    if (field.min.is_some() || field.max.is_some()) && field.field_type != FieldType::Number {
        invalid(errors, "min", "min and max apply to number fields".into());
    }
    if let Some(pattern) = &field.pattern {
        if !field.field_type.is_text() {
            invalid(errors, "pattern", "a pattern applies to text, textarea and email fields".into());
        } else if let Err(why) = FieldPattern::compile(pattern) {
            invalid(errors, "pattern", why);
        }
    }
    for (name, text) in [("placeholder", &field.placeholder), ("help_text", &field.help_text)] {
        if text.as_ref().is_some_and(|t| t.chars().count() > MAX_TEXT) {
            invalid(errors, name, format!("must be at most {MAX_TEXT} characters"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(label: &str, field_type: FieldType) -> FieldInput {
        FieldInput {
            label: label.into(),
            field_type,
            required: false,
            options: None,
            min_length: None,
            max_length: None,
            pattern: None,
            min: None,
            max: None,
            placeholder: None,
            help_text: None,
            display_order: None,
        }
    }

    #[test]
    fn duplicate_labels_are_their_own_code() {
        let err = check_fields(vec![field("email", FieldType::Email), field(" email ", FieldType::Text)])
            .err()
            .map(|e| e.code());
        assert_eq!(err, Some(ErrorCode::FormDuplicateFieldLabels));
    }

    #[test]
    fn selects_need_options_and_patterns_must_compile() {
        let err = check_fields(vec![field("topic", FieldType::Select)]).err().map(|e| e.code());
        assert_eq!(err, Some(ErrorCode::ValidationError));
        let mut lookahead = field("code", FieldType::Text);
        lookahead.pattern = Some("(?=a)a".into());
        assert!(check_fields(vec![lookahead]).is_err());
        let mut ok = field("code", FieldType::Text);
        ok.pattern = Some("[A-Z]{2}\\d{4}".into());
        let fields = check_fields(vec![ok, field("name", FieldType::Text)]).ok().unwrap_or_default();
        assert_eq!(fields.iter().map(|f| f.display_order).collect::<Vec<_>>(), vec![Some(0), Some(1)]);
    }
}
