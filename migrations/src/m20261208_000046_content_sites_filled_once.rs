//! A new `content_sites` row written with its listing columns already copied
//! (`INSERT … SELECT … FROM contents`, as the content engine writes it) is not
//! filled again by the trigger.
//!
//! On SQLite the fill is an UPDATE of the row just inserted: it rewrote every
//! list index of the row and, through `content_search_changed`, deleted and
//! inserted the row's search entry again, 13% of a created post's
//! instructions (the whole server under callgrind, 300 `POST /blogs`: 2.25 M
//! → 1.95 M each). Rows inserted without the copies (imports, copies of
//! sites) are filled as before: a row's `created_at` is empty only then.
//! PostgreSQL fills `NEW` before the insert, which costs no second write; it
//! skips the lookup of the item the same way.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

const COUNT_ADDED: &str = "INSERT INTO content_counts (site_id, kind, subtype, status, is_deleted, n)
    VALUES (NEW.site_id, NEW.kind, COALESCE(NEW.subtype, ''), NEW.status, NEW.is_deleted, 1)
    ON CONFLICT (site_id, kind, subtype, status, is_deleted) DO UPDATE SET n = n + 1;";

/// The SQLite trigger of migration `content_listing`, its fill limited to rows
/// inserted without the copies when `only_unfilled`. One trigger keeps the
/// count before the fill, whose status change moves it (`content_counts_moved`).
fn sqlite_fill(only_unfilled: bool) -> String {
    let copied = super::m20261125_000024_content_listing::COPIED.join(", ");
    let unfilled = if only_unfilled { "NEW.created_at IS NULL AND " } else { "" };
    format!(
        "DROP TRIGGER content_sites_fill;
CREATE TRIGGER content_sites_fill AFTER INSERT ON content_sites BEGIN
  {COUNT_ADDED}
  UPDATE content_sites SET ({copied}) = (SELECT {copied} FROM contents WHERE id = NEW.content_id)
    WHERE {unfilled}content_id = NEW.content_id AND site_id = NEW.site_id;
END;"
    )
}

fn postgres_fill(only_unfilled: bool) -> String {
    let when = if only_unfilled { "WHEN (NEW.created_at IS NULL) " } else { "" };
    format!(
        "DROP TRIGGER content_sites_fill ON content_sites;
CREATE TRIGGER content_sites_fill BEFORE INSERT ON content_sites FOR EACH ROW {when}EXECUTE FUNCTION content_sites_fill();"
    )
}

async fn replace_fill(manager: &SchemaManager<'_>, only_unfilled: bool) -> Result<(), DbErr> {
    // One batch: on SQLite each call may take another pooled connection.
    let sql = match manager.get_database_backend() {
        DbBackend::Postgres => postgres_fill(only_unfilled),
        _ => sqlite_fill(only_unfilled),
    };
    manager.get_connection().execute_unprepared(&sql).await.map(drop)
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        replace_fill(manager, true).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        replace_fill(manager, false).await
    }
}
