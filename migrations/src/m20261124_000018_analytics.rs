//! Privacy-first analytics: raw pageviews (no address, no cookie: a daily
//! visitor hash and the referrer's domain only) and their daily rollups.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("analytics_events")
                    .col(pk_auto("id").big_integer())
                    .col(uuid("site_id"))
                    .col(string("path"))
                    .col(string_null("referrer_domain"))
                    .col(string("visitor_hash"))
                    // `YYYY-MM-DD` (UTC): what rollups and reports group by.
                    .col(string("day"))
                    .col(timestamp_with_time_zone("occurred_at"))
                    .foreign_key(
                        ForeignKey::create()
                            .from("analytics_events", "site_id")
                            .to("sites", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_analytics_events_site_day")
                    .table("analytics_events")
                    .col("site_id")
                    .col("day")
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("analytics_daily")
                    .col(uuid("site_id"))
                    .col(string("day"))
                    // A path, or `*` for the whole site that day.
                    .col(string("path"))
                    .col(big_integer("views"))
                    .col(big_integer("unique_visitors"))
                    .primary_key(Index::create().col("site_id").col("day").col("path"))
                    .foreign_key(
                        ForeignKey::create()
                            .from("analytics_daily", "site_id")
                            .to("sites", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table("analytics_daily").if_exists().to_owned()).await?;
        manager.drop_table(Table::drop().table("analytics_events").if_exists().to_owned()).await
    }
}
