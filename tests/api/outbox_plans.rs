//! The dispatcher's turn across sites (`webhooks::outbox_turns`) reads the
//! outbox by index ranges only: the sites with events by a loose index scan,
//! each site's oldest by its own range, without a sort, at 100,000 events of
//! 1,000 sites. A backlog must not make each pass a scan of the whole outbox.

use plinth::webhooks::outbox_turns::{oldest_of_query, sites_with_events_query, SITES_PER_PASS};
use sea_orm::{ConnectionTrait, DatabaseTransaction, DbBackend, Statement, TransactionTrait};
use uuid::Uuid;

use crate::helpers::TestApp;

const EVENTS: u32 = 100_000;
const SITES: u32 = 1_000;

/// The plan of `statement`, its values bound, one line per step.
async fn plan_of(txn: &DatabaseTransaction, statement: Statement) -> String {
    let backend = txn.get_database_backend();
    let (explain, column) = match backend {
        DbBackend::Postgres => ("EXPLAIN", 0),
        _ => ("EXPLAIN QUERY PLAN", 3),
    };
    let sql = format!("{explain} {}", statement.sql);
    let explained = Statement { sql, ..statement };
    let rows = txn.query_all_raw(explained).await.unwrap();
    rows.iter().map(|r| r.try_get_by_index::<String>(column).unwrap()).collect::<Vec<_>>().join("\n")
}

/// Every step that reads the outbox reads it through the site index, and
/// nothing is sorted.
fn by_index_only(plan: &str) -> bool {
    // A step reads a table where the plan says `on <table>` (PostgreSQL) or
    // `SCAN <table>` / `SEARCH <table>` (SQLite); the outbox is `e` in the loop.
    let reads_outbox = |line: &&str| {
        let words: Vec<&str> = line.split_whitespace().collect();
        words.windows(2).any(|w| matches!(w[0], "on" | "SCAN" | "SEARCH") && matches!(w[1], "event_outbox" | "e"))
    };
    let outbox_reads: Vec<&str> = plan.lines().filter(reads_outbox).collect();
    !outbox_reads.is_empty()
        && outbox_reads.iter().all(|line| line.contains("ix_event_outbox_site_seq"))
        && !plan.contains("Sort")
        && !plan.contains("TEMP B-TREE")
}

/// `EVENTS` events spread over `SITES` sites, written in bulk.
async fn fill_outbox(txn: &DatabaseTransaction) {
    let sql = match txn.get_database_backend() {
        DbBackend::Postgres => format!(
            "INSERT INTO event_outbox (site_id, event, data, occurred_at) \
             SELECT md5((i % {SITES})::text)::uuid, 'blog.created', '{{}}', now() FROM generate_series(1, {EVENTS}) AS i"
        ),
        _ => format!(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {EVENTS}) \
             INSERT INTO event_outbox (site_id, event, data, occurred_at) \
             SELECT CAST(printf('%016d', i % {SITES}) AS BLOB), 'blog.created', '{{}}', \
             strftime('%Y-%m-%d %H:%M:%f+00:00', 'now') FROM n"
        ),
    };
    txn.execute_unprepared(&sql).await.unwrap();
    if txn.get_database_backend() == DbBackend::Postgres {
        // The outbox grows row by row, so autovacuum has analyzed it.
        txn.execute_unprepared("ANALYZE event_outbox").await.unwrap();
    }
}

#[actix_web::test]
async fn a_turn_across_sites_reads_the_outbox_by_index_ranges_at_100_000_events() {
    let app = TestApp::spawn().await;
    // One transaction, never committed: the app's own dispatcher sees none of
    // these events, so it does not drain them while the plans are read.
    let txn = app.state.db.begin().await.unwrap();
    fill_outbox(&txn).await;
    let backend = txn.get_database_backend();

    let sites = txn.query_all_raw(sites_with_events_query(backend, None, SITES_PER_PASS)).await.unwrap();
    let sites: Vec<Uuid> = sites.iter().map(|row| row.try_get("", "site_id").unwrap()).collect();
    assert_eq!(sites.len(), SITES_PER_PASS, "a pass finds as many sites as it takes");
    let mut sorted = sites.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, sites, "distinct sites, in id order");

    let cases = [
        ("the first sites with events", sites_with_events_query(backend, None, SITES_PER_PASS)),
        ("the sites after the last one served", sites_with_events_query(backend, Some(sites[5]), SITES_PER_PASS)),
        ("each site's oldest events", oldest_of_query(backend, &sites, 200 / SITES_PER_PASS)),
    ];
    let mut wrong = Vec::new();
    for (name, statement) in cases {
        let sql = statement.sql.clone();
        let plan = plan_of(&txn, statement).await;
        if !by_index_only(&plan) {
            wrong.push(format!("{name}: expected index ranges of ix_event_outbox_site_seq, no sort:\n{sql}\n{plan}"));
        }
    }
    txn.rollback().await.unwrap();
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}
