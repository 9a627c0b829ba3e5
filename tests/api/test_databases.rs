//! Each test's own database: an empty one ([`fresh_database`], for tests of
//! the first start and of migrations) or one already migrated
//! ([`migrated_database`], what `TestApp` starts on).
//!
//! Migrating is most of what starting an app costs a test (41 migrations),
//! so a process migrates once, into a template, and every test gets a copy:
//! on SQLite the template's bytes written to the test's own file, on
//! PostgreSQL `CREATE DATABASE … TEMPLATE`. The app still runs its migrations
//! at start, and finds none pending.

use sea_orm::{ConnectionTrait, Database};
use tempfile::TempDir;
use tokio::sync::OnceCell;

/// A test's own place: a temp directory and, on PostgreSQL, the database made
/// for it. Dropping it removes both, so a run leaves no `plinth_test_*`
/// database behind. A second instance on someone else's database gets a
/// directory only (`TestData::from(tempdir)`).
pub struct TestData {
    dir: TempDir,
    /// `PLINTH_TEST_DATABASE_URL` and the name of the database made for this test.
    owned_database: Option<(String, String)>,
}

impl From<TempDir> for TestData {
    fn from(dir: TempDir) -> Self {
        TestData { dir, owned_database: None }
    }
}

impl std::ops::Deref for TestData {
    type Target = TempDir;
    fn deref(&self) -> &TempDir {
        &self.dir
    }
}

impl Drop for TestData {
    fn drop(&mut self) {
        let Some((admin_url, name)) = self.owned_database.take() else { return };
        // Drop runs inside the test's runtime, which cannot be blocked on: the
        // DROP runs on a thread and runtime of its own. FORCE ends the
        // connections the app's pool still holds.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            runtime.block_on(async {
                let admin = Database::connect(&admin_url).await.expect("connect to PLINTH_TEST_DATABASE_URL");
                admin.execute_unprepared(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await.map(|_| ())
            })
        })
        .join();
        if let Ok(Err(error)) = dropped {
            eprintln!("could not drop a test database: {error}");
        }
    }
}

/// One test's directory and an empty database: a SQLite file in the
/// directory, or a new PostgreSQL database next to `PLINTH_TEST_DATABASE_URL`,
/// dropped with the directory.
pub async fn fresh_database() -> (TestData, String) {
    new_database(None).await
}

/// [`fresh_database`] with every migration applied, copied from the process's
/// template.
pub async fn migrated_database() -> (TestData, String) {
    match postgres_admin_url() {
        Some(admin_url) => {
            let template = POSTGRES_TEMPLATE.get_or_init(|| make_postgres_template(admin_url)).await;
            new_database(Some(template)).await
        }
        None => {
            let template = SQLITE_TEMPLATE.get_or_init(make_sqlite_template).await;
            let (dir, url) = new_database(None).await;
            std::fs::write(dir.path().join(SQLITE_FILE), template).expect("write the migrated SQLite template");
            (dir, url)
        }
    }
}

const SQLITE_FILE: &str = "plinth.db";

fn postgres_admin_url() -> Option<String> {
    std::env::var("PLINTH_TEST_DATABASE_URL").ok().filter(|url| !url.is_empty())
}

fn sqlite_url(dir: &std::path::Path) -> String {
    format!("sqlite://{}?mode=rwc", dir.join(SQLITE_FILE).display())
}

async fn new_database(postgres_template: Option<&str>) -> (TestData, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    match postgres_admin_url() {
        Some(admin_url) => {
            let name = format!("plinth_test_{}", uuid::Uuid::new_v4().simple());
            let copy = postgres_template.map(|template| format!(" TEMPLATE {template}")).unwrap_or_default();
            let admin = Database::connect(&admin_url).await.expect("connect to PLINTH_TEST_DATABASE_URL");
            admin.execute_unprepared(&format!("CREATE DATABASE {name}{copy}")).await.expect("create test database");
            admin.close().await.ok();
            let url = database_url_beside(&admin_url, &name);
            (TestData { dir, owned_database: Some((admin_url, name)) }, url)
        }
        None => {
            let url = sqlite_url(dir.path());
            (TestData::from(dir), url)
        }
    }
}

fn database_url_beside(admin_url: &str, name: &str) -> String {
    let (base, _) = admin_url.rsplit_once('/').expect("database URL has a path");
    format!("{base}/{name}")
}

static SQLITE_TEMPLATE: OnceCell<Vec<u8>> = OnceCell::const_new();
static POSTGRES_TEMPLATE: OnceCell<String> = OnceCell::const_new();

/// A migrated SQLite database's bytes. The connection is closed before the
/// file is read, which checkpoints the write-ahead log into it.
async fn make_sqlite_template() -> Vec<u8> {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = Database::connect(sqlite_url(dir.path())).await.expect("open the SQLite template");
    plinth::db::migrate(&db).await.expect("migrate the SQLite template");
    db.close().await.expect("close the SQLite template");
    std::fs::read(dir.path().join(SQLITE_FILE)).expect("read the SQLite template")
}

/// A migrated PostgreSQL database this process copies its tests' databases
/// from, named `plinth_test_template_<pid>_…`. Templates of processes that have
/// ended are dropped here (`.ci/run` drops every `plinth_test_*` database too).
async fn make_postgres_template(admin_url: String) -> String {
    let admin = Database::connect(&admin_url).await.expect("connect to PLINTH_TEST_DATABASE_URL");
    let left: Vec<String> = admin
        .query_all_raw(sea_orm::Statement::from_string(
            admin.get_database_backend(),
            "SELECT datname FROM pg_database WHERE datname LIKE 'plinth_test_template_%'",
        ))
        .await
        .expect("list test templates")
        .iter()
        .filter_map(|row| row.try_get_by_index::<String>(0).ok())
        .collect();
    for name in left {
        let pid = name.trim_start_matches("plinth_test_template_").split('_').next().unwrap_or_default();
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            admin.execute_unprepared(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await.ok();
        }
    }
    let name = format!("plinth_test_template_{}_{}", std::process::id(), uuid::Uuid::new_v4().simple());
    admin.execute_unprepared(&format!("CREATE DATABASE {name}")).await.expect("create the test template");
    admin.close().await.ok();
    // Copies need the template without connections: this one is closed first.
    let db = Database::connect(database_url_beside(&admin_url, &name)).await.expect("open the test template");
    plinth::db::migrate(&db).await.expect("migrate the test template");
    db.close().await.expect("close the test template");
    name
}
