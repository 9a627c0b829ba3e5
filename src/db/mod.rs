//! Database connection: SQLite (embedded default) or PostgreSQL, migrated at start.

use std::sync::Arc;
use std::time::Duration;

pub mod write_turns;

pub use write_turns::rows_per_job_transaction;
use write_turns::{WriteTurn, WriteTurns};

use plinth_migrations::{Migrator, MigratorTrait};
use sea_orm::sqlx::sqlite::{SqliteJournalMode, SqliteSynchronous};
use sea_orm::{
    ConnectOptions, ConnectionTrait, Database, DatabaseConnection, DatabaseTransaction, DbBackend, DbErr, ExecResult,
    QueryResult, SqliteTransactionMode, Statement, TransactionOptions, TransactionTrait,
};

/// Opens the pool. For SQLite the database file's folder is created, and every
/// connection runs in WAL mode with a busy timeout and foreign keys enforced.
///
/// A request waits `acquire_timeout` at most for a pooled connection; past it
/// the pool is overloaded and the request is shed with 503 and `Retry-After`
/// (see `error`), rather than queueing until every client times out.
pub async fn connect(url: &str, acquire_timeout: Duration) -> Result<DatabaseConnection, DbErr> {
    let mut options = ConnectOptions::new(url.to_string());
    options.sqlx_logging(false).connect_timeout(Duration::from_secs(10)).acquire_timeout(acquire_timeout);
    if url.starts_with("sqlite:") {
        ensure_sqlite_folder(url)?;
        options.max_connections(8).min_connections(1).map_sqlx_sqlite_opts(|opts| {
            opts.journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                .busy_timeout(Duration::from_secs(10))
                .foreign_keys(true)
                // Statement journals (a write with triggers inside a larger
                // transaction keeps one) and temporary tables in memory: in
                // a file, one was created and unlinked in the temp folder
                // for every 7 to 12 posts written (`strace -c` under a load
                // of `POST /blogs`), each a file system metadata write.
                .pragma("temp_store", "memory")
        });
    } else {
        // PostgreSQL's own choice between planning each run of a statement for
        // its values and keeping one generic plan per statement and connection
        // after five runs: planning a list costs three times its execution
        // (0.3 ms against 0.1), and the generic plan of a list is its index
        // range scan once the tables are large. A generic plan made while
        // the tables were small (a scan and a sort) lasts until their
        // statistics change: autovacuum's ANALYZE after each tenth of growth,
        // or ours after a bulk write (tested in `generic_plans`). Writes do
        // not wait for that: see `begin_write`.
        options
            .max_connections(POSTGRES_CONNECTIONS)
            .min_connections(1)
            .map_sqlx_postgres_opts(|opts| opts.options([("plan_cache_mode", "auto")]));
    }
    Database::connect(options).await
}

/// Connections of a PostgreSQL pool.
const POSTGRES_CONNECTIONS: u32 = 16;
/// `[tenants] write_share_percent` by default (its one declaration; the
/// configuration's default and tools without a configuration use it).
pub const DEFAULT_WRITE_SHARE_PERCENT: u32 = 50;

/// Begins a transaction that will write. On SQLite it takes the write lock at
/// BEGIN (IMMEDIATE): a deferred transaction that read first cannot upgrade
/// after another writer committed (SQLITE_BUSY_SNAPSHOT), and the busy timeout
/// does not cover that case. PostgreSQL ignores the mode.
///
/// Writers of this process take their turn before BEGIN, held until the
/// transaction ends, served fairly across tenants ([`write_turns`]): on
/// SQLite one writer at a time asks for the lock, and the others wait
/// without a system call, instead of sleeping in SQLite's busy handler with
/// growing pauses (which gave writes under load a p99 of hundreds of
/// milliseconds); on PostgreSQL one tenant holds at most its share of the
/// pool's connections.
pub async fn begin_write(db: &Db) -> Result<WriteTxn, DbErr> {
    begin(db, None).await
}

/// [`begin_write`] for a write that keeps no audit entry, saying why (a
/// delivery's log, a counter, a user's own preferences): its commit does not
/// ask for one.
pub async fn begin_unaudited(db: &Db, why: &'static str) -> Result<WriteTxn, DbErr> {
    begin(db, Some(why)).await
}

async fn begin(db: &Db, unaudited: Option<&'static str>) -> Result<WriteTxn, DbErr> {
    let caches = Arc::clone(&db.caches);
    let tenant = crate::tenant::current();
    // As long as SQLite's own busy timeout: a writer that waits longer fails
    // as it did before the queue, instead of waiting forever.
    let turn = tokio::time::timeout(WRITE_QUEUE_TIMEOUT, db.write_turns.acquire(tenant))
        .await
        // Every writer ahead took the whole wait: an overload, answered like
        // a full pool (503 with Retry-After), not a fault.
        .map_err(|_| DbErr::ConnectionAcquire(sea_orm::error::ConnAcquireErr::Timeout))?;
    let db = &db.conn;
    let txn = db
        .begin_with_options(TransactionOptions {
            sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
            ..Default::default()
        })
        .await?;
    if txn.get_database_backend() == DbBackend::Postgres {
        // Every statement of a write planned for the tables as they are: a
        // generic slug check kept from a site's first hundred posts read the
        // whole site on each write until the next ANALYZE (writes fell from
        // 700/s to 65/s at 40,000 posts). One statement per write is the price.
        txn.execute_unprepared("SET LOCAL plan_cache_mode = force_custom_plan").await?;
    }
    Ok(WriteTxn {
        txn,
        _turn: turn,
        touched: Default::default(),
        caches,
        unaudited,
        audited: Default::default(),
        after_commit: Default::default(),
    })
}

/// After a bulk write (an import, `reset-content`): PostgreSQL learns the new
/// sizes soon instead of at autovacuum's next pass. The list queries do not
/// depend on it (their partial indexes are the planner's choice without
/// statistics); other queries' plans do. SQLite keeps no statistics it needs.
///
/// One ANALYZE serves every bulk write of the moment: it samples whole tables,
/// so on a database of many sites each run costs the same whatever one import
/// added (`benches/scale` filling 1,000 sites by import, each import followed
/// by its own ANALYZE, averaged 0.75 s per import on PostgreSQL).
/// The first bulk write schedules a run after [`STATISTICS_DELAY`]; writes
/// until it starts ride on it. The request that wrote does not wait.
#[derive(Default)]
pub struct StatisticsRefresh {
    scheduled: std::sync::atomic::AtomicBool,
}

/// How long bulk writes gather before their one ANALYZE.
pub const STATISTICS_DELAY: Duration = Duration::from_secs(5);

impl StatisticsRefresh {
    pub fn after_bulk_write(self: &Arc<Self>, db: &DatabaseConnection) {
        use std::sync::atomic::Ordering;
        if db.get_database_backend() != DbBackend::Postgres || self.scheduled.swap(true, Ordering::AcqRel) {
            return;
        }
        let (this, db) = (Arc::clone(self), db.clone());
        tokio::spawn(async move {
            tokio::time::sleep(STATISTICS_DELAY).await;
            // Cleared before the run: a write committed during it is sampled
            // by the next one.
            this.scheduled.store(false, Ordering::Release);
            analyze_bulk_tables(&db).await;
        });
    }
}

async fn analyze_bulk_tables(db: &DatabaseConnection) {
    let sql = "ANALYZE contents, content_sites, content_counts, content_localizations, content_tags, \
               content_categories, media_files, media_sites";
    if let Err(e) = db.execute_unprepared(sql).await {
        tracing::warn!(error = %e, "ANALYZE after a bulk write failed");
    }
}

const WRITE_QUEUE_TIMEOUT: Duration = Duration::from_secs(10);

/// The app's database: the pool, and the caches built from what it holds, which
/// every write transaction it begins drops as it commits (see [`WriteTxn`]).
///
/// Reads go to the pool as they would to a `DatabaseConnection` (it derefs to
/// one). Transactions begin with [`begin_write`] (or [`begin_unaudited`]) only,
/// so none skips the writer queue or the caches; a source rule keeps any other
/// `begin` out of the code.
#[derive(Clone)]
pub struct Db {
    conn: DatabaseConnection,
    caches: Arc<dyn CacheDrops>,
    write_turns: Arc<WriteTurns>,
}

impl Db {
    /// `write_share_percent`: on PostgreSQL, the share of the pool one
    /// tenant's writes may hold at once (`[tenants]`).
    pub fn new(conn: DatabaseConnection, caches: Arc<dyn CacheDrops>, write_share_percent: u32) -> Self {
        let write_turns = Self::write_turns_for(&conn, write_share_percent);
        Self { conn, caches, write_turns }
    }

    /// A database with nothing cached beside it (tools and tests that write
    /// before, or without, a running app).
    pub fn uncached(conn: DatabaseConnection) -> Self {
        Self::new(conn, Arc::new(NothingCached), DEFAULT_WRITE_SHARE_PERCENT)
    }

    fn write_turns_for(conn: &DatabaseConnection, write_share_percent: u32) -> Arc<WriteTurns> {
        match conn.get_database_backend() {
            DbBackend::Sqlite => write_turns::sqlite_turns(
                conn.get_sqlite_connection_pool().connect_options().get_filename().to_path_buf(),
            ),
            _ => write_turns::postgres_turns(POSTGRES_CONNECTIONS as usize, write_share_percent as usize),
        }
    }

    /// Writers holding or waiting for a turn now, all tenants together.
    pub fn write_turns(&self) -> plinth_actors::Occupancy {
        self.write_turns.occupancy()
    }

    pub fn connection(&self) -> &DatabaseConnection {
        &self.conn
    }

    /// A write with neither an audit entry nor an event to say what it
    /// touched (an attachment, a delivery's log): `touched` says it, and the
    /// write runs in its own transaction so its commit drops those caches.
    pub async fn write<T, E: From<DbErr>>(
        &self,
        touched: &[Touched],
        write: impl AsyncFnOnce(&WriteTxn) -> Result<T, E>,
    ) -> Result<T, E> {
        let txn = begin_unaudited(self, "a write with nothing to audit").await?;
        for item in touched {
            txn.touch(*item);
        }
        let written = write(&txn).await?;
        txn.commit().await?;
        Ok(written)
    }
}

impl std::ops::Deref for Db {
    type Target = DatabaseConnection;

    fn deref(&self) -> &DatabaseConnection {
        &self.conn
    }
}

/// What a committed write changed, as the caches see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Touched {
    /// Everything of every site (the shared locale catalogue).
    AllSites,
    /// A site's row, settings, locales or members, and so everything built
    /// from the site.
    Site(uuid::Uuid),
    /// A site's content and the answers built from it; the site's own
    /// row, settings, locales and members stay loaded.
    Content(uuid::Uuid),
    /// A site's records that only signed-in callers' answers show (webhook
    /// deliveries and their attempts): those answers go, the public cache
    /// built from its content stays.
    Answers(uuid::Uuid),
}

impl Touched {
    /// The smallest list that drops the same: each site once, at its widest
    /// scope, and nothing per site when every site goes.
    pub fn reduce(mut touched: Vec<Touched>) -> Vec<Touched> {
        if touched.contains(&Touched::AllSites) {
            return vec![Touched::AllSites];
        }
        touched.sort();
        let sites: std::collections::HashSet<uuid::Uuid> =
            touched.iter().filter_map(|t| if let Touched::Site(id) = t { Some(*id) } else { None }).collect();
        let content: std::collections::HashSet<uuid::Uuid> =
            touched.iter().filter_map(|t| if let Touched::Content(id) = t { Some(*id) } else { None }).collect();
        touched.retain(|t| match t {
            Touched::Content(id) => !sites.contains(id),
            Touched::Answers(id) => !sites.contains(id) && !content.contains(id),
            _ => true,
        });
        touched.dedup();
        touched
    }
}

/// The caches a committed write drops: this instance's, and, through the
/// cluster channel, every other instance's.
pub trait CacheDrops: Send + Sync {
    fn committed(&self, touched: &[Touched]);
}

struct NothingCached;

impl CacheDrops for NothingCached {
    fn committed(&self, _: &[Touched]) {}
}

/// The one way to write: a transaction, what it touched, what it announces
/// once committed, and, on SQLite, this writer's turn (released when the
/// transaction is committed, rolled back or dropped).
///
/// What it touched is noted as it writes: by every audit entry
/// (`audit::record`) and every event stored in the outbox (`events::store`),
/// and by [`WriteTxn::touch`] for the few writes that have neither. The
/// commit drops exactly that, once the data is visible to the next read, then
/// runs what was left for after it (the stored events' announcement); a
/// rollback, or an error before the commit, does neither.
///
/// A transaction from [`begin_write`] commits only with an audit entry: one
/// that wrote without is refused (in debug builds, so every test that writes
/// says so; a release build logs it and commits). Writes that keep none begin
/// with [`begin_unaudited`] and say why.
pub struct WriteTxn {
    txn: DatabaseTransaction,
    _turn: WriteTurn,
    touched: std::sync::Mutex<Vec<Touched>>,
    caches: Arc<dyn CacheDrops>,
    /// Why this write keeps no audit entry; `None` when it must.
    unaudited: Option<&'static str>,
    audited: std::sync::atomic::AtomicBool,
    after_commit: std::sync::Mutex<Vec<Box<dyn FnOnce() + Send>>>,
}

impl WriteTxn {
    /// Notes that this write changes what `touched` names.
    pub fn touch(&self, touched: Touched) {
        let mut list = self.touched.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if !list.contains(&touched) {
            list.push(touched);
        }
    }

    /// Notes that the write's audit entry is recorded (`audit::record` does).
    pub fn audited(&self) {
        self.audited.store(true, std::sync::atomic::Ordering::Release);
    }

    /// Notes that this write found nothing to change (a reorder that moves no
    /// entry, a bulk change naming no items, no sample posts to remove): it
    /// wrote nothing, so it commits without an audit entry.
    pub fn found_nothing_to_change(&self) {
        self.audited.store(true, std::sync::atomic::Ordering::Release);
    }

    /// Runs `then` once the write committed (never if it does not).
    pub fn after_commit(&self, then: impl FnOnce() + Send + 'static) {
        self.after_commit.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(Box::new(then));
    }

    pub async fn commit(self) -> Result<(), DbErr> {
        if self.unaudited.is_none() && !self.audited.load(std::sync::atomic::Ordering::Acquire) {
            let why = "a write committed without its audit entry: record one (audit::record) in its \
                       audit::write, or begin it with db::begin_unaudited and say why";
            if cfg!(debug_assertions) {
                self.txn.rollback().await?;
                return Err(DbErr::Custom(why.into()));
            }
            tracing::error!("{why}");
        }
        let touched = std::mem::take(&mut *self.touched.lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
        let after = std::mem::take(&mut *self.after_commit.lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
        self.txn.commit().await?;
        let touched = Touched::reduce(touched);
        if !touched.is_empty() {
            self.caches.committed(&touched);
        }
        for then in after {
            then();
        }
        Ok(())
    }

    pub async fn rollback(self) -> Result<(), DbErr> {
        self.txn.rollback().await
    }
}

/// Queries go to the inner connection: a `Db` is passed wherever a connection
/// is expected, and a `WriteTxn` wherever its transaction was.
macro_rules! connection_through {
    ($outer:ty, $inner:ident) => {
        #[async_trait::async_trait]
        impl ConnectionTrait for $outer {
            fn get_database_backend(&self) -> DbBackend {
                self.$inner.get_database_backend()
            }

            async fn execute_raw(&self, stmt: Statement) -> Result<ExecResult, DbErr> {
                self.$inner.execute_raw(stmt).await
            }

            async fn execute_unprepared(&self, sql: &str) -> Result<ExecResult, DbErr> {
                self.$inner.execute_unprepared(sql).await
            }

            async fn query_one_raw(&self, stmt: Statement) -> Result<Option<QueryResult>, DbErr> {
                self.$inner.query_one_raw(stmt).await
            }

            async fn query_all_raw(&self, stmt: Statement) -> Result<Vec<QueryResult>, DbErr> {
                self.$inner.query_all_raw(stmt).await
            }

            fn support_returning(&self) -> bool {
                self.$inner.support_returning()
            }
        }
    };
}

connection_through!(Db, conn);
connection_through!(WriteTxn, txn);

impl std::ops::Deref for WriteTxn {
    type Target = DatabaseTransaction;

    fn deref(&self) -> &DatabaseTransaction {
        &self.txn
    }
}

/// The `n`th (from 1) bound value's placeholder in SQL written by hand: `$n`
/// on PostgreSQL, `?` on SQLite.
pub fn placeholder(backend: DbBackend, n: usize) -> String {
    match backend {
        DbBackend::Postgres => format!("${n}"),
        _ => "?".to_owned(),
    }
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
    fn a_site_touched_whole_drops_its_content_with_it() {
        use super::Touched;
        let (a, b) = (uuid::Uuid::new_v4(), uuid::Uuid::new_v4());
        let reduced =
            Touched::reduce(vec![Touched::Content(a), Touched::Site(a), Touched::Content(b), Touched::Content(b)]);
        assert_eq!(reduced.len(), 2);
        assert!(reduced.contains(&Touched::Site(a)) && reduced.contains(&Touched::Content(b)));
        assert_eq!(Touched::reduce(vec![Touched::Content(a), Touched::AllSites]), vec![Touched::AllSites]);
        let answers = Touched::reduce(vec![Touched::Answers(a), Touched::Content(a), Touched::Answers(b)]);
        assert_eq!(answers, vec![Touched::Content(a), Touched::Answers(b)], "content drops a site's answers too");
    }

    #[test]
    fn describes_without_credentials() {
        assert_eq!(describe("sqlite://./data/plinth.db?mode=rwc"), "SQLite ./data/plinth.db");
        assert_eq!(describe("postgres://app:secret@db.example.org/plinth"), "PostgreSQL db.example.org:5432/plinth");
    }

    /// The bundled SQLite is built with the flags of `.cargo/config.toml`:
    /// without the planner stability guarantee every cached statement with a
    /// `LIMIT ?` would be parsed and planned again at each execution.
    #[tokio::test]
    async fn the_bundled_sqlite_keeps_plans_whatever_the_bound_values() {
        use sea_orm::ConnectionTrait;
        let db = super::connect("sqlite::memory:", std::time::Duration::from_secs(5)).await.unwrap();
        let rows = db
            .query_all_raw(sea_orm::Statement::from_string(db.get_database_backend(), "PRAGMA compile_options"))
            .await
            .unwrap();
        let options: Vec<String> = rows.iter().filter_map(|row| row.try_get_by_index::<String>(0).ok()).collect();
        for wanted in ["ENABLE_QPSG", "DEFAULT_MEMSTATUS=0"] {
            assert!(options.iter().any(|o| o == wanted), "SQLite built without {wanted}: {options:?}");
        }
    }
}
