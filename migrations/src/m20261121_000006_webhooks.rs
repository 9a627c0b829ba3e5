//! Webhooks, their delivery queue (deliveries are claimed from here, never only
//! held in memory), the log of every attempt, and debounce buffers.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

fn cascade(from_table: &'static str, from_col: &'static str, to_table: &'static str) -> ForeignKeyCreateStatement {
    ForeignKey::create().from(from_table, from_col).to(to_table, "id").on_delete(ForeignKeyAction::Cascade).to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("webhooks")
                    .col(pk_uuid("id"))
                    .col(uuid("site_id"))
                    .col(string("url"))
                    .col(string("secret"))
                    .col(text("description"))
                    // JSON array of event names; empty = every event.
                    .col(json_binary("events"))
                    .col(boolean("is_active"))
                    .col(integer("debounce_seconds"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut cascade("webhooks", "site_id", "sites"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(Index::create().name("ix_webhooks_site").table("webhooks").col("site_id").to_owned())
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("webhook_deliveries")
                    .col(pk_uuid("id"))
                    .col(uuid("webhook_id"))
                    .col(uuid("site_id"))
                    .col(string("event"))
                    .col(text("payload"))
                    // pending, success, failed (will retry), dead
                    .col(string("status"))
                    .col(integer("attempts"))
                    .col(timestamp_with_time_zone_null("next_attempt_at"))
                    .col(integer_null("last_status_code"))
                    .col(text_null("last_error"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut cascade("webhook_deliveries", "webhook_id", "webhooks"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_webhook_deliveries_due")
                    .table("webhook_deliveries")
                    .col("status")
                    .col("next_attempt_at")
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_webhook_deliveries_webhook")
                    .table("webhook_deliveries")
                    .col("webhook_id")
                    .col("created_at")
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("webhook_attempts")
                    .col(pk_uuid("id"))
                    .col(uuid("delivery_id"))
                    .col(uuid("webhook_id"))
                    .col(string("event"))
                    .col(integer("attempt"))
                    .col(boolean("success"))
                    .col(integer_null("status_code"))
                    .col(big_integer("duration_ms"))
                    .col(text_null("error"))
                    .col(text_null("response_excerpt"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut cascade("webhook_attempts", "delivery_id", "webhook_deliveries"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_webhook_attempts_webhook")
                    .table("webhook_attempts")
                    .col("webhook_id")
                    .col("created_at")
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("webhook_buffers")
                    // Batches list events in the order they were buffered.
                    .col(big_pk_auto("seq"))
                    .col(uuid("webhook_id"))
                    .col(string("event"))
                    .col(json_binary("data"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut cascade("webhook_buffers", "webhook_id", "webhooks"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_webhook_buffers_webhook")
                    .table("webhook_buffers")
                    .col("webhook_id")
                    .col("created_at")
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in ["webhook_buffers", "webhook_attempts", "webhook_deliveries", "webhooks"] {
            manager.drop_table(Table::drop().table(table).if_exists().to_owned()).await?;
        }
        Ok(())
    }
}
