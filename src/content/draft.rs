//! What a content write stores beside the item's row: its site rows (slug,
//! route), categories and tags.

use plinth_entities::{content_category, content_site, content_tag};
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, DatabaseTransaction, EntityTrait, QueryFilter};
use uuid::Uuid;

use super::ContentKind;
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode};

/// An item's relations as they will be stored; `None` leaves a set untouched.
pub(super) struct Draft {
    pub(super) site_ids: Vec<Uuid>,
    pub(super) slug: String,
    pub(super) route: Option<String>,
    pub(super) category_ids: Option<Vec<Uuid>>,
    pub(super) primary_category_id: Option<Uuid>,
    pub(super) tag_ids: Option<Vec<Uuid>>,
}

/// How [`store_relations`] treats the rows already there.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Existing {
    /// A new item: there is nothing to replace.
    New,
    /// An existing item: its site rows are replaced too.
    ReplaceSites,
    /// An existing item whose sites stay.
    KeepSites,
}

/// Writes the item's site rows (slug, route), categories and tags.
pub(super) async fn store_relations(
    txn: &DatabaseTransaction,
    kind: ContentKind,
    id: Uuid,
    draft: &Draft,
    existing: Existing,
) -> ApiResult<()> {
    let fresh = existing == Existing::New;
    if existing != Existing::KeepSites {
        if !fresh {
            content_site::Entity::delete_many().filter(content_site::Column::ContentId.eq(id)).exec(txn).await?;
        }
        for site_id in &draft.site_ids {
            content_site::ActiveModel {
                content_id: Set(id),
                site_id: Set(*site_id),
                kind: Set(kind),
                slug: Set(draft.slug.clone()),
                route: Set(draft.route.clone()),
            }
            .insert(txn)
            .await
            .map_err(on_constraint(Constraint::Unique, || match &draft.route {
                Some(route) => route_taken_error(route),
                None => slug_taken_error(kind, &draft.slug),
            }))?;
        }
    }
    if let Some(category_ids) = &draft.category_ids {
        if !fresh {
            content_category::Entity::delete_many()
                .filter(content_category::Column::ContentId.eq(id))
                .exec(txn)
                .await?;
        }
        for category_id in category_ids {
            content_category::ActiveModel {
                content_id: Set(id),
                category_id: Set(*category_id),
                is_primary: Set(draft.primary_category_id == Some(*category_id)),
            }
            .insert(txn)
            .await?;
        }
    }
    if let Some(tag_ids) = &draft.tag_ids {
        if !fresh {
            content_tag::Entity::delete_many().filter(content_tag::Column::ContentId.eq(id)).exec(txn).await?;
        }
        for tag_id in tag_ids {
            content_tag::ActiveModel { content_id: Set(id), tag_id: Set(*tag_id) }.insert(txn).await?;
        }
    }
    Ok(())
}

pub(super) fn slug_taken_error(kind: ContentKind, slug: &str) -> ApiError {
    ApiError::slug_taken(kind.as_str(), slug)
}

pub(super) fn route_taken_error(route: &str) -> ApiError {
    ApiError::entity(ErrorCode::EntitySlugTaken, "page", format!("the route '{route}' is already used by another page"))
}
