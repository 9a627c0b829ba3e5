use sea_orm::entity::prelude::*;

/// Where the id of a part kept in an item's `fields` lives: the item, and the
/// part (itself, for a part; its parent for a nested entry such as a section's
/// localization or a consent group's item). See `content::parts`.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "content_part_keys")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub content_id: Uuid,
    pub part_id: Uuid,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(belongs_to = "super::content::Entity", from = "Column::ContentId", to = "super::content::Column::Id")]
    Content,
}

impl Related<super::content::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Content.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
