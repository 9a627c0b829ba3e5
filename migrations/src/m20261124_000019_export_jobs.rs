//! Site export jobs. At most one queued or running job per site, enforced by a
//! partial unique index so every instance agrees.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("export_jobs")
                    .col(pk_uuid("id"))
                    .col(uuid("site_id"))
                    // queued, running, ready, failed
                    .col(string("status"))
                    .col(string_null("storage_key"))
                    .col(big_integer_null("size"))
                    .col(string_null("error"))
                    .col(string_null("created_by"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone_null("started_at"))
                    .col(timestamp_with_time_zone_null("built_at"))
                    .col(timestamp_with_time_zone_null("expires_at"))
                    .foreign_key(
                        ForeignKey::create()
                            .from("export_jobs", "site_id")
                            .to("sites", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        // Same SQL on SQLite and PostgreSQL.
        manager
            .get_connection()
            .execute_unprepared(
                "CREATE UNIQUE INDEX ux_export_jobs_active ON export_jobs (site_id) WHERE status IN ('queued', 'running')",
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table("export_jobs").if_exists().to_owned()).await
    }
}
