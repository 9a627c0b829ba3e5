//! The audit trail by entity id alone: a conditional write (`If-Match`)
//! counts its item's entries when it starts and again inside its
//! transaction, before it knows the item's entity type
//! (`src/preconditions.rs`); both are index range scans on (entity_id).

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_index(Index::create().name("ix_audit_log_entity_id").table("audit_log").col("entity_id").to_owned())
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_index(Index::drop().name("ix_audit_log_entity_id").table("audit_log").to_owned()).await
    }
}
