//! A content localization's `subtitle` and `translation_status`, as the origin
//! service's admin edits them. Existing rows get an empty subtitle and
//! `Pending`, the origin's default for a new translation.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

fn columns() -> [ColumnDef; 2] {
    [
        ColumnDef::new(Alias::new("subtitle")).text().not_null().default("").to_owned(),
        ColumnDef::new(Alias::new("translation_status")).text().not_null().default("Pending").to_owned(),
    ]
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite's ALTER TABLE adds one at a time.
        for column in columns() {
            manager
                .alter_table(Table::alter().table(Alias::new("content_localizations")).add_column(column).to_owned())
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in columns() {
            let name = Alias::new(column.get_column_name());
            manager
                .alter_table(Table::alter().table(Alias::new("content_localizations")).drop_column(name).to_owned())
                .await?;
        }
        Ok(())
    }
}
