//! A front end's localized page with its media (`locale`, `include=media`)
//! costs three queries beside the list's own, each probing an index by the
//! page's ids: no scan of the localizations or the media library, at 100,000
//! of each.

use sea_orm::{ConnectionTrait, DbBackend, QueryTrait, Statement};
use uuid::Uuid;

use crate::family_plans::fill;
use crate::helpers::TestApp;
use crate::listing::{fill as fill_posts, plan_of};

const ROWS: u32 = 100_000;

async fn ids(db: &sea_orm::DatabaseConnection, sql: &str) -> Vec<Uuid> {
    let rows = db.query_all_raw(Statement::from_string(db.get_database_backend(), sql.to_owned())).await.unwrap();
    rows.iter().map(|row| row.try_get_by_index(0).unwrap()).collect()
}

#[actix_web::test]
async fn a_localized_page_with_media_reads_by_index_at_100_000_rows() {
    let app = TestApp::spawn().await;
    let db = &app.state.db;
    let backend = db.get_database_backend();
    let site: Uuid = app.create_site_id("front-plans").await.parse().unwrap();
    let de: Uuid = app.locale_id("de").await.parse().unwrap();
    let en: Uuid = app.locale_id("en").await.parse().unwrap();

    // A localization of every post, and a library with a variant and a text per file.
    fill_posts(db, site, ROWS).await;
    let (new_id, locale) = match backend {
        DbBackend::Postgres => ("gen_random_uuid()".to_string(), format!("'{de}'")),
        _ => ("randomblob(16)".to_string(), format!("X'{}'", de.simple())),
    };
    let localizations = format!(
        "INSERT INTO content_localizations (id, content_id, locale_id, title, subtitle, excerpt, body, meta_title, \
         meta_description, created_at, updated_at) \
         SELECT {new_id}, id, {locale}, title, '', '', '', '', '', created_at, updated_at FROM contents"
    );
    db.execute_unprepared(&localizations).await.unwrap();
    fill(db, "media_files", &(1..=ROWS), &[]).await;
    let site_value = match backend {
        DbBackend::Postgres => format!("'{site}'"),
        _ => format!("X'{}'", site.simple()),
    };
    db.execute_unprepared(&format!(
        "INSERT INTO media_sites (media_id, site_id) SELECT id, {site_value} FROM media_files"
    ))
    .await
    .unwrap();
    for (table, columns) in [
        ("media_variants", "id, media_id, variant_name, width, height, file_size, mime_type, storage_key, created_at"),
        ("media_metadata", "id, media_id, locale_id, alt_text, created_at, updated_at"),
    ] {
        let values = match table {
            "media_variants" => format!("{new_id}, id, 'small', 1, 1, 1, 'image/png', 'k', created_at"),
            _ => format!("{new_id}, id, {locale}, 'alt', created_at, updated_at"),
        };
        db.execute_unprepared(&format!("INSERT INTO {table} ({columns}) SELECT {values} FROM media_files"))
            .await
            .unwrap();
    }
    if backend == DbBackend::Postgres {
        // Grown row by row through the app, so autovacuum has analyzed them.
        db.execute_unprepared(
            "ANALYZE content_localizations, media_files, media_sites, media_variants, media_metadata",
        )
        .await
        .unwrap();
    }

    let page = ids(db, "SELECT id FROM contents ORDER BY created_at DESC LIMIT 10").await;
    let media = ids(db, "SELECT id FROM media_files ORDER BY created_at DESC LIMIT 10").await;
    let cases = [
        (
            "the page's localizations in the chain",
            plinth::content::localized::localizations_query(&page, &[de, en]).build(backend),
            "ux_content_localizations",
        ),
        (
            "the files the page shows",
            plinth::embedded_media::files_query(site, &media).build(backend),
            "media_files_pkey|sqlite_autoindex_media_files_1",
        ),
        ("their variants", plinth::embedded_media::variants_query(&media).build(backend), "ix_media_variants_media"),
        (
            "their alt texts",
            plinth::embedded_media::texts_query(&media, &[de, en]).build(backend),
            "ux_media_metadata_locale",
        ),
    ];
    let mut wrong = Vec::new();
    for (name, statement, index) in cases {
        let sql = statement.to_string();
        let plan = plan_of(db, &sql).await;
        let names_index =
            plan.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|word| index.split('|').any(|i| i == word));
        // A scan of a whole table: `Seq Scan` (PostgreSQL), `SCAN <table>` without an index (SQLite).
        let scans = plan.lines().any(|line| {
            line.contains("Seq Scan")
                || (line.trim_start_matches(['|', '-', '`', ' ']).starts_with("SCAN ") && !line.contains("INDEX"))
        });
        if !names_index || scans {
            wrong.push(format!("{name}: expected probes of {index}, no scan:\n{sql}\n{plan}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}
