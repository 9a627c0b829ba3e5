//! Input checks shared by create, update and clone.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use plinth_entities::{content_site, term};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter};
use uuid::Uuid;

use super::model::PageSection;
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

/// `publish_end` must come after `publish_start`.
pub fn publish_window(start: Option<DateTime<Utc>>, end: Option<DateTime<Utc>>) -> ApiResult<()> {
    if let (Some(start), Some(end)) = (start, end) {
        if end <= start {
            return Err(ApiError::new(ErrorCode::ContentPublishDateInvalid, "publish_end must be after publish_start"));
        }
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

pub fn kind_fields(
    kind: ContentKind,
    route: Option<&String>,
    sections: Option<&Vec<PageSection>>,
    errors: &mut Vec<FieldError>,
) {
    if kind != ContentKind::Page {
        if route.is_some() {
            errors.push(FieldError::new(
                "route",
                ErrorCode::ValidationInvalidFormat,
                format!("a {} has no route", kind.as_str()),
            ));
        }
        if sections.is_some() {
            errors.push(FieldError::new(
                "sections",
                ErrorCode::ValidationInvalidFormat,
                format!("a {} has no sections", kind.as_str()),
            ));
        }
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
