use sea_orm::entity::prelude::*;

/// One pageview: no address, no cookie, only a visitor hash that changes daily.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "analytics_events")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub site_id: Uuid,
    pub path: String,
    pub referrer_domain: Option<String>,
    pub visitor_hash: String,
    pub day: String,
    pub occurred_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
