//! Social links of a site (soft-deleted, so they pass through the trash).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("social_links")
                    .col(pk_uuid("id"))
                    .col(uuid("site_id"))
                    .col(string("platform"))
                    .col(string("url"))
                    .col(string("label"))
                    .col(integer("display_order"))
                    .col(boolean("is_active"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .col(timestamp_with_time_zone_null("deleted_at"))
                    .col(boolean("is_deleted"))
                    .foreign_key(
                        ForeignKey::create()
                            .from("social_links", "site_id")
                            .to("sites", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_social_links_site")
                    .table("social_links")
                    .col("site_id")
                    .col("display_order")
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table("social_links").if_exists().to_owned()).await
    }
}
