use sea_orm::entity::prelude::*;

/// Views and unique visitors of one path (or `*`, the whole site) on one day.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "analytics_daily")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub site_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub day: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub path: String,
    pub views: i64,
    pub unique_visitors: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
