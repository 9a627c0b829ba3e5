//! A social link's `alt_text` (what a screen reader says for its icon), as the
//! origin service's admin edits it. Nullable: links made before have none.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Alias::new("social_links"))
                    .add_column(ColumnDef::new(Alias::new("alt_text")).text().null())
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter().table(Alias::new("social_links")).drop_column(Alias::new("alt_text")).to_owned(),
            )
            .await
    }
}
