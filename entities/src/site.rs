use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "sites")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub name: String,
    #[sea_orm(unique)]
    pub slug: String,
    pub description: String,
    pub base_url: Option<String>,
    pub is_active: bool,
    pub logo_url: Option<String>,
    pub favicon_url: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    /// Set when the site is soft-deleted; the 30-day restore window starts here.
    pub deleted_at: Option<DateTimeUtc>,
    /// Set while an import writes the site batch by batch (renewed by each):
    /// the site is in no lookup or list until it is complete. One whose lease
    /// ran out was left by a stopped import and is deleted.
    #[serde(default)]
    pub import_lease_until: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
