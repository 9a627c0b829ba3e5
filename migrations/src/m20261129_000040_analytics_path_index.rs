//! One path's raw pageviews by day (`GET …/analytics/report/page`): without
//! it the page report walked every pageview of the site's period
//! (`ix_analytics_events_site_day`) to keep one path's; with it, a range of
//! that path's entries.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_index(
                Index::create()
                    .name("ix_analytics_events_site_path_day")
                    .table(Alias::new("analytics_events"))
                    .col(Alias::new("site_id"))
                    .col(Alias::new("path"))
                    .col(Alias::new("day"))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("ix_analytics_events_site_path_day")
                    .table(Alias::new("analytics_events"))
                    .to_owned(),
            )
            .await
    }
}
