//! Environments: a site's named deployment targets (production, staging, …),
//! each with its own base URL for preview links.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("environments")
                    .col(pk_uuid("id"))
                    .col(uuid("site_id"))
                    .col(string("name"))
                    .col(string_null("base_url"))
                    .col(boolean("is_default"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(
                        ForeignKey::create()
                            .from("environments", "site_id")
                            .to("sites", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ux_environments_site_name")
                    .table("environments")
                    .col("site_id")
                    .col("name")
                    .unique()
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table("environments").if_exists().to_owned()).await
    }
}
