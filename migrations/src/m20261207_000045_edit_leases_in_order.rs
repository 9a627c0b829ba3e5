//! A site's live leases in the order they are listed (`leases::live_on_site`:
//! soonest to end first, then by item): with `item_id` in the index, the list
//! is one range read in its order, with no sort of the ties.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_index(Index::drop().name("ix_edit_leases_site").table("edit_leases").to_owned()).await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_edit_leases_site")
                    .table("edit_leases")
                    .col("site_id")
                    .col("expires_at")
                    .col("item_id")
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_index(Index::drop().name("ix_edit_leases_site").table("edit_leases").to_owned()).await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_edit_leases_site")
                    .table("edit_leases")
                    .col("site_id")
                    .col("expires_at")
                    .to_owned(),
            )
            .await
    }
}
