//! A legal document's type, in the origin service's spelling, and its consent groups (the origin service's cookie-consent
//! model: groups such as "analytics", each with its items, the cookies it
//! covers), kept in the document's `fields` as `groups` with an id per group
//! and per item (parts, see `content::parts`), so that the origin's admin can
//! address one (`/legal/groups/{id}`, `/legal/items/{id}`).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use super::part_keys::{self, Ids, KeyRow};
use crate::error::{ErrorCode, FieldError};

/// Groups one document may have…
pub const MAX_GROUPS: usize = 50;
/// …and items one group.
pub const MAX_ITEMS: usize = 100;
/// The highest `display_order` and the longest `cookie_name` (the origin's limits).
pub const MAX_DISPLAY_ORDER: i32 = 9999;
const MAX_NAME_CHARS: usize = 100;

/// What a legal document is, answered in the origin service's spelling (its
/// admin's form accepts only these); stored as [`LegalDocumentType::stored`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub enum LegalDocumentType {
    Imprint,
    #[serde(rename = "PrivacyPolicy")]
    Privacy,
    #[serde(rename = "TermsOfService")]
    Terms,
    #[serde(rename = "CookieConsent")]
    Cookies,
    Disclaimer,
    Other,
}

impl LegalDocumentType {
    /// The stored value (in `fields` and as the item's subtype), unchanged
    /// since documents were first stored.
    pub fn stored(self) -> &'static str {
        match self {
            LegalDocumentType::Imprint => "imprint",
            LegalDocumentType::Privacy => "privacy",
            LegalDocumentType::Terms => "terms",
            LegalDocumentType::Cookies => "cookies",
            LegalDocumentType::Disclaimer => "disclaimer",
            LegalDocumentType::Other => "other",
        }
    }
}

crate::lenient_enum!(LegalDocumentType {
    LegalDocumentType::Imprint => ["Imprint"],
    LegalDocumentType::Privacy => ["PrivacyPolicy", "privacy"],
    LegalDocumentType::Terms => ["TermsOfService", "terms"],
    LegalDocumentType::Cookies => ["CookieConsent", "cookies", "cookie"],
    LegalDocumentType::Disclaimer => ["Disclaimer"],
    LegalDocumentType::Other => ["Other"],
});

/// A group of consent: what a visitor accepts or refuses at once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ConsentGroup {
    /// The group's id. Given back, an id of one of the document's groups keeps it; omitted (or any other) a new
    /// one is given.
    #[serde(default)]
    pub id: Option<Uuid>,
    /// The group's name, 1 to 100 characters (e.g. `analytics_cookies`).
    // Read as empty when missing, so the 422 names the field; the document
    // says it is required, which is what the check makes it.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(min_length = 1, max_length = 100, required = true)]
    pub cookie_name: String,
    /// Where the group sits among the document's groups, 0 to 9999 (groups are kept in this order); the position
    /// in the list when omitted.
    #[serde(default)]
    #[schema(minimum = 0, maximum = 9999)]
    pub display_order: Option<i32>,
    /// A visitor cannot refuse it (false when omitted).
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub is_required: bool,
    /// Accepted until the visitor says otherwise (false when omitted).
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub default_enabled: bool,
    /// The group's items, in `display_order` (at most 100).
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub items: Vec<ConsentItem>,
}

/// One item of a consent group: a cookie or a service it covers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ConsentItem {
    /// Kept when given back with its group; new otherwise.
    #[serde(default)]
    pub id: Option<Uuid>,
    /// The item's name, 1 to 100 characters (e.g. `_ga`); required, as the group's.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(min_length = 1, max_length = 100, required = true)]
    pub cookie_name: String,
    /// 0 to 9999; the position in the list when omitted.
    #[serde(default)]
    #[schema(minimum = 0, maximum = 9999)]
    pub display_order: Option<i32>,
    /// A visitor cannot refuse it (false when omitted).
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub is_required: bool,
}

/// The groups stored in a document's `fields` (none when it has none or they
/// are unreadable).
pub fn stored(fields: &Value) -> Vec<ConsentGroup> {
    fields.get("groups").and_then(|g| serde_json::from_value(g.clone()).ok()).unwrap_or_default()
}

fn ids_of(groups: &[ConsentGroup]) -> impl Iterator<Item = Uuid> + '_ {
    groups.iter().flat_map(|g| g.id.into_iter().chain(g.items.iter().filter_map(|i| i.id)))
}

/// `given` checked and put in order for storing over `current` (the
/// document's stored fields; `None` for a new one): own ids stay, other
/// entries get new ones; a missing `display_order` is the position in the
/// list; groups and each group's items sorted by it.
pub fn normalize(given: &[ConsentGroup], current: Option<&Value>) -> Result<Vec<ConsentGroup>, Vec<FieldError>> {
    if given.len() > MAX_GROUPS {
        let detail = format!("at most {MAX_GROUPS} groups");
        return Err(vec![FieldError::new("groups", ErrorCode::ValidationOutOfRange, detail)]);
    }
    let mut errors = Vec::new();
    let mut ids = Ids::keeping(current.map(|fields| ids_of(&stored(fields)).collect()).unwrap_or_default());
    let mut groups = given.to_vec();
    for (index, group) in groups.iter_mut().enumerate() {
        let at = format!("groups[{index}]");
        group.id = Some(ids.give(group.id));
        entry(&at, &mut group.cookie_name, &mut group.display_order, index, &mut errors);
        if group.items.len() > MAX_ITEMS {
            let detail = format!("at most {MAX_ITEMS} items");
            errors.push(FieldError::new(format!("{at}.items"), ErrorCode::ValidationOutOfRange, detail));
        }
        for (n, item) in group.items.iter_mut().enumerate() {
            item.id = Some(ids.give(item.id));
            entry(&format!("{at}.items[{n}]"), &mut item.cookie_name, &mut item.display_order, n, &mut errors);
        }
        // Stable sorts: entries of one `display_order` keep the list's order.
        group.items.sort_by_key(|i| i.display_order);
    }
    groups.sort_by_key(|g| g.display_order);
    if errors.is_empty() {
        Ok(groups)
    } else {
        Err(errors)
    }
}

/// The checks a group and an item share: a name of 1 to 100 characters, an
/// order of 0 to 9999 (the position when missing).
fn entry(at: &str, name: &mut String, order: &mut Option<i32>, position: usize, errors: &mut Vec<FieldError>) {
    *name = name.trim().to_string();
    if name.is_empty() {
        errors.push(FieldError::new(
            format!("{at}.cookie_name"),
            ErrorCode::ValidationRequiredField,
            "must not be empty",
        ));
    } else if let Err(e) = crate::values::bounded_text(&format!("{at}.cookie_name"), name, MAX_NAME_CHARS) {
        errors.push(e);
    }
    let value = order.unwrap_or(position.min(MAX_DISPLAY_ORDER as usize) as i32);
    if !(0..=MAX_DISPLAY_ORDER).contains(&value) {
        let detail = format!("must be 0 to {MAX_DISPLAY_ORDER}");
        errors.push(FieldError::new(format!("{at}.display_order"), ErrorCode::ValidationOutOfRange, detail));
    }
    *order = Some(value);
}

/// New ids for every group and item of a document's `fields` (a copy, a new
/// version, an import).
pub fn renew_ids(fields: &mut Value) {
    let Some(map) = fields.as_object_mut() else { return };
    let Some(Ok(mut groups)) = map.get("groups").map(|g| serde_json::from_value::<Vec<ConsentGroup>>(g.clone())) else {
        return;
    };
    for group in &mut groups {
        group.id = Some(Uuid::new_v4());
        group.items.iter_mut().for_each(|item| item.id = Some(Uuid::new_v4()));
    }
    if let Ok(value) = serde_json::to_value(&groups) {
        map.insert("groups".into(), value);
    }
}

/// The key rows of a document's groups (one per group and item).
pub fn keys(document_id: Uuid, fields: &Value) -> Vec<KeyRow> {
    let mut rows = Vec::new();
    for group in stored(fields) {
        let Some(group_id) = group.id else { continue };
        let items = group.items.iter().filter_map(|i| i.id);
        rows.extend(std::iter::once(group_id).chain(items).map(|id| part_keys::key(id, document_id, group_id)));
    }
    rows
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn groups_and_items_get_ids_orders_and_their_sorted_places() {
        let own = Uuid::new_v4();
        let stored_fields = json!({"groups": [{"id": own, "cookie_name": "analytics"}]});
        let given: Vec<ConsentGroup> = serde_json::from_value(json!([
            {"cookie_name": " marketing ", "display_order": 7, "items": [
                {"cookie_name": "b", "display_order": 2}, {"cookie_name": "a", "display_order": 1}
            ]},
            {"id": own, "cookie_name": "analytics", "display_order": 3, "is_required": true}
        ]))
        .unwrap();
        let groups = normalize(&given, Some(&stored_fields)).unwrap();
        assert_eq!(groups[0].id, Some(own), "the document's own group keeps its id");
        assert_eq!(groups[1].cookie_name, "marketing");
        assert_eq!(groups[1].items.iter().map(|i| i.cookie_name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        let fields = json!({"groups": groups});
        assert_eq!(keys(Uuid::new_v4(), &fields).len(), 4, "two groups and two items");
    }

    #[test]
    fn empty_names_and_orders_out_of_range_are_refused() {
        let given: Vec<ConsentGroup> = serde_json::from_value(json!([
            {"cookie_name": ""},
            {"cookie_name": "x", "display_order": 10000, "items": [{"cookie_name": "y".repeat(101)}]}
        ]))
        .unwrap();
        let fields: Vec<String> = normalize(&given, None).unwrap_err().into_iter().map(|e| e.field).collect();
        assert_eq!(fields, ["groups[0].cookie_name", "groups[1].display_order", "groups[1].items[0].cookie_name"]);
    }

    #[test]
    fn renewed_ids_are_all_new() {
        let mut fields = json!({"groups": [{"id": Uuid::new_v4(), "cookie_name": "g", "items": [
            {"id": Uuid::new_v4(), "cookie_name": "i"}
        ]}]});
        let before: Vec<Uuid> = ids_of(&stored(&fields)).collect();
        renew_ids(&mut fields);
        let after: Vec<Uuid> = ids_of(&stored(&fields)).collect();
        assert_eq!(after.len(), 2);
        assert!(after.iter().all(|id| !before.contains(id)));
    }
}
