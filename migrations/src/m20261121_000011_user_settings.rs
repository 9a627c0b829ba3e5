//! Per-user settings of identity-provider users: preferences, help state, onboarding.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("user_settings")
                    .col(string("idp_user_id").primary_key())
                    .col(json_binary("preferences"))
                    .col(json_binary("help_state"))
                    .col(json_binary("onboarding"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table("user_settings").if_exists().to_owned()).await
    }
}
