//! Finding one item among 100,000: the content lists' `search` matches words
//! (or the starts of words) of an item's title and slug, case-insensitively,
//! from an index rather than a scan of the site.
//!
//! - SQLite: an FTS5 table, one row per `content_sites` row, holding its title,
//!   slug and a `scope` token (the site's hex id and the kind), so a search
//!   matches the posting lists of one site's kind only. Each site row keeps the
//!   rowid of its search row (`search_rowid`): the site rows have no rowid of
//!   their own that outlives a VACUUM. Triggers keep it in step, whichever
//!   code path writes, as the list copies are (`content_listing`).
//! - PostgreSQL: a GIN index over the `simple` text vector of the same scope
//!   token, title and slug of `content_sites` (whose title copy the database
//!   already keeps), hyphens made spaces (its parser reads `changelog-2026` as
//!   `changelog` and the number `-2026`); `simple` folds case and does not
//!   stem, so prefixes work.
//!
//! Either way a search finds one site's kind's matching rows from the index's
//! entries for its words and scope, whatever the other sites hold.
//!
//! Neither folds diacritics (PostgreSQL would need the `unaccent` extension),
//! so both backends find the same items: `größ` finds "Größere", `gross` does not.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The scope token of a site row: `s`, its site's id in hex and its kind
/// without underscores, one word to either text index (`content::listing`
/// writes the same for a query).
const SQLITE_SCOPE_OF_NEW: &str = "'s' || lower(hex(NEW.site_id)) || replace(NEW.kind, '_', '')";

/// A site row's text vector on PostgreSQL as this migration indexed it: the
/// scope token weighted A, the words of the title and slug weighted B (so a
/// word never matches a scope, nor a scope a word). Replaced by migration
/// `content_search_unweighted` (28): a weighted query rechecks every match.
const WEIGHTED_SEARCH_VECTOR: &str = "(setweight(to_tsvector('simple', 's' || replace(site_id::text, '-', '') || \
     replace(kind, '_', '')), 'A') || setweight(to_tsvector('simple', translate(title || ' ' || slug, '-', ' ')), 'B'))";

fn sqlite_up() -> String {
    format!(
        r#"
CREATE VIRTUAL TABLE content_search USING fts5(scope, title, slug, tokenize = 'unicode61 remove_diacritics 0');
UPDATE content_sites SET search_rowid = rowid;
INSERT INTO content_search (rowid, scope, title, slug)
  SELECT search_rowid, 's' || lower(hex(site_id)) || replace(kind, '_', ''), title, slug FROM content_sites;
CREATE INDEX ix_content_sites_search_rowid ON content_sites (search_rowid);
{}
CREATE TRIGGER content_search_removed AFTER DELETE ON content_sites BEGIN
  DELETE FROM content_search WHERE rowid = OLD.search_rowid;
END;
"#,
        sqlite_triggers()
    )
}

/// The triggers that write a site row's search row, as this migration made
/// them (migration `content_search_scopes` replaces them; its `down` restores
/// these).
pub(crate) fn sqlite_triggers() -> String {
    format!(
        r#"
CREATE TRIGGER content_search_added AFTER INSERT ON content_sites BEGIN
  INSERT INTO content_search (scope, title, slug)
    VALUES ({SQLITE_SCOPE_OF_NEW}, (SELECT title FROM contents WHERE id = NEW.content_id), NEW.slug);
  UPDATE content_sites SET search_rowid = last_insert_rowid()
    WHERE content_id = NEW.content_id AND site_id = NEW.site_id;
END;

CREATE TRIGGER content_search_changed AFTER UPDATE OF title, slug, site_id, kind ON content_sites
WHEN NEW.search_rowid IS NOT NULL BEGIN
  UPDATE content_search SET scope = {SQLITE_SCOPE_OF_NEW}, title = NEW.title, slug = NEW.slug
    WHERE rowid = NEW.search_rowid;
END;
"#
    )
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        match manager.get_database_backend() {
            DbBackend::Postgres => {
                let index = format!(
                    "CREATE INDEX ix_content_sites_search ON content_sites USING GIN ({WEIGHTED_SEARCH_VECTOR})"
                );
                db.execute_unprepared(&index).await.map(drop)
            }
            _ => {
                let mut column = ColumnDef::new("search_rowid").big_integer().null().to_owned();
                manager.alter_table(Table::alter().table("content_sites").add_column(&mut column).to_owned()).await?;
                db.execute_unprepared(&sqlite_up()).await.map(drop)
            }
        }
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        match manager.get_database_backend() {
            DbBackend::Postgres => {
                db.execute_unprepared("DROP INDEX IF EXISTS ix_content_sites_search").await.map(drop)
            }
            _ => {
                db.execute_unprepared(
                    "DROP TRIGGER IF EXISTS content_search_added; DROP TRIGGER IF EXISTS content_search_changed; \
                     DROP TRIGGER IF EXISTS content_search_removed; DROP INDEX IF EXISTS ix_content_sites_search_rowid; \
                     DROP TABLE IF EXISTS content_search;",
                )
                .await?;
                manager.alter_table(Table::alter().table("content_sites").drop_column("search_rowid").to_owned()).await
            }
        }
    }
}
