//! Running several instances on one database: `job_leases` lets exactly one
//! instance at a time run a periodic job (scheduled publishing, purges,
//! retention, debounce flushes, exports), and `event_stream` keeps the events
//! that left the outbox for a bounded time, numbered in commit order, so live
//! event streams on every instance read the same sequence and a reconnecting
//! client resumes from its last id.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("job_leases")
                    .col(string("name").primary_key())
                    .col(uuid("holder"))
                    .col(timestamp_with_time_zone("expires_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("event_stream")
                    // Assigned while appends are serialized (one writer on SQLite,
                    // an advisory lock on PostgreSQL), so ids grow in commit order.
                    .col(big_pk_auto("seq"))
                    .col(big_integer("outbox_seq"))
                    .col(uuid("site_id"))
                    .col(string("event"))
                    .col(json_binary("data"))
                    .col(timestamp_with_time_zone("occurred_at"))
                    .col(timestamp_with_time_zone("streamed_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_event_stream_site_seq")
                    .table("event_stream")
                    .col("site_id")
                    .col("seq")
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create().name("ix_event_stream_streamed").table("event_stream").col("streamed_at").to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table("event_stream").if_exists().to_owned()).await?;
        manager.drop_table(Table::drop().table("job_leases").if_exists().to_owned()).await
    }
}
