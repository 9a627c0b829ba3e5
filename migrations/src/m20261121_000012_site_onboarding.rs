//! Per-user onboarding steps completed on a site.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("site_onboarding_steps")
                    .col(uuid("site_id"))
                    .col(string("idp_user_id"))
                    .col(string("step_key"))
                    .col(timestamp_with_time_zone("completed_at"))
                    .primary_key(Index::create().col("site_id").col("idp_user_id").col("step_key"))
                    .foreign_key(
                        ForeignKey::create()
                            .from("site_onboarding_steps", "site_id")
                            .to("sites", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table("site_onboarding_steps").if_exists().to_owned()).await
    }
}
