//! Input checks shared by create, update and clone.

use std::collections::HashSet;

use chrono::{DateTime, NaiveDate, Utc};
use plinth_entities::{content_site, term};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde_json::{json, Value};
use uuid::Uuid;

use super::kind_input::KindInput;
use super::model::{CvEntryType, LegalDocumentType};
use super::{ContentKind, ContentStatus};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};

pub const TITLE_MAX: usize = 300;

pub fn site_ids(field: &str, ids: &[Uuid], errors: &mut Vec<FieldError>) {
    if ids.is_empty() {
        errors.push(FieldError::new(field, ErrorCode::ValidationRequiredField, "name at least one site"));
    }
    if ids.iter().collect::<HashSet<_>>().len() != ids.len() {
        errors.push(FieldError::new(field, ErrorCode::ValidationInvalidFormat, "a site is listed twice"));
    }
}

/// An item's texts that may span lines (`excerpt`, `body`), where given: no
/// control character but TAB, LF and CR (`values::text`).
pub fn texts(excerpt: Option<&str>, body: Option<&str>, errors: &mut Vec<FieldError>) {
    for (field, value) in [("excerpt", excerpt), ("body", body)] {
        if let Some(Err(e)) = value.map(|v| crate::values::text(field, v)) {
            errors.push(e);
        }
    }
}

/// `publish_end` must come after `publish_start`.
pub fn publish_window(start: Option<DateTime<Utc>>, end: Option<DateTime<Utc>>) -> ApiResult<()> {
    if let (Some(start), Some(end)) = (start, end) {
        if end <= start {
            return Err(ApiError::new(ErrorCode::ContentPublishDateInvalid, "publish_end must be after publish_start"));
        }
    }
    Ok(())
}

/// What publishing needs beyond the lifecycle: a legal document must have a
/// title and a body.
pub fn publishable(kind: ContentKind, title: &str, body: &str) -> ApiResult<()> {
    if kind != ContentKind::Legal {
        return Ok(());
    }
    if title.trim().is_empty() {
        return Err(ApiError::new(
            ErrorCode::LegalPublishMissingTitle,
            "a legal document needs a title before it is published",
        ));
    }
    if body.trim().is_empty() {
        return Err(ApiError::new(
            ErrorCode::LegalPublishMissingBody,
            "a legal document needs its text (body) before it is published",
        ));
    }
    Ok(())
}

/// Scheduled needs a future `publish_start`.
pub fn schedule(status: ContentStatus, start: Option<DateTime<Utc>>, now: DateTime<Utc>) -> ApiResult<()> {
    if status == ContentStatus::Scheduled && start.is_none_or(|s| s <= now) {
        return Err(ApiError::new(
            ErrorCode::ContentInvalidStatus,
            "Scheduled content needs a publish_start in the future",
        ));
    }
    Ok(())
}

/// A page route: `/` or `/segment[/segment…]`.
pub fn route(raw: &str) -> Result<String, FieldError> {
    let ok = raw == "/"
        || (raw.starts_with('/')
            && raw.len() <= 200
            && raw[1..].split('/').all(|s| {
                !s.is_empty() && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
            }));
    if ok {
        Ok(raw.to_string())
    } else {
        Err(FieldError::new("route", ErrorCode::ValidationInvalidFormat, "must be a path such as /about/team"))
    }
}

/// Every field that belongs to one kind or another: what `allowed_fields`
/// hands out (the OpenAPI document leaves the others' out of each kind's bodies).
pub(crate) const KIND_FIELDS: [&str; 21] = [
    "route",
    "sections",
    "entry_type",
    "organization",
    "start_date",
    "end_date",
    "is_current",
    "links",
    "client",
    "media_ids",
    "document_type",
    "groups",
    "category",
    "proficiency",
    "allow_comments",
    "reading_time_minutes",
    "page_type",
    "template",
    "is_in_navigation",
    "navigation_order",
    "parent_page_id",
];

/// The longest reading time a blog may give, in minutes (the origin's 16-bit column).
const READING_TIME_MAX: i64 = 32767;

/// The fields each kind may carry (besides the shared ones).
pub(crate) fn allowed_fields(kind: ContentKind) -> &'static [&'static str] {
    match kind {
        ContentKind::Blog => &["allow_comments", "reading_time_minutes"],
        ContentKind::Page => {
            &["route", "sections", "page_type", "template", "is_in_navigation", "navigation_order", "parent_page_id"]
        }
        ContentKind::CvEntry => &["entry_type", "organization", "start_date", "end_date", "is_current"],
        ContentKind::Project => &["links", "client", "media_ids"],
        ContentKind::Legal => &["document_type", "groups"],
        ContentKind::Skill => &["category", "proficiency"],
    }
}

/// Checks a kind's own fields and lays the given ones over `current` (the stored
/// `fields` object): returns the object to store and the item's subtype.
pub fn kind_data(
    kind: ContentKind,
    route_given: bool,
    input: &KindInput,
    current: Option<&Value>,
) -> Result<(Value, Option<String>), Vec<FieldError>> {
    let mut errors = Vec::new();
    // Destructured whole, so a field added to `KindInput` is a compile error
    // here until it is listed (and checked against the kinds that have it).
    let KindInput {
        sections,
        entry_type,
        organization,
        start_date,
        end_date,
        is_current,
        links,
        client,
        media_ids,
        document_type,
        groups,
        category,
        proficiency,
        allow_comments,
        reading_time_minutes,
        page_type,
        template,
        is_in_navigation,
        navigation_order,
        parent_page_id,
    } = input;
    let given = [
        ("route", route_given),
        ("sections", sections.is_some()),
        ("entry_type", entry_type.is_some()),
        ("organization", organization.is_some()),
        ("start_date", start_date.is_some()),
        ("end_date", end_date.is_some()),
        ("is_current", is_current.is_some()),
        ("links", links.is_some()),
        ("client", client.is_some()),
        ("media_ids", media_ids.is_some()),
        ("document_type", document_type.is_some()),
        ("groups", groups.is_some()),
        ("category", category.is_some()),
        ("proficiency", proficiency.is_some()),
        ("allow_comments", allow_comments.is_some()),
        ("reading_time_minutes", reading_time_minutes.is_some()),
        ("page_type", page_type.is_some()),
        ("template", template.is_some()),
        ("is_in_navigation", is_in_navigation.is_some()),
        ("navigation_order", navigation_order.is_some()),
        ("parent_page_id", parent_page_id.is_some()),
    ];
    for (field, present) in given {
        if present && !allowed_fields(kind).contains(&field) {
            errors.push(FieldError::new(
                field,
                ErrorCode::ValidationInvalidFormat,
                format!("a {} has no {field}", kind.as_str()),
            ));
        }
    }
    let mut fields = current.and_then(Value::as_object).cloned().unwrap_or_default();
    let mut put = |name: &str, value: Value| {
        fields.insert(name.to_string(), value);
    };
    if let Some(sections) = &input.sections {
        match super::page_sections::normalize(sections, current) {
            Ok(sections) => put("sections", json!(sections)),
            Err(mut refused) => errors.append(&mut refused),
        }
    }
    if let Some(entry_type) = input.entry_type {
        put("entry_type", json!(entry_type));
    }
    if let Some(organization) = &input.organization {
        put("organization", json!(organization.trim()));
    }
    if let Some(start) = input.start_date {
        put("start_date", json!(start));
    }
    if let Some(end) = input.end_date {
        put("end_date", json!(end));
    }
    if let Some(current) = input.is_current {
        put("is_current", json!(current));
    }
    if let Some(links) = &input.links {
        for (i, link) in links.iter().enumerate() {
            if let Err(e) = crate::values::link_target(&format!("links[{i}].url"), &link.url, false) {
                errors.push(e);
            }
        }
        put("links", json!(links));
    }
    if let Some(client) = &input.client {
        put("client", json!(client.trim()));
    }
    if let Some(media_ids) = &input.media_ids {
        put("media_ids", json!(media_ids));
    }
    if let Some(document_type) = input.document_type {
        put("document_type", json!(document_type.stored()));
    }
    if let Some(groups) = &input.groups {
        match super::legal_consent::normalize(groups, current) {
            Ok(groups) => put("groups", json!(groups)),
            Err(mut refused) => errors.append(&mut refused),
        }
    }
    if let Some(category) = &input.category {
        put("category", json!(category.trim()));
    }
    if let Some(proficiency) = input.proficiency {
        if (0..=100).contains(&proficiency) {
            put("proficiency", json!(proficiency));
        } else {
            errors.push(FieldError::new("proficiency", ErrorCode::ValidationOutOfRange, "must be 0 to 100"));
        }
    }
    if let Some(allow) = input.allow_comments {
        put("allow_comments", json!(allow));
    }
    match input.reading_time_minutes {
        Some(Some(minutes)) if !(0..=READING_TIME_MAX).contains(&minutes) => errors.push(FieldError::new(
            "reading_time_minutes",
            ErrorCode::ValidationOutOfRange,
            format!("must be 0 to {READING_TIME_MAX}"),
        )),
        Some(minutes) => put("reading_time_minutes", json!(minutes)),
        None => {}
    }
    if let Some(page_type) = input.page_type {
        put("page_type", json!(page_type));
    }
    if let Some(template) = &input.template {
        match crate::values::optional_line("template", template.as_deref(), 100) {
            Ok(template) => put("template", json!(template)),
            Err(e) => errors.push(e),
        }
    }
    if let Some(listed) = input.is_in_navigation {
        put("is_in_navigation", json!(listed));
    }
    if let Some(order) = input.navigation_order {
        put("navigation_order", json!(order));
    }
    // Where the parent is and what is below the page are checked in the
    // write's transaction (`page_parent`).
    if let Some(parent) = input.parent_page_id {
        put("parent_page_id", json!(parent));
    }
    let mut subtype = None;
    if kind == ContentKind::Skill {
        fields.entry("category").or_insert_with(|| json!(""));
        fields.entry("proficiency").or_insert(Value::Null);
        subtype = fields.get("category").and_then(Value::as_str).filter(|c| !c.is_empty()).map(str::to_string);
    }
    if kind == ContentKind::Legal {
        // The spec lists no legal body: an untyped document is `other`.
        let document_type = fields.entry("document_type").or_insert_with(|| json!(LegalDocumentType::Other.stored()));
        subtype = document_type.as_str().map(str::to_string);
        fields.entry("version").or_insert(json!(1));
    }
    if kind == ContentKind::CvEntry {
        // `work` when not given, as in the service the spec was written from.
        let entry_type = fields.entry("entry_type").or_insert_with(|| json!(CvEntryType::Work));
        let entry_type = entry_type.as_str().map(str::to_string);
        let start: Option<NaiveDate> = fields.get("start_date").and_then(|v| serde_json::from_value(v.clone()).ok());
        let end: Option<NaiveDate> = fields.get("end_date").and_then(|v| serde_json::from_value(v.clone()).ok());
        let is_current = fields.get("is_current").and_then(Value::as_bool).unwrap_or(false);
        fields.insert("is_current".into(), json!(is_current));
        fields.entry("organization").or_insert_with(|| json!(""));
        fields.entry("end_date").or_insert(Value::Null);
        match (start, end) {
            (None, _) => errors.push(FieldError::new(
                "start_date",
                ErrorCode::ValidationRequiredField,
                "a CV entry needs a start_date",
            )),
            (Some(_), Some(_)) if is_current => errors.push(FieldError::new(
                "end_date",
                ErrorCode::ValidationInvalidFormat,
                "a current entry has no end_date",
            )),
            (Some(start), Some(end)) if end < start => errors.push(FieldError::new(
                "end_date",
                ErrorCode::ValidationOutOfRange,
                "end_date must not be before start_date",
            )),
            _ => {}
        }
        subtype = entry_type;
    }
    if errors.is_empty() {
        Ok((Value::Object(fields), subtype))
    } else {
        Err(errors)
    }
}

/// Is `slug` (or `route`, for pages) used by another item of `kind` on any of the sites?
pub async fn slug_taken<C: ConnectionTrait>(
    db: &C,
    kind: ContentKind,
    site_ids: &[Uuid],
    slug: &str,
    exclude: Option<Uuid>,
) -> ApiResult<bool> {
    let mut query = content_site::Entity::find()
        .filter(content_site::Column::Kind.eq(kind.as_str()))
        .filter(content_site::Column::SiteId.is_in(site_ids.to_vec()))
        .filter(content_site::Column::Slug.eq(slug));
    if let Some(id) = exclude {
        query = query.filter(content_site::Column::ContentId.ne(id));
    }
    Ok(query.count(db).await? > 0)
}

pub async fn route_taken<C: ConnectionTrait>(
    db: &C,
    site_ids: &[Uuid],
    route: &str,
    exclude: Option<Uuid>,
) -> ApiResult<bool> {
    let mut query = content_site::Entity::find()
        .filter(content_site::Column::Kind.eq(ContentKind::Page.as_str()))
        .filter(content_site::Column::SiteId.is_in(site_ids.to_vec()))
        .filter(content_site::Column::Route.eq(route));
    if let Some(id) = exclude {
        query = query.filter(content_site::Column::ContentId.ne(id));
    }
    Ok(query.count(db).await? > 0)
}

/// Categories and tags must exist on one of the item's sites; the primary
/// category must be one of the categories.
pub async fn taxonomy<C: ConnectionTrait>(
    db: &C,
    site_ids: &[Uuid],
    category_ids: &[Uuid],
    primary: Option<Uuid>,
    tag_ids: &[Uuid],
) -> ApiResult<()> {
    let mut errors = Vec::new();
    if !category_ids.is_empty() {
        let found = term::Entity::find()
            .filter(term::Column::Id.is_in(category_ids.to_vec()))
            .filter(term::Column::Taxonomy.eq("category"))
            .filter(term::Column::SiteId.is_in(site_ids.to_vec()))
            .count(db)
            .await?;
        if found as usize != category_ids.iter().collect::<HashSet<_>>().len() {
            errors.push(FieldError::new(
                "category_ids",
                ErrorCode::ValidationInvalidFormat,
                "every category must exist on one of the item's sites",
            ));
        }
    }
    if primary.is_some_and(|p| !category_ids.contains(&p)) {
        errors.push(FieldError::new(
            "primary_category_id",
            ErrorCode::ValidationInvalidFormat,
            "must be one of category_ids",
        ));
    }
    if !tag_ids.is_empty() {
        let found = term::Entity::find()
            .filter(term::Column::Id.is_in(tag_ids.to_vec()))
            .filter(term::Column::Taxonomy.eq("tag"))
            .filter(term::Column::SiteId.is_in(site_ids.to_vec()))
            .count(db)
            .await?;
        if found as usize != tag_ids.iter().collect::<HashSet<_>>().len() {
            errors.push(FieldError::new(
                "tag_ids",
                ErrorCode::ValidationInvalidFormat,
                "every tag must exist on one of the item's sites",
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ApiError::validation(errors))
    }
}

#[cfg(test)]
mod kind_field_tests {
    use super::*;

    #[test]
    fn kind_fields_are_exactly_the_fields_some_kind_allows() {
        let mut allowed: Vec<&str> =
            ContentKind::ALL.into_iter().flat_map(|k| allowed_fields(k).iter().copied()).collect();
        allowed.sort_unstable();
        let mut listed = KIND_FIELDS.to_vec();
        listed.sort_unstable();
        assert_eq!(allowed, listed);
    }
}
