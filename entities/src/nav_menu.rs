use sea_orm::entity::prelude::*;

/// A named navigation menu of a site (`main`, `footer`, …).
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "nav_menus")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub site_id: Uuid,
    pub name: String,
    pub slug: String,
    /// What the menu is for; none when not set.
    #[serde(default)]
    pub description: Option<String>,
    /// How many levels of items it may hold (1 to 10).
    #[serde(default = "crate::values::menu_depth_max")]
    pub max_depth: i32,
    /// Shown by the site.
    #[serde(default = "crate::values::yes")]
    pub is_active: bool,
    /// Localized names: `{"de": "Hauptmenü"}`.
    #[serde(default = "crate::values::empty_object")]
    pub names: Json,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub deleted_at: Option<DateTimeUtc>,
    pub is_deleted: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
