//! Per-locale names of categories and tags.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("term_localizations")
                    .col(pk_uuid("id"))
                    .col(uuid("term_id"))
                    .col(uuid("locale_id"))
                    .col(string("name"))
                    .col(text("description"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(
                        ForeignKey::create()
                            .from("term_localizations", "term_id")
                            .to("terms", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from("term_localizations", "locale_id")
                            .to("locales", "id")
                            .on_delete(ForeignKeyAction::Restrict),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ux_term_localizations")
                    .table("term_localizations")
                    .col("term_id")
                    .col("locale_id")
                    .unique()
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table("term_localizations").if_exists().to_owned()).await
    }
}
