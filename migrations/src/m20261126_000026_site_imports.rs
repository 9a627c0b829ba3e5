//! A site being imported is written in batches (a 100,000-post archive must not
//! hold SQLite's one writer for the whole import) behind `import_lease_until`:
//! while it is set the site is in no lookup or list, and the importer renews it
//! with every batch. A site whose lease ran out was left by a stopped import and
//! is deleted by the Janitor; a complete import clears it.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Alias::new("sites"))
                    .add_column(ColumnDef::new(Alias::new("import_lease_until")).timestamp_with_time_zone().null())
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter().table(Alias::new("sites")).drop_column(Alias::new("import_lease_until")).to_owned(),
            )
            .await
    }
}
