use sea_orm::entity::prelude::*;

/// A starting point for new posts of a site (the origin service's content
/// templates): the fields a new post is filled with.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "content_templates")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub site_id: Uuid,
    /// Unique per site.
    pub name: String,
    pub description: Option<String>,
    pub icon: String,
    pub slug_prefix: String,
    pub is_featured: bool,
    pub allow_comments: bool,
    pub title: String,
    pub subtitle: String,
    pub excerpt: String,
    pub body: String,
    pub meta_title: String,
    pub meta_description: String,
    pub is_active: bool,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(belongs_to = "super::site::Entity", from = "Column::SiteId", to = "super::site::Column::Id")]
    Site,
}

impl Related<super::site::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Site.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
