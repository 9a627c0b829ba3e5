use sea_orm::entity::prelude::*;

/// A folder of a site's media library or document library; folders nest
/// through `parent_id` within one library.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "folders")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub site_id: Uuid,
    /// `media` or `documents`.
    pub library: String,
    pub parent_id: Option<Uuid>,
    pub name: String,
    pub display_order: i32,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
