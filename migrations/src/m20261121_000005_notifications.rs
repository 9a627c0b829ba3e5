//! In-app notifications for identity-provider users.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("notifications")
                    .col(pk_uuid("id"))
                    .col(string("idp_user_id"))
                    .col(uuid_null("site_id"))
                    .col(string("kind"))
                    .col(string("title"))
                    .col(text("body"))
                    .col(string_null("entity_type"))
                    .col(string_null("entity_id"))
                    .col(timestamp_with_time_zone_null("read_at"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(
                        ForeignKey::create()
                            .from("notifications", "site_id")
                            .to("sites", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_notifications_user")
                    .table("notifications")
                    .col("idp_user_id")
                    .col("created_at")
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table("notifications").if_exists().to_owned()).await
    }
}
