//! The sites an audit entry belongs to. A content item can sit on several
//! sites, so one column cannot say it; each site's audit list reads this
//! table (site, time) and every entry is listed under each of its sites.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("audit_log_sites")
                    .col(uuid("site_id"))
                    .col(uuid("audit_id"))
                    .col(timestamp_with_time_zone("created_at"))
                    .primary_key(Index::create().col("site_id").col("audit_id"))
                    .foreign_key(
                        ForeignKey::create()
                            .from("audit_log_sites", "audit_id")
                            .to("audit_log", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_audit_log_sites_time")
                    .table("audit_log_sites")
                    .col("site_id")
                    .col("created_at")
                    .to_owned(),
            )
            .await?;
        // Entries written before this table name their (first) site in audit_log.site_id.
        manager
            .get_connection()
            .execute_unprepared(
                "INSERT INTO audit_log_sites (site_id, audit_id, created_at) \
                 SELECT site_id, id, created_at FROM audit_log WHERE site_id IS NOT NULL",
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table("audit_log_sites").if_exists().to_owned()).await
    }
}
