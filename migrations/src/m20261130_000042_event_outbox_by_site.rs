//! The outbox by site: the dispatcher takes each site's oldest events in turn
//! (`webhooks::outbox_turns`), so one site's backlog does not hold another
//! site's events; both the sites with events and each site's oldest are index
//! range scans on (site_id, seq).

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_index(
                Index::create()
                    .name("ix_event_outbox_site_seq")
                    .table("event_outbox")
                    .col("site_id")
                    .col("seq")
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_index(Index::drop().name("ix_event_outbox_site_seq").table("event_outbox").to_owned()).await
    }
}
