//! The PostgreSQL text index without its pending list. A GIN index keeps new
//! entries in an unsorted "pending list" (up to `gin_pending_list_limit`, 4 MB)
//! until a vacuum or a full list merges them, and every search reads that list
//! whole. At 100,000 posts written through the API, a search for a word in
//! two titles read 150 index pages (141 of them the pending list) and took
//! 0.9 ms of the query's 1 ms, twice per request (page and count); without
//! the list, 9 pages and 0.04 ms. Each write now updates the index itself
//! (a title's few words: cheap), so what a search costs no longer depends on
//! how many writes came since the last vacuum. SQLite's FTS5 table is not a
//! GIN index: nothing to do there.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        let db = manager.get_connection();
        db.execute_unprepared("ALTER INDEX ix_content_sites_search SET (fastupdate = off)").await?;
        // What is pending already is merged now, once.
        db.execute_unprepared("SELECT gin_clean_pending_list('ix_content_sites_search'::regclass)").await.map(drop)
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        manager
            .get_connection()
            .execute_unprepared("ALTER INDEX ix_content_sites_search RESET (fastupdate)")
            .await
            .map(drop)
    }
}
