//! Server-side validation of submitted values against a form's fields: every
//! rule runs on every submit, whatever the browser checked. Values are never
//! echoed in errors (they may be personal data); labels are.

use std::collections::HashSet;
use std::sync::{Arc, LazyLock};

use plinth_entities::form_field;
use serde_json::{Map, Value};

use crate::error::{ErrorCode, FieldError};
use crate::values::is_email;

use super::model::FieldType;
use super::pattern::FieldPattern;

/// The longest text value accepted, whatever the field's `max_length`.
pub const MAX_VALUE_CHARS: usize = 10_000;
/// Indexed values of `queryable` forms are cut to this many characters.
pub const INDEXED_CHARS: usize = 200;

/// Compiled patterns by source: compiling costs far more than matching, and
/// the same few patterns are used by every submit of a form.
static PATTERNS: LazyLock<quick_cache::sync::Cache<String, Arc<FieldPattern>>> =
    LazyLock::new(|| quick_cache::sync::Cache::new(256));

fn compiled(source: &str) -> Option<Arc<FieldPattern>> {
    if let Some(hit) = PATTERNS.get(source) {
        return Some(hit);
    }
    // Stored patterns compiled when the form was saved; one that no longer
    // does (a newer rule) fails closed below.
    let pattern = Arc::new(FieldPattern::compile(source).ok()?);
    PATTERNS.insert(source.to_string(), Arc::clone(&pattern));
    Some(pattern)
}

/// A submission that passed: the values to store, and (label, value) pairs to
/// index for a `queryable` form.
#[derive(Debug, Default)]
pub struct Checked {
    pub data: Map<String, Value>,
    pub indexed: Vec<(String, String)>,
}

/// Checks `data` against `fields`; the errors name `data.<label>`.
pub fn check(fields: &[form_field::Model], mut data: Map<String, Value>) -> Result<Checked, Vec<FieldError>> {
    let mut errors = Vec::new();
    let known: HashSet<&str> = fields.iter().map(|f| f.label.as_str()).collect();
    for key in data.keys().filter(|k| !known.contains(k.as_str())) {
        let shown: String = key.chars().take(100).collect();
        errors.push(FieldError::new(
            format!("data.{shown}"),
            ErrorCode::ValidationInvalidFormat,
            "is not a field of this form",
        ));
    }
    let mut checked = Checked::default();
    for field in fields {
        let at = format!("data.{}", field.label);
        let value = data.remove(&field.label).unwrap_or(Value::Null);
        if is_empty(&value) {
            if field.required {
                errors.push(FieldError::new(at, ErrorCode::ValidationRequiredField, "is required"));
            }
            continue;
        }
        match check_value(field, value) {
            Ok(value) => {
                index(&field.label, &value, &mut checked.indexed);
                checked.data.insert(field.label.clone(), value);
            }
            Err((code, message)) => errors.push(FieldError::new(at, code, message)),
        }
    }
    if errors.is_empty() {
        Ok(checked)
    } else {
        Err(errors)
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

type Refusal = (ErrorCode, String);

fn format_error(message: impl Into<String>) -> Refusal {
    (ErrorCode::ValidationInvalidFormat, message.into())
}

fn range_error(message: impl Into<String>) -> Refusal {
    (ErrorCode::ValidationOutOfRange, message.into())
}

fn options_of(field: &form_field::Model) -> Vec<String> {
    field.options.as_ref().and_then(|o| serde_json::from_value(o.clone()).ok()).unwrap_or_default()
}

fn check_value(field: &form_field::Model, value: Value) -> Result<Value, Refusal> {
    let field_type = field.field_type;
    match field_type {
        FieldType::Text | FieldType::Textarea | FieldType::Email => {
            let Value::String(text) = value else { return Err(format_error("must be a string")) };
            check_text(field, field_type, &text)?;
            Ok(Value::String(text))
        }
        FieldType::Number => {
            let number = match &value {
                Value::Number(n) => n.as_f64(),
                Value::String(s) => s.trim().parse::<f64>().ok(),
                _ => None,
            }
            .filter(|n| n.is_finite())
            .ok_or_else(|| format_error("must be a number"))?;
            if field.min.is_some_and(|min| number < min) || field.max.is_some_and(|max| number > max) {
                let bounds = match (field.min, field.max) {
                    (Some(min), Some(max)) => format!("between {min} and {max}"),
                    (Some(min), None) => format!("at least {min}"),
                    (None, Some(max)) => format!("at most {max}"),
                    (None, None) => String::new(),
                };
                return Err(range_error(format!("must be {bounds}")));
            }
            Ok(serde_json::Number::from_f64(number).map(Value::Number).unwrap_or(value))
        }
        FieldType::Date => {
            let Value::String(text) = value else { return Err(format_error("must be a date (YYYY-MM-DD)")) };
            chrono::NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d")
                .map_err(|_| format_error("must be an ISO date (YYYY-MM-DD)"))?;
            Ok(Value::String(text.trim().to_string()))
        }
        FieldType::Select | FieldType::Radio => {
            let Value::String(choice) = value else { return Err(format_error("must be one of the options")) };
            if !options_of(field).contains(&choice) {
                return Err(format_error("must be one of the options"));
            }
            Ok(Value::String(choice))
        }
        FieldType::Checkbox => check_checkbox(field, value),
    }
}

fn check_text(field: &form_field::Model, field_type: FieldType, text: &str) -> Result<(), Refusal> {
    let chars = text.chars().count();
    if chars > MAX_VALUE_CHARS {
        return Err(range_error(format!("must be at most {MAX_VALUE_CHARS} characters")));
    }
    if let Some(min) = field.min_length.filter(|min| chars < *min as usize) {
        return Err(range_error(format!("must be at least {min} characters")));
    }
    if let Some(max) = field.max_length.filter(|max| chars > *max as usize) {
        return Err(range_error(format!("must be at most {max} characters")));
    }
    if field_type == FieldType::Email && !is_email(text.trim()) {
        return Err(format_error("must be an email address"));
    }
    if let Some(source) = &field.pattern {
        let matches = compiled(source).is_some_and(|p| p.is_match(text));
        if !matches {
            return Err(format_error("does not match the required format"));
        }
    }
    Ok(())
}

/// A single checkbox is a boolean (`required` means it must be ticked); a
/// checkbox group (with options) is an array of chosen options.
fn check_checkbox(field: &form_field::Model, value: Value) -> Result<Value, Refusal> {
    let options = options_of(field);
    if options.is_empty() {
        return match value {
            Value::Bool(false) if field.required => Err(format_error("must be checked")),
            Value::Bool(b) => Ok(Value::Bool(b)),
            _ => Err(format_error("must be true or false")),
        };
    }
    let chosen = match value {
        Value::String(one) => vec![one],
        Value::Array(many) => many
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                _ => Err(format_error("must be a list of options")),
            })
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err(format_error("must be a list of options")),
    };
    if chosen.iter().any(|c| !options.contains(c)) {
        return Err(format_error("must only contain the field's options"));
    }
    let mut distinct = Vec::new();
    for c in chosen {
        if !distinct.contains(&c) {
            distinct.push(c);
        }
    }
    Ok(Value::Array(distinct.into_iter().map(Value::String).collect()))
}

/// Adds a stored value's searchable forms (lowercased, cut) to `into`.
fn index(label: &str, value: &Value, into: &mut Vec<(String, String)>) {
    let mut push = |text: String| {
        let text: String = text.trim().to_lowercase().chars().take(INDEXED_CHARS).collect();
        if !into.iter().any(|(l, v)| l == label && *v == text) {
            into.push((label.to_string(), text));
        }
    };
    match value {
        Value::String(s) => push(s.clone()),
        Value::Array(items) => items.iter().filter_map(Value::as_str).for_each(|s| push(s.to_string())),
        Value::Number(n) => push(n.to_string()),
        Value::Bool(b) => push(b.to_string()),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use uuid::Uuid;

    fn field(label: &str, field_type: &str, required: bool) -> form_field::Model {
        form_field::Model {
            id: Uuid::new_v4(),
            form_id: Uuid::nil(),
            label: label.into(),
            field_type: serde_json::from_value(json!(field_type)).unwrap(),
            required,
            options: None,
            min_length: None,
            max_length: None,
            pattern: None,
            min: None,
            max: None,
            placeholder: None,
            help_text: None,
            display_order: 0,
        }
    }

    fn data(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    fn codes(r: Result<Checked, Vec<FieldError>>) -> Vec<(String, String)> {
        r.err().unwrap_or_default().into_iter().map(|e| (e.field, e.code)).collect()
    }

    #[test]
    fn every_rule_is_checked_per_field() {
        let mut code = field("code", "text", true);
        code.pattern = Some("[A-Z]{2}\\d{4}".into());
        code.max_length = Some(6);
        let mut age = field("age", "number", false);
        age.min = Some(18.0);
        age.max = Some(130.0);
        let mut topic = field("topic", "select", true);
        topic.options = Some(json!(["sales", "support"]));
        let fields = vec![
            code,
            field("email", "email", true),
            age,
            field("born", "date", false),
            topic,
            field("ok", "checkbox", true),
        ];
        let errors = codes(check(
            &fields,
            data(
                json!({"code": "ab12", "email": "nope", "age": 12, "born": "12/01/1990", "topic": "other", "ok": false, "extra": 1}),
            ),
        ));
        let fields_with_errors: Vec<&str> = errors.iter().map(|(f, _)| f.as_str()).collect();
        for f in ["data.extra", "data.code", "data.email", "data.age", "data.born", "data.topic", "data.ok"] {
            assert!(fields_with_errors.contains(&f), "{f} in {errors:?}");
        }
        assert!(errors.contains(&("data.age".into(), "VALIDATION_OUT_OF_RANGE".into())));

        let ok = check(
            &fields,
            data(
                json!({"code": "AB1234", "email": "a@example.org", "age": "42", "born": "1990-01-12", "topic": "sales", "ok": true}),
            ),
        );
        let ok = ok.ok().map(|c| (c.data.len(), c.indexed.len()));
        assert_eq!(ok, Some((6, 6)));
    }

    #[test]
    fn required_means_present_and_not_blank_and_types_are_strict() {
        let fields = vec![field("name", "text", true), field("note", "textarea", false)];
        assert_eq!(
            codes(check(&fields, data(json!({"name": "   "})))),
            vec![("data.name".to_string(), "VALIDATION_REQUIRED_FIELD".to_string())]
        );
        assert_eq!(
            codes(check(&fields, data(json!({"name": 5})))),
            vec![("data.name".to_string(), "VALIDATION_INVALID_FORMAT".to_string())]
        );
        let huge = "x".repeat(MAX_VALUE_CHARS + 1);
        assert_eq!(
            codes(check(&fields, data(json!({"name": "n", "note": huge})))),
            vec![("data.note".to_string(), "VALIDATION_OUT_OF_RANGE".to_string())]
        );
    }

    #[test]
    fn checkbox_groups_take_their_options_only() {
        let mut group = field("tags", "checkbox", false);
        group.options = Some(json!(["a", "b"]));
        let fields = vec![group];
        assert!(check(&fields, data(json!({"tags": ["a", "b", "a"]}))).is_ok());
        assert_eq!(codes(check(&fields, data(json!({"tags": ["c"]})))).len(), 1);
    }
}
