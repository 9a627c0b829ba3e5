//! Each content kind's schemas in the OpenAPI document: its list item
//! (`PageListItem`, `CvEntryListItem`, …: the shared `ContentListItem` and the
//! fields of that kind that a list item carries) and its create and update
//! bodies (`CreatePage`, `UpdateSkill`, …: the shared bodies without the
//! other kinds' fields, which the server refuses), referred to by the
//! operations of that kind's paths. The handlers are documented once (as
//! blogs) and mounted per kind, so the kinds' schemas are put in afterwards.

use serde_json::{json, Value};
use utoipa::openapi::{OpenApi, RefOr, Schema};

use super::ContentKind;

/// The kind whose operations live under the path segment `segment`.
fn kind_of_segment(segment: &str) -> Option<ContentKind> {
    Some(match segment {
        "blogs" => ContentKind::Blog,
        "pages" => ContentKind::Page,
        "cv" => ContentKind::CvEntry,
        "projects" => ContentKind::Project,
        "legal" => ContentKind::Legal,
        "skills" => ContentKind::Skill,
        _ => return None,
    })
}

/// `shared` (a create or update body) without the fields of other kinds; a
/// CV entry is created with a `start_date`.
fn body_of_kind(shared: &Value, kind: ContentKind, create: bool) -> Value {
    let mut body = shared.clone();
    if create && kind == ContentKind::CvEntry {
        if let Some(required) = body.get_mut("required").and_then(Value::as_array_mut) {
            required.push(json!("start_date"));
        } else {
            body["required"] = json!(["start_date"]);
        }
        // Required, so not null either.
        if let Some(start) = body.pointer_mut("/properties/start_date") {
            start["type"] = json!("string");
        }
        // The shared example (a post) gains what a CV entry needs.
        if let Some(example) = body.get_mut("example").and_then(Value::as_object_mut) {
            example.insert("start_date".into(), json!("2021-03-01"));
        }
    }
    let allowed = super::validate::allowed_fields(kind);
    let foreign = |field: &str| super::validate::KIND_FIELDS.contains(&field) && !allowed.contains(&field);
    if let Some(properties) = body.get_mut("properties").and_then(Value::as_object_mut) {
        properties.retain(|field, _| !foreign(field));
    }
    if let Some(required) = body.get_mut("required").and_then(Value::as_array_mut) {
        required.retain(|field| field.as_str().is_none_or(|f| !foreign(f)));
    }
    body
}

/// A kind's path segment, its schema name and the properties its list items
/// add to `ContentListItem` (what `content::model::kind_fields` puts there).
fn kinds() -> [(&'static str, &'static str, Value); 6] {
    let date = |description: &str| json!({"type": "string", "format": "date", "description": description});
    [
        (
            "blogs",
            "Blog",
            json!({
                "allow_comments": {"type": "boolean", "description": "Whether the site shows comments (true unless set)"},
                "reading_time_minutes": {"type": ["integer", "null"], "minimum": 0, "maximum": 32767, "description": "Minutes to read it; null when not given"}
            }),
        ),
        (
            "pages",
            "Page",
            json!({
                "route": {"type": "string", "description": "The page's route, e.g. `/about/team`"},
                "page_type": {"type": "string", "enum": ["Static", "Landing", "Contact", "BlogIndex", "Custom"], "description": "What the page is for (Static unless set)"},
                "template": {"type": ["string", "null"], "description": "The template a front end renders it with"},
                "is_in_navigation": {"type": "boolean", "description": "Listed in the site's navigation"},
                "navigation_order": {"type": ["integer", "null"], "description": "Its place in the navigation"},
                "parent_page_id": {"type": ["string", "null"], "format": "uuid", "description": "The page above it"}
            }),
        ),
        (
            "cv",
            "CvEntry",
            json!({
                "entry_type": {"$ref": "#/components/schemas/CvEntryType", "description": "What kind of entry"},
                "organization": {"type": "string", "description": "Employer, school, …; empty when not given"},
                "start_date": date("First day"),
                // Stored as null when not given (`validate::kind_data`).
                "end_date": {"type": ["string", "null"], "format": "date", "description": "Last day; null while `is_current` or when not given"},
                "is_current": {"type": "boolean", "description": "Still ongoing"}
            }),
        ),
        (
            "projects",
            "Project",
            json!({
                "client": {"type": "string", "description": "Who the work was for"},
                "links": {"type": "array", "items": {"$ref": "#/components/schemas/ProjectLink"}, "description": "Links to the work, the repository, …"},
                "media_ids": {"type": "array", "items": {"type": "string", "format": "uuid"}, "description": "Gallery media ids"}
            }),
        ),
        (
            "legal",
            "Legal",
            json!({"document_type": {"$ref": "#/components/schemas/LegalDocumentType", "description": "What kind of legal document"}}),
        ),
        (
            "skills",
            "Skill",
            json!({
                "name": {"type": "string", "description": "The skill's name (its title)"},
                "category": {"type": "string", "description": "A grouping such as `languages`; empty when not given"},
                // Stored as null when not given (`validate::kind_data`).
                "proficiency": {"type": ["integer", "null"], "minimum": 0, "maximum": 100, "description": "0 to 100; null when not given"}
            }),
        ),
    ]
}

/// Adds `{Kind}ListItem` and `Paginated_{Kind}ListItem` for every kind and
/// points each kind's operations at them instead of the shared schemas.
pub fn document_kind_list_items(openapi: &mut OpenApi) {
    let Some(components) = openapi.components.as_mut() else { return };
    let Some(shared_page) = components.schemas.get("Paginated_ContentListItem").cloned() else { return };
    let shared_page = serde_json::to_value(&shared_page).unwrap_or_default();
    for (_, name, properties) in kinds() {
        let item = json!({
            "description": format!("A {name} in a list: the shared list item and the fields of its kind."),
            "allOf": [{"$ref": "#/components/schemas/ContentListItem"}, {"type": "object", "properties": properties}]
        });
        if let Ok(item) = serde_json::from_value::<RefOr<Schema>>(item) {
            components.schemas.insert(format!("{name}ListItem"), item);
        }
        // The shared page holds its items inline (a generic's argument).
        let mut page = shared_page.clone();
        page["properties"]["data"]["items"] = json!({"$ref": format!("#/components/schemas/{name}ListItem")});
        if let Ok(page) = serde_json::from_value::<RefOr<Schema>>(page) {
            components.schemas.insert(format!("Paginated_{name}ListItem"), page);
        }
    }
    let shared_bodies: Vec<(&str, Value)> = ["CreateContent", "UpdateContent"]
        .into_iter()
        .filter_map(|shared| Some((shared, serde_json::to_value(components.schemas.get(shared)?).ok()?)))
        .collect();
    for (segment, name, _) in kinds() {
        let Some(kind) = kind_of_segment(segment) else { continue };
        for (shared, body) in &shared_bodies {
            let verb = shared.trim_end_matches("Content");
            let create = *shared == "CreateContent";
            if let Ok(body) = serde_json::from_value::<RefOr<Schema>>(body_of_kind(body, kind, create)) {
                components.schemas.insert(format!("{verb}{name}"), body);
            }
        }
    }
    for (path, item) in openapi.paths.paths.iter_mut() {
        let Some((_, name, _)) = kinds().into_iter().find(|(segment, _, _)| path.split('/').any(|s| s == *segment))
        else {
            continue;
        };
        let kind_schema = |shared: &str| match shared {
            "Paginated_ContentListItem" => Some(format!("Paginated_{name}ListItem")),
            "ContentListItem" => Some(format!("{name}ListItem")),
            "CreateContent" => Some(format!("Create{name}")),
            "UpdateContent" => Some(format!("Update{name}")),
            _ => None,
        };
        for op in
            [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch].into_iter().flatten()
        {
            let bodies = op.request_body.iter_mut().flat_map(|body| body.content.values_mut());
            let answers = op.responses.responses.values_mut().flat_map(|response| match response {
                RefOr::T(response) => Some(response.content.values_mut()),
                RefOr::Ref(_) => None,
            });
            for content in bodies.chain(answers.flatten()) {
                if let Some(schema) = content.schema.as_mut() {
                    point_at(schema, &kind_schema);
                }
            }
        }
    }
}

/// `schema` with every reference to a shared schema that `kind_schema` renames
/// pointed at the kind's own.
fn point_at(schema: &mut RefOr<Schema>, kind_schema: &impl Fn(&str) -> Option<String>) {
    use utoipa::openapi::schema::ArrayItems;
    match schema {
        RefOr::Ref(reference) => {
            let shared = reference.ref_location.trim_start_matches("#/components/schemas/");
            if let Some(own) = kind_schema(shared) {
                reference.ref_location = format!("#/components/schemas/{own}");
            }
        }
        RefOr::T(Schema::Array(array)) => {
            if let ArrayItems::RefOrSchema(items) = &mut array.items {
                point_at(items, kind_schema);
            }
        }
        RefOr::T(Schema::Object(object)) => object.properties.values_mut().for_each(|p| point_at(p, kind_schema)),
        RefOr::T(Schema::AllOf(all)) => all.items.iter_mut().for_each(|s| point_at(s, kind_schema)),
        RefOr::T(Schema::OneOf(one)) => one.items.iter_mut().for_each(|s| point_at(s, kind_schema)),
        RefOr::T(Schema::AnyOf(any)) => any.items.iter_mut().for_each(|s| point_at(s, kind_schema)),
        RefOr::T(_) => {}
    }
}
