//! The event outbox: events are written in the same transaction as the change
//! that caused them, so an event exists exactly when its change does; the
//! webhook dispatcher turns rows into deliveries and removes them.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("event_outbox")
                    // The order events happened in: delivery order follows it.
                    .col(big_pk_auto("seq"))
                    .col(uuid("site_id"))
                    .col(string("event"))
                    .col(json_binary("data"))
                    .col(timestamp_with_time_zone("occurred_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create().name("ix_event_outbox_occurred").table("event_outbox").col("occurred_at").to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table("event_outbox").if_exists().to_owned()).await
    }
}
