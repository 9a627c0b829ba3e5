use sea_orm::entity::prelude::*;

/// A site's row of an item (`content_sites`) as lists read it: with the copies
/// of the item's status, deletion, subtype, featured flag, title and times that
/// the database keeps (migration `content_listing`: triggers fill them on
/// insert and copy every change of the item). Read only: written through
/// `content_site` and `content`.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "content_sites")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub content_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub site_id: Uuid,
    pub kind: crate::kinds::ContentKind,
    pub slug: String,
    pub route: Option<String>,
    pub status: crate::values::ContentStatus,
    pub is_deleted: bool,
    pub subtype: Option<String>,
    pub is_featured: bool,
    pub title: String,
    pub created_at: Option<DateTimeUtc>,
    pub updated_at: Option<DateTimeUtc>,
    pub published_at: Option<DateTimeUtc>,
    pub deleted_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
