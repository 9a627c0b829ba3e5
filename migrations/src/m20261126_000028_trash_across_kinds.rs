//! The site's trash across content kinds, newest-deleted first, from one
//! index: `(site_id, deleted_at, content_id)` over the deleted site rows only
//! (a few in a hundred), so the trash's first page is one range scan instead
//! of one per kind merged in memory.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::ConnectionTrait;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .get_connection()
            .execute_unprepared(
                "CREATE INDEX ix_content_sites_trash_all ON content_sites (site_id, deleted_at, content_id) \
                 WHERE is_deleted = TRUE",
            )
            .await
            .map(drop)
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.get_connection().execute_unprepared("DROP INDEX IF EXISTS ix_content_sites_trash_all").await.map(drop)
    }
}
