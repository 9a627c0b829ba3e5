//! What a content write stores beside the item's row: its site rows (slug,
//! route), categories and tags.

use plinth_entities::{content_category, content_site, content_tag};
use sea_orm::{
    ActiveEnum, ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait,
    QueryFilter, Statement,
};
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
            place_on_site(txn, kind, id, *site_id, draft).await.map_err(on_constraint(Constraint::Unique, || {
                match &draft.route {
                    Some(route) => route_taken_error(route),
                    None => slug_taken_error(kind, &draft.slug),
                }
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

/// The item's row on `site_id`, its listing columns copied from the item's
/// stored row in the same statement. A row inserted without them is filled by
/// a trigger, which on SQLite is a second write of every list index and of the
/// search entry (migration `content_sites_filled_once`).
async fn place_on_site(
    txn: &DatabaseTransaction,
    kind: ContentKind,
    id: Uuid,
    site_id: Uuid,
    draft: &Draft,
) -> Result<(), sea_orm::DbErr> {
    let backend = txn.get_database_backend();
    let copied = plinth_migrations::CONTENT_SITES_COPIED.join(", ");
    let p = |n| crate::db::placeholder(backend, n);
    let sql = format!(
        "INSERT INTO content_sites (content_id, site_id, kind, slug, route, {copied}) \
         SELECT {}, {}, {}, {}, {}, {copied} FROM contents WHERE id = {}",
        p(1),
        p(2),
        p(3),
        p(4),
        p(5),
        p(6)
    );
    let values: [sea_orm::Value; 6] = [
        id.into(),
        site_id.into(),
        kind.to_value().into(),
        draft.slug.clone().into(),
        draft.route.clone().into(),
        id.into(),
    ];
    let placed = txn.execute_raw(Statement::from_sql_and_values(backend, sql, values)).await?;
    match placed.rows_affected() {
        1 => Ok(()),
        _ => Err(sea_orm::DbErr::RecordNotInserted),
    }
}

pub(super) fn slug_taken_error(kind: ContentKind, slug: &str) -> ApiError {
    ApiError::slug_taken(kind.as_str(), slug)
}

pub(super) fn route_taken_error(route: &str) -> ApiError {
    ApiError::entity(ErrorCode::EntitySlugTaken, "page", format!("the route '{route}' is already used by another page"))
}
