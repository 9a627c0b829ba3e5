use sea_orm::entity::prelude::*;

/// A locale assigned to a site. Exactly one assignment per site is the default.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "site_locales")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub site_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub locale_id: Uuid,
    pub is_default: bool,
    pub is_active: bool,
    pub url_prefix: String,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(belongs_to = "super::locale::Entity", from = "Column::LocaleId", to = "super::locale::Column::Id")]
    Locale,
    #[sea_orm(belongs_to = "super::site::Entity", from = "Column::SiteId", to = "super::site::Column::Id")]
    Site,
}

impl Related<super::locale::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Locale.def()
    }
}

impl Related<super::site::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Site.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
