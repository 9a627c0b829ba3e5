//! The newest requests of each API key (route, method, status, time), as the
//! origin service's admin shows a key's usage. Written in batches by the key
//! usage flush and pruned there to the newest few per key, so the table does
//! not grow with traffic; read newest first by `(api_key_id, created_at, id)`.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let table = Alias::new("api_key_requests");
        manager
            .create_table(
                Table::create()
                    .table(table.clone())
                    .col(ColumnDef::new(Alias::new("id")).uuid().not_null().primary_key())
                    .col(ColumnDef::new(Alias::new("api_key_id")).uuid().not_null())
                    .col(ColumnDef::new(Alias::new("endpoint")).text().not_null())
                    .col(ColumnDef::new(Alias::new("method")).text().not_null())
                    .col(ColumnDef::new(Alias::new("status_code")).integer().not_null())
                    .col(ColumnDef::new(Alias::new("response_time_ms")).double().not_null())
                    .col(ColumnDef::new(Alias::new("created_at")).timestamp_with_time_zone().not_null())
                    .foreign_key(
                        ForeignKey::create()
                            .from(table.clone(), Alias::new("api_key_id"))
                            .to(Alias::new("api_keys"), Alias::new("id"))
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_api_key_requests_key_time")
                    .table(table)
                    .col(Alias::new("api_key_id"))
                    .col(Alias::new("created_at"))
                    .col(Alias::new("id"))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table(Alias::new("api_key_requests")).if_exists().to_owned()).await
    }
}
