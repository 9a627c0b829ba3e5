//! Edit leases: who is editing which item, until when. A renewal is one
//! update by the item's key; a site's live leases are one index range on
//! (site_id, expires_at).

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("edit_leases")
                    .col(ColumnDef::new("item_id").uuid().not_null())
                    .col(ColumnDef::new("site_id").uuid().not_null())
                    .col(ColumnDef::new("item_type").string().not_null())
                    .col(ColumnDef::new("holder").string().not_null())
                    .col(ColumnDef::new("taken_at").timestamp_with_time_zone().not_null())
                    .col(ColumnDef::new("expires_at").timestamp_with_time_zone().not_null())
                    .primary_key(Index::create().col("item_id").col("site_id"))
                    .foreign_key(
                        ForeignKey::create()
                            .from("edit_leases", "site_id")
                            .to("sites", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
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

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table("edit_leases").if_exists().to_owned()).await
    }
}
