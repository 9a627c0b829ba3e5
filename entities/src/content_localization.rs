use sea_orm::entity::prelude::*;

/// A content item's text in one locale.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "content_localizations")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub content_id: Uuid,
    pub locale_id: Uuid,
    pub title: String,
    /// A line under the title; empty when not set. (Archives taken before it
    /// was kept read as empty.)
    #[serde(default)]
    pub subtitle: String,
    pub excerpt: String,
    pub body: String,
    pub meta_title: String,
    pub meta_description: String,
    #[serde(default)]
    pub translation_status: crate::values::TranslationStatus,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
