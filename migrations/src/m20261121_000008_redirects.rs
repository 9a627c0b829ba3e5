//! Redirects: a site's old paths pointing somewhere else.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("redirects")
                    .col(pk_uuid("id"))
                    .col(uuid("site_id"))
                    .col(string("source_path"))
                    .col(string("destination"))
                    .col(integer("status_code"))
                    .col(boolean("is_active"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(
                        ForeignKey::create()
                            .from("redirects", "site_id")
                            .to("sites", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ux_redirects_site_source")
                    .table("redirects")
                    .col("site_id")
                    .col("source_path")
                    .unique()
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table("redirects").if_exists().to_owned()).await
    }
}
