//! PostgreSQL plans a prepared statement for its values five times; from then
//! on it may run one generic plan (made without the values) instead, for as
//! long as the connection keeps the statement and the statistics of its tables
//! stay as they are. The plan it keeps must be each list's index range scan
//! once the tables are large, or every request would read a whole site.
//! (SQLite keeps one plan per statement whatever its values, QPSG, and that
//! plan is what `listing` and `family_plans` read.)

use plinth::content::listing::{self, Filter, Sort, SortKey};
use plinth::content::{slug, ContentKind, ContentStatus};
use sea_orm::sea_query::{PostgresQueryBuilder, QueryBuilder};
use sea_orm::{ConnectionTrait, DbBackend, QueryTrait, Statement, TransactionTrait};
use uuid::Uuid;

use crate::family_plans::{family_lists, fill_families};
use crate::helpers::TestApp;

/// More executions than PostgreSQL's five custom plans before it weighs a
/// generic one.
const RUNS: usize = 7;

fn sql(text: String) -> Statement {
    Statement::from_string(DbBackend::Postgres, text)
}

/// `statement`'s values as SQL literals, for `EXECUTE`.
fn arguments(statement: &Statement) -> String {
    let values = statement.values.iter().flat_map(|values| values.0.iter());
    let values: Vec<String> = values.map(|value| PostgresQueryBuilder.value_to_string(value)).collect();
    match values.is_empty() {
        true => String::new(),
        false => format!("({})", values.join(", ")),
    }
}

/// Runs prepared statement `name` [`RUNS`] times with `statement`'s values,
/// then answers the plan it runs now, as `EXPLAIN EXECUTE` shows it.
async fn plan_in_use(txn: &impl ConnectionTrait, name: &str, statement: &Statement) -> String {
    let arguments = arguments(statement);
    for _ in 0..RUNS {
        txn.execute_raw(sql(format!("EXECUTE {name}{arguments}"))).await.unwrap();
    }
    let rows = txn.query_all_raw(sql(format!("EXPLAIN EXECUTE {name}{arguments}"))).await.unwrap();
    rows.iter().map(|r| r.try_get_by_index::<String>(0).unwrap()).collect::<Vec<_>>().join("\n")
}

/// The lists and probes a request repeats, as the services build them, each
/// with the index it must walk (`|` between indexes that give the same order).
fn hot_statements(site: Uuid) -> Vec<(&'static str, Statement, &'static str)> {
    let backend = DbBackend::Postgres;
    let blogs = |status: Option<ContentStatus>| Filter { status, ..Filter::live(ContentKind::Blog, site) };
    let page = |filter: &Filter, sort: Sort, offset: u64| listing::page_query(filter, sort, 10, offset).build(backend);
    let by_title = Sort { key: SortKey::Title, descending: false };
    let trash = Filter::trashed(site, Some(ContentKind::Blog));
    vec![
        ("admin list", page(&blogs(None), Sort::NEWEST, 0), "ix_content_sites_live_created"),
        ("deep admin page", page(&blogs(None), Sort::NEWEST, 5_000), "ix_content_sites_live_created"),
        ("by title", page(&blogs(None), by_title, 0), "ix_content_sites_live_title"),
        (
            "published list",
            page(&Filter::published(ContentKind::Blog, site), Sort::LATEST_PUBLISHED, 0),
            "ix_content_sites_published",
        ),
        ("drafts", page(&blogs(Some(ContentStatus::Draft)), Sort::NEWEST, 0), "ix_content_sites_draft"),
        ("trash", page(&trash, Sort::LATEST_DELETED, 0), "ix_content_sites_trash"),
        (
            "slug check of a write",
            slug::taken_query(ContentKind::Blog, &[site], vec!["plan-77".into()], None).build(backend),
            "ux_content_sites_slug|ix_content_sites_slug",
        ),
    ]
}

fn walks(plan: &str, index: &str) -> bool {
    plan.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|word| index.split('|').any(|i| i == word))
}

/// The plans kept while a site's tables held a hundred rows (where a scan
/// and a sort are cheapest, and rightly chosen) last until the tables'
/// statistics change: autovacuum's ANALYZE after each tenth of growth, or the
/// app's own after a bulk write. From then on, whether PostgreSQL keeps a
/// generic plan or plans each run, the plan run is the list's index. A write
/// does not wait for the statistics: its transaction plans every run.
#[actix_web::test]
async fn plans_kept_on_small_tables_give_way_to_the_indexes_when_statistics_change() {
    let app = TestApp::spawn().await;
    let db = &app.state.db;
    if db.get_database_backend() != DbBackend::Postgres {
        return; // No generic plans: SQLite's plan per statement is read by `listing`.
    }
    let site: Uuid = app.create_site_id("generic-plans").await.parse().unwrap();
    crate::listing::fill(db, site, 100).await;
    let families = fill_families(db, site, 1..=100).await;
    db.execute_unprepared("ANALYZE").await.unwrap();

    let mut statements = hot_statements(site);
    let family = family_lists(DbBackend::Postgres, &families).into_iter();
    statements.extend(family.map(|(name, mut statement, index)| {
        statement.sql.push_str(" LIMIT 10"); // as the service's page adds it
        (name, statement, index)
    }));
    // One session (a transaction's connection) holds the prepared statements,
    // as a pooled connection holds the app's, and a write transaction its own.
    let txn = db.begin().await.unwrap();
    let write = plinth::db::begin_write(db).await.unwrap();
    let (_, slug_check, _) = statements.iter().find(|(name, _, _)| *name == "slug check of a write").unwrap();
    write.execute_raw(sql(format!("PREPARE write_slug AS {}", slug_check.sql))).await.unwrap();
    let small_write = plan_in_use(&write, "write_slug", slug_check).await;
    for (number, (_, statement, _)) in statements.iter().enumerate() {
        txn.execute_raw(sql(format!("PREPARE hot_{number} AS {}", statement.sql))).await.unwrap();
    }
    let mut small = Vec::new();
    for (number, (_, statement, _)) in statements.iter().enumerate() {
        small.push(plan_in_use(&txn, &format!("hot_{number}"), statement).await);
    }
    // Small tables, rightly scanned: the hazard this test is about is real.
    assert!(small.iter().any(|plan| plan.contains("Seq Scan")), "{}", small.join("\n\n"));

    // The site grows a hundredfold in bulk (committed by other connections),
    // then its statistics are refreshed, as autovacuum or the app would.
    crate::listing::fill_numbered(db, site, 101..=10_000).await;
    fill_families(db, site, 101..=10_000).await;
    let grown_write = plan_in_use(&write, "write_slug", slug_check).await;
    write.rollback().await.unwrap();
    assert!(
        small_write.contains("Seq Scan") && grown_write.contains("Index") && !grown_write.contains("Seq Scan"),
        "a write's slug check is planned for the tables of the moment:\n{small_write}\n\n{grown_write}"
    );
    txn.execute_raw(sql("ANALYZE".into())).await.unwrap();

    // A page's items: its ids by the list's index, each item by key, and the
    // page's ten rows put in order.
    let items = listing::page_items_query(&Filter::live(ContentKind::Blog, site), Sort::NEWEST, 10, 0);
    let items = items.build(DbBackend::Postgres);
    txn.execute_raw(sql(format!("PREPARE hot_items AS {}", items.sql))).await.unwrap();
    let mut wrong = Vec::new();
    let plan = plan_in_use(&txn, "hot_items", &items).await;
    let page_sorted = plan.contains("Sort") && plan.contains("rows=10 ");
    if !walks(&plan, "ix_content_sites_live_created") || !walks(&plan, "contents_pkey") || !page_sorted {
        wrong.push(format!("a page's items: expected the list's index, then items by key:\n{plan}"));
    }
    for (number, (name, statement, index)) in statements.iter().enumerate() {
        let plan = plan_in_use(&txn, &format!("hot_{number}"), statement).await;
        if !walks(&plan, index) || plan.contains("Seq Scan") || plan.contains("Sort") {
            wrong.push(format!("{name}: expected a range scan of {index} without a sort:\n{plan}"));
        }
    }
    for number in 0..statements.len() {
        txn.execute_raw(sql(format!("DEALLOCATE hot_{number}"))).await.unwrap();
    }
    txn.execute_raw(sql("DEALLOCATE hot_items".into())).await.unwrap();
    txn.rollback().await.unwrap();
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// What the test above relies on, on every pooled connection: PostgreSQL's
/// own plan cache for reads and a plan per run in write transactions; the
/// bundled SQLite built to keep a statement's plan whatever its bound values
/// (QPSG), with no statistics to go stale.
#[actix_web::test]
async fn every_connection_plans_as_the_tests_of_plans_assume() {
    let app = TestApp::spawn().await;
    let db = &app.state.db;
    let backend = db.get_database_backend();
    let (sql, wanted) = match backend {
        DbBackend::Postgres => ("SHOW plan_cache_mode", "auto"),
        _ => {
            ("SELECT compile_options FROM pragma_compile_options WHERE compile_options = 'ENABLE_QPSG'", "ENABLE_QPSG")
        }
    };
    // Every pooled connection, not only the first: hold several at once.
    let held: Vec<_> = futures_util::future::join_all((0..4).map(|_| db.begin())).await;
    for txn in held {
        let txn = txn.unwrap();
        assert_eq!(setting(&txn, sql).await, wanted);
        txn.rollback().await.unwrap();
    }
    let write = plinth::db::begin_write(db).await.unwrap();
    let in_writes = if backend == DbBackend::Postgres { "force_custom_plan" } else { wanted };
    assert_eq!(setting(&write, sql).await, in_writes);
    write.rollback().await.unwrap();
    // The setting is the write's own: the connection reads with the cache again.
    let after = db.begin().await.unwrap();
    assert_eq!(setting(&after, sql).await, wanted);
    after.rollback().await.unwrap();
}

async fn setting(connection: &impl ConnectionTrait, sql: &str) -> String {
    let statement = Statement::from_string(connection.get_database_backend(), sql);
    let row = connection.query_one_raw(statement).await.unwrap().expect("one row");
    row.try_get_by_index::<String>(0).unwrap()
}

/// How many generic and custom plans prepared statement `name` has made.
async fn plans_made(txn: &impl ConnectionTrait, name: &str) -> (i64, i64) {
    let query = format!("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = '{name}'");
    let row = txn.query_one_raw(sql(query)).await.unwrap().unwrap();
    (row.try_get_by_index(0).unwrap(), row.try_get_by_index(1).unwrap())
}

/// A page of a big site's list is planned once per connection, not per
/// request: with its LIMIT and OFFSET as numbers (`literal_paging`), the
/// generic plan is costed for the page it reads and PostgreSQL keeps it. With
/// them as parameters it is costed for a tenth of the site and never kept, so
/// every request paid the planner (measured at 100,000 posts: 1.8 ms of
/// planning for 0.3 ms of work).
#[actix_web::test]
async fn a_big_sites_page_keeps_one_generic_plan_when_its_paging_is_literal() {
    let app = TestApp::spawn().await;
    let db = &app.state.db;
    if db.get_database_backend() != DbBackend::Postgres {
        return; // SQLite plans once per prepared statement whatever its values.
    }
    let site: Uuid = app.create_site_id("literal-paging").await.parse().unwrap();
    crate::listing::fill(db, site, 100).await;
    crate::listing::fill_numbered(db, site, 101..=10_000).await;
    db.execute_unprepared("ANALYZE").await.unwrap();
    let page = listing::page_items_query(&Filter::live(ContentKind::Blog, site), Sort::NEWEST, 10, 0);
    let as_built = page.build(DbBackend::Postgres);
    let literal = plinth::literal_paging::with_literal_paging(as_built.clone());
    assert!(literal.sql.contains("LIMIT 10 OFFSET 0"), "{}", literal.sql);

    let txn = db.begin().await.unwrap();
    for (name, statement) in [("with_parameters", &as_built), ("with_numbers", &literal)] {
        txn.execute_raw(sql(format!("PREPARE {name} AS {}", statement.sql))).await.unwrap();
        plan_in_use(&txn, name, statement).await;
    }
    let (kept, _) = plans_made(&txn, "with_numbers").await;
    let (never, custom) = plans_made(&txn, "with_parameters").await;
    txn.rollback().await.unwrap();
    assert!(kept > 0, "the page with its paging as numbers keeps a generic plan");
    assert_eq!((never, custom > 0), (0, true), "with parameters, every run is planned");
}

/// Index pages a search's bitmap index scan reads, from `EXPLAIN (ANALYZE, BUFFERS)`.
async fn index_pages_read(db: &impl ConnectionTrait, query: &str) -> u64 {
    let explain = format!("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) {query}");
    let rows = db.query_all_raw(sql(explain)).await.unwrap();
    let plan: serde_json::Value = rows[0].try_get_by_index(0).unwrap();
    fn find(node: &serde_json::Value) -> Option<u64> {
        if node["Node Type"] == "Bitmap Index Scan" {
            return Some(node["Shared Hit Blocks"].as_u64()? + node["Shared Read Blocks"].as_u64()?);
        }
        node["Plans"].as_array()?.iter().find_map(find)
    }
    find(&plan[0]["Plan"]).unwrap_or_else(|| panic!("no bitmap index scan in {plan}"))
}

#[actix_web::test]
async fn a_search_reads_a_few_index_pages_however_many_writes_came_before_it() {
    let app = TestApp::spawn().await;
    let db = &app.state.db;
    if db.get_database_backend() != DbBackend::Postgres {
        return; // FTS5 on SQLite keeps no pending list.
    }
    let site: Uuid = app.create_site_id("search-pending").await.parse().unwrap();
    // 10,000 posts written since the last vacuum (autovacuum may not come
    // between a burst of writes and the next search).
    crate::listing::fill_numbered(db, site, 1..=10_000).await;
    let query = format!(
        "SELECT count(*) FROM content_sites WHERE {} @@ '''~s{}blog'' & ''1234'':*'::tsquery",
        plinth_migrations::POSTGRES_SEARCH_VECTOR,
        site.simple()
    );
    let txn = db.begin().await.unwrap();
    txn.execute_unprepared("SET LOCAL enable_seqscan = off").await.unwrap();
    let pages = index_pages_read(&txn, &query).await;
    // With GIN's pending list (`fastupdate`), every search read the list of
    // entries not yet merged: about 170 pages here.
    assert!(pages <= 20, "a search for one post among 10,000 read {pages} index pages");
}
