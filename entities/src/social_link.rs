use sea_orm::entity::prelude::*;

/// A link to the site's profile on another platform.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "social_links")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub site_id: Uuid,
    /// Lowercase platform name: `github`, `mastodon`, …
    pub platform: String,
    pub url: String,
    pub label: String,
    /// What a screen reader says for the link's icon.
    pub alt_text: Option<String>,
    pub display_order: i32,
    pub is_active: bool,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub deleted_at: Option<DateTimeUtc>,
    pub is_deleted: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
