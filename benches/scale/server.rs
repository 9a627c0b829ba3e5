//! The database a scale run uses and the release binary serving it, each
//! cleaned up when dropped: the server killed, a PostgreSQL database dropped,
//! even when the bench panics.

use std::process::Command;
use std::time::{Duration, Instant};

use sea_orm::ConnectionTrait;
use tokio::runtime::Runtime;

use crate::common::{self, PlinthProcess};

pub const MASTER_KEY: &str = "plk_bench_scale_master_key_4f1c9a7e2b";

/// A fresh database: SQLite in a temporary directory, or a new database on the
/// PostgreSQL server `admin_url` names (dropped again on drop). The directory
/// is the server's working and data directory either way.
pub struct Database {
    pub url: String,
    admin_url: Option<String>,
    pub dir: tempfile::TempDir,
}

impl Database {
    pub fn fresh(runtime: &Runtime, admin_url: Option<&str>) -> Database {
        let dir = tempfile::tempdir().unwrap();
        let url = match admin_url {
            Some(admin) => runtime.block_on(common::fresh_postgres(admin)),
            None => format!("sqlite://{}?mode=rwc", dir.path().join("scale.db").display()),
        };
        Database { url, admin_url: admin_url.map(str::to_string), dir }
    }

    pub fn is_postgres(&self) -> bool {
        self.admin_url.is_some()
    }

    /// PostgreSQL's statistics after seeding, as autovacuum would gather them
    /// within a minute (see `common::analyze`).
    pub fn analyze(&self, runtime: &Runtime) {
        if self.is_postgres() {
            runtime.block_on(common::analyze(&self.url));
        }
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        // PLINTH_SCALE_KEEP=1 keeps each database for profiling afterwards.
        if std::env::var("PLINTH_SCALE_KEEP").is_ok_and(|v| v.trim() == "1") {
            if let Ok(spare) = tempfile::tempdir() {
                let dir = std::mem::replace(&mut self.dir, spare).keep();
                eprintln!("kept {} (directory {})", self.url, dir.display());
            }
            return;
        }
        let Some(admin) = self.admin_url.clone() else { return };
        let name = self.url.rsplit_once('/').map(|(_, name)| name.to_string()).unwrap_or_default();
        // Its own thread and runtime: this may run while a panic unwinds out of
        // the bench's runtime.
        let drop_it = name.clone();
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
            runtime.block_on(async {
                let admin = sea_orm::Database::connect(&admin).await.ok()?;
                admin.execute_unprepared(&format!("DROP DATABASE IF EXISTS {drop_it} WITH (FORCE)")).await.ok()
            })
        })
        .join();
        if !matches!(dropped, Ok(Some(_))) {
            eprintln!("could not drop database {name}");
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Cache {
    /// `PLINTH_RESPONSE_CACHE_BYTES=0`: every read built from the database.
    Off,
    /// The default 64 MiB.
    On,
}

/// The `plinth` binary on `Database`, killed on drop.
pub struct Server {
    process: Option<PlinthProcess>,
    pub cache: Cache,
    /// `http://127.0.0.1:port`
    pub base: String,
    /// `http://127.0.0.1:port/api/v1`
    pub api: String,
}

impl Server {
    pub fn start(db: &Database, cache: Cache) -> Server {
        let cache_bytes = match cache {
            Cache::Off => "0",
            Cache::On => "67108864",
        };
        let env = [("PLINTH_BOOTSTRAP_API_KEY", MASTER_KEY), ("PLINTH_RESPONSE_CACHE_BYTES", cache_bytes)];
        let process = PlinthProcess::start(&db.url, db.dir.path(), &env);
        let base = format!("http://{}", process.addr);
        Server { api: format!("{base}/api/v1"), base, cache, process: Some(process) }
    }

    /// Its resident memory, KiB.
    pub fn rss_kib(&self) -> u64 {
        self.process.as_ref().map_or(0, PlinthProcess::rss_kib)
    }

    /// SIGTERM; killed if it has not exited within 40 s (it gives in-flight
    /// requests 30 s at most).
    pub fn stop(mut self) {
        let Some(mut process) = self.process.take() else { return };
        let _ = Command::new("kill").args(["-TERM", &process.child.id().to_string()]).status();
        let deadline = Instant::now() + Duration::from_secs(40);
        while Instant::now() < deadline {
            if !matches!(process.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        eprintln!("plinth did not stop within 40 s after SIGTERM; killing it");
        let _ = process.child.kill();
        let _ = process.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut process) = self.process.take() {
            let _ = process.child.kill();
            let _ = process.child.wait();
        }
    }
}
