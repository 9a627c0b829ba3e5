//! Moderation state of identity-provider users (absent row: active).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("user_moderation")
                    .col(string("idp_user_id").primary_key())
                    .col(string("status"))
                    .col(text_null("reason"))
                    .col(timestamp_with_time_zone_null("expires_at"))
                    .col(string("updated_by"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table("user_moderation").if_exists().to_owned()).await
    }
}
