use sea_orm::entity::prelude::*;

/// An event waiting in a debounced webhook's window; flushed as one batch.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "webhook_buffers")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub seq: i64,
    pub webhook_id: Uuid,
    pub event: String,
    pub data: Json,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
