use sea_orm::entity::prelude::*;

/// An event that left the outbox, kept for the replay window of live streams.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "event_stream")]
pub struct Model {
    /// Grows in commit order: the `id:` of the event on a live stream.
    #[sea_orm(primary_key)]
    pub seq: i64,
    pub outbox_seq: i64,
    pub site_id: Uuid,
    pub event: String,
    pub data: Json,
    pub occurred_at: DateTimeUtc,
    pub streamed_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
