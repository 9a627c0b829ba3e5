//! A delivery being sent names the instance that claimed it, so an instance
//! restarted after a crash takes its own in-flight deliveries back at once
//! instead of waiting out the claim lease.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Alias::new("webhook_deliveries"))
                    .add_column(ColumnDef::new(Alias::new("claimed_by")).uuid().null())
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter().table(Alias::new("webhook_deliveries")).drop_column(Alias::new("claimed_by")).to_owned(),
            )
            .await
    }
}
