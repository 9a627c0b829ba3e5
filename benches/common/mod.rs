//! What the benches share: a fresh PostgreSQL database, and its statistics.

use sea_orm::ConnectionTrait;

/// A fresh database on the PostgreSQL server `admin_url` names.
pub async fn fresh_postgres(admin_url: &str) -> String {
    let name = format!("plinth_bench_{}", uuid::Uuid::new_v4().simple());
    let admin = sea_orm::Database::connect(admin_url).await.unwrap();
    admin.execute_unprepared(&format!("CREATE DATABASE {name}")).await.unwrap();
    let (base, _) = admin_url.rsplit_once('/').unwrap();
    format!("{base}/{name}")
}

/// Gathers PostgreSQL's statistics after seeding, as autovacuum would within a
/// minute: without them the planner takes 1,000 fresh rows for one and nests
/// loops (30-50 ms per list instead of under 1 ms).
#[allow(dead_code)] // used by the http bench only
pub async fn analyze(url: &str) {
    let db = sea_orm::Database::connect(url).await.unwrap();
    db.execute_unprepared("ANALYZE").await.unwrap();
}
