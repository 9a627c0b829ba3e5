use sea_orm::entity::prelude::*;

/// A site export: queued, running, ready (an archive in storage until
/// `expires_at`) or failed.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "export_jobs")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub site_id: Uuid,
    pub status: crate::values::ExportStatus,
    pub storage_key: Option<String>,
    pub size: Option<i64>,
    pub error: Option<String>,
    pub created_by: Option<crate::actor::Actor>,
    pub created_at: DateTimeUtc,
    pub started_at: Option<DateTimeUtc>,
    pub built_at: Option<DateTimeUtc>,
    pub expires_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
