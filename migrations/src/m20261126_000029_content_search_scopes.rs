//! On SQLite, a deleted site row's search scope ends in `x`
//! (`s<site><kind>x`), so the text index alone tells a site's kind's live
//! matches from those in the trash: a search's total is counted in the index,
//! without reading a row per match. The scope follows the row into and out of
//! the trash. PostgreSQL counts with its list's conditions (migration
//! `content_search_unweighted`) and is unchanged.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The scope of the site row `row` (`NEW`, or a row of the table).
fn scope_of(row: &str) -> String {
    format!(
        "'s' || lower(hex({row}.site_id)) || replace({row}.kind, '_', '') || \
         CASE WHEN {row}.is_deleted THEN 'x' ELSE '' END"
    )
}

fn sqlite_up() -> String {
    let new_scope = scope_of("NEW");
    let row_scope = scope_of("content_sites");
    format!(
        r#"
DROP TRIGGER IF EXISTS content_search_added;
DROP TRIGGER IF EXISTS content_search_changed;

CREATE TRIGGER content_search_added AFTER INSERT ON content_sites BEGIN
  INSERT INTO content_search (scope, title, slug)
    SELECT {row_scope}, (SELECT title FROM contents WHERE id = NEW.content_id), NEW.slug
    FROM content_sites WHERE content_id = NEW.content_id AND site_id = NEW.site_id;
  UPDATE content_sites SET search_rowid = last_insert_rowid()
    WHERE content_id = NEW.content_id AND site_id = NEW.site_id;
END;

CREATE TRIGGER content_search_changed AFTER UPDATE OF title, slug, site_id, kind, is_deleted ON content_sites
WHEN NEW.search_rowid IS NOT NULL BEGIN
  UPDATE content_search SET scope = {new_scope}, title = NEW.title, slug = NEW.slug
    WHERE rowid = NEW.search_rowid;
END;

UPDATE content_search SET scope = scope || 'x'
  WHERE rowid IN (SELECT search_rowid FROM content_sites WHERE is_deleted = TRUE);
"#
    )
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() == DbBackend::Postgres {
            return Ok(());
        }
        manager.get_connection().execute_unprepared(&sqlite_up()).await.map(drop)
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() == DbBackend::Postgres {
            return Ok(());
        }
        // Back to migration `content_search`'s triggers and scopes.
        let db = manager.get_connection();
        db.execute_unprepared(
            "UPDATE content_search SET scope = substr(scope, 1, length(scope) - 1) WHERE scope LIKE '%x'; \
             DROP TRIGGER IF EXISTS content_search_added; DROP TRIGGER IF EXISTS content_search_changed;",
        )
        .await?;
        db.execute_unprepared(&super::m20261126_000027_content_search::sqlite_triggers()).await.map(drop)
    }
}
