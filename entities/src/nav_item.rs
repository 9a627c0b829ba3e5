use sea_orm::entity::prelude::*;

/// An entry of a menu: a URL or a content item, optionally under a parent item.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "nav_items")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub menu_id: Uuid,
    pub site_id: Uuid,
    pub parent_id: Option<Uuid>,
    pub label: String,
    /// Localized labels: `{"de": "Über uns"}`.
    pub labels: Json,
    pub url: Option<String>,
    pub content_id: Option<Uuid>,
    pub display_order: i32,
    /// An icon name the site shows beside the label; none when not set.
    #[serde(default)]
    pub icon: Option<String>,
    /// The link opens in a new tab.
    #[serde(default)]
    pub open_in_new_tab: bool,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub deleted_at: Option<DateTimeUtc>,
    pub is_deleted: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
