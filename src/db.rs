//! Database connection: SQLite (embedded default) or PostgreSQL, migrated at start.

use std::time::Duration;

use plinth_migrations::{Migrator, MigratorTrait};
use sea_orm::sqlx::sqlite::{SqliteJournalMode, SqliteSynchronous};
use sea_orm::{
    ConnectOptions, Database, DatabaseConnection, DatabaseTransaction, DbErr, SqliteTransactionMode,
    TransactionOptions, TransactionTrait,
};

/// Opens the pool. For SQLite the database file's folder is created, and every
/// connection runs in WAL mode with a busy timeout and foreign keys enforced.
pub async fn connect(url: &str) -> Result<DatabaseConnection, DbErr> {
    let mut options = ConnectOptions::new(url.to_string());
    options.sqlx_logging(false).connect_timeout(Duration::from_secs(10)).acquire_timeout(Duration::from_secs(10));
    if url.starts_with("sqlite:") {
        ensure_sqlite_folder(url)?;
        options.max_connections(8).min_connections(1).map_sqlx_sqlite_opts(|opts| {
            opts.journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                .busy_timeout(Duration::from_secs(10))
                .foreign_keys(true)
        });
    } else {
        options.max_connections(16).min_connections(1);
    }
    Database::connect(options).await
}

/// Begins a transaction that will write. On SQLite it takes the write lock at
/// BEGIN (IMMEDIATE): a deferred transaction that read first cannot upgrade
/// after another writer committed (SQLITE_BUSY_SNAPSHOT), and the busy timeout
/// does not cover that case. PostgreSQL ignores the mode.
pub async fn begin_write(db: &DatabaseConnection) -> Result<DatabaseTransaction, DbErr> {
    db.begin_with_options(TransactionOptions {
        sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
        ..Default::default()
    })
    .await
}

/// Applies pending migrations; logs one line at info (what each migration does is
/// sea-orm-migration's own log, at debug unless `PLINTH_LOG` asks for it).
pub async fn migrate(db: &DatabaseConnection) -> Result<usize, DbErr> {
    let pending = Migrator::get_pending_migrations(db).await?.len();
    Migrator::up(db, None).await?;
    if pending > 0 {
        tracing::info!("applied {pending} migrations");
    }
    Ok(pending)
}

/// The database of `url` as an operator reads it, without credentials:
/// `SQLite ./data/plinth.db` or `PostgreSQL db.example.org:5432/plinth`.
pub fn describe(url: &str) -> String {
    if url.starts_with("sqlite:") {
        let path = url.trim_start_matches("sqlite://").trim_start_matches("sqlite:");
        return format!("SQLite {}", path.split('?').next().unwrap_or_default());
    }
    match url::Url::parse(url) {
        Ok(u) => format!("PostgreSQL {}:{}{}", u.host_str().unwrap_or("localhost"), u.port().unwrap_or(5432), u.path()),
        Err(_) => "PostgreSQL".to_string(),
    }
}

fn ensure_sqlite_folder(url: &str) -> Result<(), DbErr> {
    let path = url.trim_start_matches("sqlite://").trim_start_matches("sqlite:");
    let path = path.split('?').next().unwrap_or_default();
    if path.is_empty() || path == ":memory:" {
        return Ok(());
    }
    if let Some(parent) = std::path::Path::new(path).parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| DbErr::Custom(format!("cannot create database folder {}: {e}", parent.display())))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::describe;

    #[test]
    fn describes_without_credentials() {
        assert_eq!(describe("sqlite://./data/plinth.db?mode=rwc"), "SQLite ./data/plinth.db");
        assert_eq!(describe("postgres://app:secret@db.example.org/plinth"), "PostgreSQL db.example.org:5432/plinth");
    }
}
