use sea_orm::entity::prelude::*;

/// How many of a site's items have one kind, subtype (`''` for none), status
/// and deletion; kept by triggers on `content_sites` (migration
/// `content_listing`), so list totals are sums over a few rows. Read only.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "content_counts")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub site_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub kind: crate::kinds::ContentKind,
    #[sea_orm(primary_key, auto_increment = false)]
    pub subtype: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub status: crate::values::ContentStatus,
    #[sea_orm(primary_key, auto_increment = false)]
    pub is_deleted: bool,
    pub n: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
