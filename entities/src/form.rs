use sea_orm::entity::prelude::*;

/// A form of a site: its settings; fields and localizations sit in their own tables.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "forms")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub site_id: Uuid,
    pub slug: String,
    pub name: String,
    pub description: Option<String>,
    pub is_active: bool,
    pub requires_consent: bool,
    /// none, optional, mandatory
    pub bot_protection: String,
    /// simple, queryable
    pub storage_mode: String,
    pub retention_days: Option<i32>,
    pub created_by: Option<crate::actor::Actor>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub deleted_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
