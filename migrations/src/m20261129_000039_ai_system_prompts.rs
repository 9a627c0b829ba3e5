//! A site's own instructions for each content-assist action (`seo`,
//! `excerpt`, `translate`, `draft_outline`, `draft_post`), as the origin
//! service's admin edits them with the AI settings. Null: the defaults.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Alias::new("ai_settings"))
                    .add_column(ColumnDef::new(Alias::new("system_prompts")).json_binary().null())
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter().table(Alias::new("ai_settings")).drop_column(Alias::new("system_prompts")).to_owned(),
            )
            .await
    }
}
