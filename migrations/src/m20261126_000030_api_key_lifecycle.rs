//! An API key's life beyond create and revoke, as the origin service's admin
//! manages it: a description, an expiry, a block (with its reason) that can be
//! lifted, and when the key was last changed.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The columns added, each nullable (a key made before this migration has no
/// description, never expires, is not blocked, and was last changed when made).
fn columns() -> [ColumnDef; 5] {
    [
        ColumnDef::new(Alias::new("description")).text().null().to_owned(),
        ColumnDef::new(Alias::new("expires_at")).timestamp_with_time_zone().null().to_owned(),
        ColumnDef::new(Alias::new("blocked_at")).timestamp_with_time_zone().null().to_owned(),
        ColumnDef::new(Alias::new("blocked_reason")).text().null().to_owned(),
        ColumnDef::new(Alias::new("updated_at")).timestamp_with_time_zone().null().to_owned(),
    ]
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite's ALTER TABLE adds one at a time.
        for column in columns() {
            manager.alter_table(Table::alter().table(Alias::new("api_keys")).add_column(column).to_owned()).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in columns() {
            manager
                .alter_table(
                    Table::alter()
                        .table(Alias::new("api_keys"))
                        .drop_column(Alias::new(column.get_column_name()))
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
