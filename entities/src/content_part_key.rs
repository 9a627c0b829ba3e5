use sea_orm::entity::prelude::*;

/// Where a page section or section localization id lives: its page (the
/// sections themselves are in the page's `fields`) and its section (itself,
/// for a section).
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "page_section_keys")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub page_id: Uuid,
    pub section_id: Uuid,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(belongs_to = "super::content::Entity", from = "Column::PageId", to = "super::content::Column::Id")]
    Page,
}

impl Related<super::content::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Page.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
