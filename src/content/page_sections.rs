//! A page's sections: its layout, kept in the page's `fields` with an id per
//! section and per section localization (parts, see `content::parts`), so
//! that the origin service's admin can address one (`/pages/sections/{id}`).

use std::collections::{HashMap, HashSet};

use plinth_entities::{locale, site_locale};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};

/// Sections one page may have.
pub const MAX_SECTIONS: usize = 100;
/// Localizations one section may have (one per locale).
pub const MAX_SECTION_LOCALIZATIONS: usize = 50;
/// The highest `display_order` (the origin's limit).
pub const MAX_DISPLAY_ORDER: i32 = 9999;
/// The largest `settings` object, serialized, and its deepest nesting.
const MAX_SETTINGS_BYTES: usize = 16 * 1024;
const MAX_SETTINGS_DEPTH: usize = 5;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PageSection {
    /// The section's id. Given back, an id of one of the page's sections keeps
    /// it; omitted (or any other id) a new one is given.
    #[serde(default)]
    pub id: Option<Uuid>,
    /// What kind of section (free text such as Hero, Features, Cta, Gallery, Testimonials, Pricing, Faq, Contact,
    /// Custom; empty when omitted), at most 100 characters.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(max_length = 100)]
    pub section_type: String,
    /// The section's title; empty when omitted. At most 500 characters.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(max_length = 500)]
    pub title: String,
    /// The section's text; empty when omitted. At most 100,000 characters.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(max_length = 100000)]
    pub body: String,
    /// A media file shown with the section; null for none.
    #[serde(default)]
    pub cover_image_id: Option<Uuid>,
    /// Where the section sits among the page's sections, 0 to 9999 (sections are kept in this order); the
    /// position in the list when omitted.
    #[serde(default)]
    #[schema(minimum = 0, maximum = 9999)]
    pub display_order: Option<i32>,
    /// Where the section's button leads (a path or URL), at most 500 characters; null for none.
    #[serde(default)]
    #[schema(max_length = 500)]
    pub call_to_action_route: Option<String>,
    /// Free settings of the section: a JSON object, at most 16 KiB and 5 levels deep; null for none.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub settings: Option<Value>,
    /// The section's texts per locale, at most one per locale of the page's sites (at most 50).
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub localizations: Vec<SectionLocalization>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SectionLocalization {
    /// Kept when given back with its section; new otherwise.
    #[serde(default)]
    pub id: Option<Uuid>,
    /// A locale of one of the page's sites.
    pub locale_id: Uuid,
    /// The locale's code, filled in by the server (an export names locales by code).
    #[serde(default)]
    pub locale: Option<String>,
    /// At most 500 characters; null for none.
    #[serde(default)]
    #[schema(max_length = 500)]
    pub title: Option<String>,
    /// At most 100,000 characters; null for none.
    #[serde(default)]
    #[schema(max_length = 100000)]
    pub text: Option<String>,
    /// At most 200 characters; null for none.
    #[serde(default)]
    #[schema(max_length = 200)]
    pub button_text: Option<String>,
}

/// The sections stored in a page's `fields` (none when it has none or they
/// are unreadable).
pub fn stored(fields: &Value) -> Vec<PageSection> {
    fields.get("sections").and_then(|s| serde_json::from_value(s.clone()).ok()).unwrap_or_default()
}

/// Every id a page's stored sections and their localizations hold.
fn ids_of(sections: &[PageSection]) -> HashSet<Uuid> {
    sections.iter().flat_map(|s| s.id.into_iter().chain(s.localizations.iter().filter_map(|l| l.id))).collect()
}

/// `given` checked and put in order for storing over `current` (the page's
/// stored fields; `None` for a new page): each id that is one of the page's
/// own stays, every other section and localization gets a new one; a missing
/// `display_order` is the position in the list; sections sorted by it.
pub fn normalize(given: &[PageSection], current: Option<&Value>) -> Result<Vec<PageSection>, Vec<FieldError>> {
    let mut errors = Vec::new();
    if given.len() > MAX_SECTIONS {
        let detail = format!("at most {MAX_SECTIONS} sections");
        return Err(vec![FieldError::new("sections", ErrorCode::ValidationOutOfRange, detail)]);
    }
    let mut ids = super::part_keys::Ids::keeping(current.map(|fields| ids_of(&stored(fields))).unwrap_or_default());
    let mut sections = Vec::with_capacity(given.len());
    for (index, section) in given.iter().enumerate() {
        let at = |field: &str| format!("sections[{index}].{field}");
        let mut section = section.clone();
        section.id = Some(ids.give(section.id));
        section.section_type = section.section_type.trim().to_string();
        check_length(&at("section_type"), &section.section_type, 100, &mut errors);
        check_length(&at("title"), &section.title, 500, &mut errors);
        check_length(&at("body"), &section.body, 100_000, &mut errors);
        let order = section.display_order.unwrap_or(index as i32);
        if !(0..=MAX_DISPLAY_ORDER).contains(&order) {
            let detail = format!("must be 0 to {MAX_DISPLAY_ORDER}");
            errors.push(FieldError::new(at("display_order"), ErrorCode::ValidationOutOfRange, detail));
        }
        section.display_order = Some(order);
        section.call_to_action_route =
            section.call_to_action_route.map(|r| r.trim().to_string()).filter(|r| !r.is_empty());
        if let Some(route) = &section.call_to_action_route {
            check_length(&at("call_to_action_route"), route, 500, &mut errors);
        }
        if let Some(settings) = &section.settings {
            check_settings(&at("settings"), settings, &mut errors);
        }
        if section.settings.as_ref().is_some_and(Value::is_null) {
            section.settings = None;
        }
        if section.localizations.len() > MAX_SECTION_LOCALIZATIONS {
            let detail = format!("at most {MAX_SECTION_LOCALIZATIONS}, one per locale");
            errors.push(FieldError::new(at("localizations"), ErrorCode::ValidationOutOfRange, detail));
        }
        let mut locales = HashSet::new();
        for (n, text) in section.localizations.iter_mut().enumerate() {
            let at = |field: &str| format!("sections[{index}].localizations[{n}].{field}");
            text.id = Some(ids.give(text.id));
            if !locales.insert(text.locale_id) {
                errors.push(FieldError::new(at("locale_id"), ErrorCode::ValidationInvalidFormat, "one per locale"));
            }
            for (field, value, max) in
                [("title", &text.title, 500), ("text", &text.text, 100_000), ("button_text", &text.button_text, 200)]
            {
                if let Some(value) = value {
                    check_length(&at(field), value, max, &mut errors);
                }
            }
        }
        sections.push(section);
    }
    // A stable sort: sections of one `display_order` keep the list's order.
    sections.sort_by_key(|s| s.display_order);
    if errors.is_empty() {
        Ok(sections)
    } else {
        Err(errors)
    }
}

fn check_length(field: &str, value: &str, max: usize, errors: &mut Vec<FieldError>) {
    if let Err(e) = crate::values::bounded_text(field, value, max) {
        errors.push(e);
    }
}

fn check_settings(field: &str, settings: &Value, errors: &mut Vec<FieldError>) {
    fn depth(value: &Value) -> usize {
        match value {
            Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
            Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
            _ => 0,
        }
    }
    if !(settings.is_object() || settings.is_null()) {
        errors.push(FieldError::new(field, ErrorCode::ValidationInvalidFormat, "must be a JSON object"));
    } else if depth(settings) > MAX_SETTINGS_DEPTH {
        let detail = format!("at most {MAX_SETTINGS_DEPTH} levels deep");
        errors.push(FieldError::new(field, ErrorCode::ValidationOutOfRange, detail));
    } else if serde_json::to_vec(settings).map_or(0, |b| b.len()) > MAX_SETTINGS_BYTES {
        let detail = format!("at most {} KiB", MAX_SETTINGS_BYTES / 1024);
        errors.push(FieldError::new(field, ErrorCode::ValidationOutOfRange, detail));
    }
}

/// Checks, inside the write's transaction, that every section localization
/// names a locale of one of `site_ids`, and writes each locale's code beside
/// its id.
pub async fn check_locales<C: ConnectionTrait>(
    db: &C,
    site_ids: &[Uuid],
    sections: &mut [PageSection],
) -> ApiResult<()> {
    if sections.iter().all(|s| s.localizations.is_empty()) {
        return Ok(());
    }
    let codes: HashMap<Uuid, String> = site_locale::Entity::find()
        .select_only()
        .column(site_locale::Column::LocaleId)
        .column(locale::Column::Code)
        .inner_join(locale::Entity)
        .filter(site_locale::Column::SiteId.is_in(site_ids.to_vec()))
        .into_tuple::<(Uuid, String)>()
        .all(db)
        .await?
        .into_iter()
        .collect();
    let mut errors = Vec::new();
    for (index, section) in sections.iter_mut().enumerate() {
        for (n, text) in section.localizations.iter_mut().enumerate() {
            match codes.get(&text.locale_id) {
                Some(code) => text.locale = Some(code.clone()),
                None => errors.push(FieldError::new(
                    format!("sections[{index}].localizations[{n}].locale_id"),
                    ErrorCode::ValidationInvalidFormat,
                    "not a locale of the page's sites",
                )),
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ApiError::validation(errors))
    }
}

/// New ids for every section and localization of a page's `fields` (a copy,
/// an import); localizations kept only where `locale_of` knows their code
/// (an imported site's locales are found by code).
pub fn renew_ids(fields: &mut Value, locale_of: impl Fn(&SectionLocalization) -> Option<Uuid>) {
    let Some(stored_sections) = fields.get("sections").filter(|s| s.is_array()) else { return };
    let Ok(mut sections) = serde_json::from_value::<Vec<PageSection>>(stored_sections.clone()) else { return };
    for section in &mut sections {
        section.id = Some(Uuid::new_v4());
        section.localizations.retain_mut(|text| match locale_of(text) {
            Some(locale_id) => {
                text.id = Some(Uuid::new_v4());
                text.locale_id = locale_id;
                true
            }
            None => false,
        });
    }
    if let (Some(map), Ok(value)) = (fields.as_object_mut(), serde_json::to_value(&sections)) {
        map.insert("sections".into(), value);
    }
}

/// The key rows of a page's sections (one per section and localization).
pub fn keys(page_id: Uuid, fields: &Value) -> Vec<super::part_keys::KeyRow> {
    let mut rows = Vec::new();
    for section in stored(fields) {
        let Some(section_id) = section.id else { continue };
        let texts = section.localizations.iter().filter_map(|l| l.id);
        rows.extend(std::iter::once(section_id).chain(texts).map(|id| super::part_keys::key(id, page_id, section_id)));
    }
    rows
}

/// [`check_locales`] over the sections stored in a page's `fields`, written
/// back with each locale's code.
pub async fn check_stored_locales<C: ConnectionTrait>(db: &C, site_ids: &[Uuid], fields: &mut Value) -> ApiResult<()> {
    let mut sections = stored(fields);
    check_locales(db, site_ids, &mut sections).await?;
    if let Some(map) = fields.as_object_mut() {
        map.insert("sections".into(), serde_json::to_value(&sections).unwrap_or_default());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn section(id: Option<Uuid>, order: Option<i32>) -> PageSection {
        serde_json::from_value(json!({"id": id, "display_order": order, "section_type": "Hero"})).unwrap()
    }

    #[test]
    fn own_ids_stay_others_are_renewed_and_sections_sort_by_display_order() {
        let own = Uuid::new_v4();
        let stored = json!({"sections": [{"id": own, "section_type": "Hero"}]});
        let foreign = Uuid::new_v4();
        let given = [section(Some(foreign), Some(5)), section(Some(own), Some(1)), section(None, None)];
        let out = normalize(&given, Some(&stored)).unwrap();
        assert_eq!(out.iter().map(|s| s.display_order.unwrap()).collect::<Vec<_>>(), [1, 2, 5]);
        assert_eq!(out[0].id, Some(own), "the page's own id is kept");
        assert!(out[2].id.is_some_and(|id| id != foreign), "another page's id is not taken");
        // The same own id twice: the second is new.
        let twice = normalize(&[section(Some(own), None), section(Some(own), None)], Some(&stored)).unwrap();
        assert_ne!(twice[0].id, twice[1].id);
    }

    #[test]
    fn bad_orders_settings_and_repeated_locales_are_refused() {
        let locale = Uuid::new_v4();
        let deep = json!({"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}});
        let given: Vec<PageSection> = serde_json::from_value(json!([
            {"display_order": 10000},
            {"settings": [1, 2]},
            {"settings": deep},
            {"localizations": [{"locale_id": locale}, {"locale_id": locale}]}
        ]))
        .unwrap();
        let fields: Vec<String> = normalize(&given, None).unwrap_err().into_iter().map(|e| e.field).collect();
        assert_eq!(
            fields,
            [
                "sections[0].display_order",
                "sections[1].settings",
                "sections[2].settings",
                "sections[3].localizations[1].locale_id"
            ]
        );
    }

    #[test]
    fn renewed_ids_are_new_and_unknown_locales_are_dropped() {
        let (kept, dropped) = (Uuid::new_v4(), Uuid::new_v4());
        let mut fields = json!({"sections": [{"id": Uuid::new_v4(), "localizations": [
            {"id": Uuid::new_v4(), "locale_id": kept, "locale": "en"},
            {"id": Uuid::new_v4(), "locale_id": dropped, "locale": "xx"}
        ]}]});
        let before = fields.clone();
        let new_locale = Uuid::new_v4();
        renew_ids(&mut fields, |l| (l.locale.as_deref() == Some("en")).then_some(new_locale));
        let after = stored(&fields);
        assert_ne!(after[0].id, stored(&before)[0].id);
        assert_eq!(after[0].localizations.len(), 1);
        assert_eq!(after[0].localizations[0].locale_id, new_locale);
        assert_eq!(keys(Uuid::new_v4(), &fields).len(), 2, "a key for the section and one for its text");
    }
}
