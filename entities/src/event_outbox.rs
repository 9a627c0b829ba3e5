use sea_orm::entity::prelude::*;

/// An event written with the change that caused it, waiting for the dispatcher.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "event_outbox")]
pub struct Model {
    /// Assigned by the database in commit order of inserts: the event order.
    #[sea_orm(primary_key)]
    pub seq: i64,
    pub site_id: Uuid,
    pub event: String,
    pub data: Json,
    pub occurred_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
