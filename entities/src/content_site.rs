use sea_orm::entity::prelude::*;

/// A content item's presence on one site, with its slug there.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "content_sites")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub content_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub site_id: Uuid,
    pub kind: crate::kinds::ContentKind,
    pub slug: String,
    /// Pages only: the public path, unique per site.
    pub route: Option<String>,
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
