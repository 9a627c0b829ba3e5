//! A page's `parent_page_id` (the origin service's page tree): a live page on
//! one of the page's sites, not the page itself nor one below it. The walk up
//! the parents is bounded, so a long or broken chain costs a fixed number of
//! key lookups.

use plinth_entities::{content, content_listing};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter};
use uuid::Uuid;

use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};

/// How many parents up a chain is followed before it is refused as too deep.
const DEEPEST: usize = 32;

fn refused(detail: &str) -> ApiError {
    ApiError::validation(vec![FieldError::new("parent_page_id", ErrorCode::ValidationInvalidFormat, detail)])
}

/// Checks `parent` for the page `page` (none yet when it is being created) on `sites`.
pub async fn check<C: ConnectionTrait>(db: &C, sites: &[Uuid], page: Option<Uuid>, parent: Uuid) -> ApiResult<()> {
    let on_a_site = content_listing::Entity::find()
        .filter(content_listing::Column::ContentId.eq(parent))
        .filter(content_listing::Column::SiteId.is_in(sites.to_vec()))
        .filter(content_listing::Column::Kind.eq("page"))
        .filter(content_listing::Column::IsDeleted.eq(false))
        .count(db)
        .await?;
    if on_a_site == 0 {
        return Err(refused("must be a live page on one of the page's sites"));
    }
    let mut at = Some(parent);
    for _ in 0..DEEPEST {
        let Some(current) = at else { return Ok(()) };
        if Some(current) == page {
            return Err(refused("a page cannot sit below itself"));
        }
        let row = content::Entity::find_by_id(current).one(db).await?;
        at = row.and_then(|r| r.fields.get("parent_page_id").and_then(|v| v.as_str()).and_then(|v| v.parse().ok()));
    }
    match at {
        None => Ok(()),
        Some(_) => Err(refused("the pages above it are more than 32 deep")),
    }
}
