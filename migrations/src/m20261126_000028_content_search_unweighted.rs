//! Search on PostgreSQL without weights. Migration `content_search` kept a
//! site row's scope token apart from its words by weights (A and B); but a
//! query with weights makes the GIN index's matches lossy, and each match was
//! rechecked by computing its text vector again: 11 of the 26 ms of a search
//! with 1,000 matches among 100,000 posts. The scope is now a lexeme no word
//! of a query can spell (`~s<site><kind>`, made with `array_to_tsvector`, which
//! does not parse it), so neither needs a weight: the same search takes 2.3 ms.
//! SQLite keeps its FTS5 table (its scope is a column of its own).

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// A site row's text vector on PostgreSQL, as the index and the queries write
/// it: the scope lexeme `~s<site id in hex><kind without underscores>` and the
/// words of the title and slug (hyphens made spaces; `simple` folds case and
/// does not stem, so prefixes work).
pub const POSTGRES_SEARCH_VECTOR: &str = "(array_to_tsvector(ARRAY['~s' || replace(site_id::text, '-', '') || \
     replace(kind, '_', '')]) || to_tsvector('simple', translate(title || ' ' || slug, '-', ' ')))";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        let index = format!(
            "DROP INDEX IF EXISTS ix_content_sites_search; \
             CREATE INDEX ix_content_sites_search ON content_sites USING GIN ({POSTGRES_SEARCH_VECTOR})"
        );
        manager.get_connection().execute_unprepared(&index).await.map(drop)
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        // Back to migration `content_search`'s index, whose vector it owns.
        manager.get_connection().execute_unprepared("DROP INDEX IF EXISTS ix_content_sites_search").await?;
        super::m20261126_000027_content_search::Migration.up(manager).await
    }
}
