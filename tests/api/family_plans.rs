//! Every family's list (webhooks and their deliveries, notifications, API
//! keys, the audit trail, documents, forms, submissions, the media library and
//! its trash) is an index range scan in its own order: its plan on tables of
//! 10,000 rows, filled in bulk, names the list's index and sorts nothing. The
//! queries are the ones the services run.

use std::ops::RangeInclusive;

use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, QueryTrait, Statement};
use serde_json::json;
use uuid::Uuid;

use crate::helpers::TestApp;
use crate::listing::plan_of;

const ROWS: u32 = 10_000;

/// A column as the catalog describes it: name, type, and whether an insert
/// may leave it out (nullable, or with a default).
struct Column {
    name: String,
    kind: String,
    optional: bool,
}

async fn columns(db: &DatabaseConnection, table: &str) -> Vec<Column> {
    let backend = db.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => format!(
            "SELECT column_name::text, data_type::text, (is_nullable = 'YES' OR column_default IS NOT NULL) \
             FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '{table}'"
        ),
        _ => {
            format!("SELECT name, type, (\"notnull\" = 0 OR dflt_value IS NOT NULL) FROM pragma_table_info('{table}')")
        }
    };
    let rows = db.query_all_raw(Statement::from_string(backend, sql)).await.unwrap();
    rows.iter()
        .map(|r| Column {
            name: r.try_get_by_index(0).unwrap(),
            kind: r.try_get_by_index::<String>(1).unwrap().to_lowercase(),
            optional: r.try_get_by_index(2).unwrap(),
        })
        .collect()
}

/// A value of the column's type for row `i` (a distinct one for ids and text).
fn value_of(backend: DbBackend, table: &str, column: &Column) -> String {
    let kind = column.kind.as_str();
    match backend {
        DbBackend::Postgres => match kind {
            "uuid" => format!("md5(i::text || '{table}.{}')::uuid", column.name),
            "boolean" => "false".into(),
            "integer" | "bigint" | "smallint" => "i".into(),
            "double precision" | "real" => "0".into(),
            "timestamp with time zone" => "TIMESTAMPTZ '2020-01-01' + make_interval(mins => i)".into(),
            "json" | "jsonb" => "'{}'".into(),
            _ => format!("'{}-' || i", column.name),
        },
        _ => match kind {
            "uuid_text" => "randomblob(16)".into(),
            "boolean" => "0".into(),
            "integer" => "i".into(),
            "double" | "real" => "0".into(),
            "timestamp_with_timezone_text" => {
                "strftime('%Y-%m-%d %H:%M:%f+00:00', '2020-01-01', '+' || i || ' minutes')".into()
            }
            "json_text" | "jsonb_text" => "'{}'".into(),
            _ => format!("'{}-' || i", column.name),
        },
    }
}

/// Inserts rows numbered `numbers` into `table` in one statement, as a bulk
/// import would: `set` gives some columns' expressions over the row number
/// `i`; every other column an insert cannot leave out gets a value of its type
/// (distinct per number, so a later fill of other numbers adds to it).
pub async fn fill(db: &DatabaseConnection, table: &str, numbers: &RangeInclusive<u32>, set: &[(&str, String)]) {
    let backend = db.get_database_backend();
    let (first, last) = (numbers.start(), numbers.end());
    let numbers = match backend {
        DbBackend::Postgres => format!("SELECT i FROM generate_series({first}, {last}) AS g(i)"),
        _ => format!(
            "WITH RECURSIVE g(i) AS (SELECT {first} UNION ALL SELECT i + 1 FROM g WHERE i < {last}) SELECT i FROM g"
        ),
    };
    let (mut names, mut values) = (Vec::new(), Vec::new());
    for column in columns(db, table).await {
        if let Some((_, expr)) = set.iter().find(|(name, _)| *name == column.name) {
            values.push(expr.clone());
        } else if !column.optional {
            values.push(value_of(backend, table, &column));
        } else {
            continue;
        }
        names.push(column.name);
    }
    let sql =
        format!("INSERT INTO {table} ({}) SELECT {} FROM ({numbers}) AS numbers", names.join(", "), values.join(", "));
    db.execute_unprepared(&sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// A literal of `id` in the backend's storage (a uuid, or 16 bytes on SQLite).
fn uuid_literal(backend: DbBackend, id: Uuid) -> String {
    match backend {
        DbBackend::Postgres => format!("'{id}'"),
        _ => format!("X'{}'", id.simple()),
    }
}

/// The first row's id of `table` (the parent the next fill hangs under).
async fn first_id(db: &DatabaseConnection, table: &str) -> Uuid {
    let backend = db.get_database_backend();
    let sql = format!("SELECT id FROM {table} ORDER BY id LIMIT 1");
    let row = db.query_one_raw(Statement::from_string(backend, sql)).await.unwrap().unwrap();
    row.try_get_by_index(0).unwrap()
}

fn flag(backend: DbBackend, condition: &str) -> String {
    match backend {
        DbBackend::Postgres => format!("({condition})"),
        _ => format!("CASE WHEN {condition} THEN 1 ELSE 0 END"),
    }
}

/// The rows the family lists hang under: the site, its first webhook and form.
#[derive(Clone, Copy)]
pub struct Families {
    pub site: Uuid,
    webhook: Uuid,
    form: Uuid,
    key: Uuid,
}

/// Fills every family's tables with rows numbered `rows` on `site`, in bulk
/// as an import would, without `ANALYZE`.
pub async fn fill_families(db: &DatabaseConnection, site: Uuid, rows: RangeInclusive<u32>) -> Families {
    let rows = &rows;
    let backend = db.get_database_backend();
    let site_value = uuid_literal(backend, site);
    let on_site = || ("site_id", site_value.clone());

    fill(db, "webhooks", rows, &[on_site()]).await;
    let webhook = first_id(db, "webhooks").await;
    let webhook_value = uuid_literal(backend, webhook);
    fill(
        db,
        "webhook_deliveries",
        &(*rows.start()..=*rows.start()),
        &[on_site(), ("webhook_id", webhook_value.clone())],
    )
    .await;
    let delivery = uuid_literal(backend, first_id(db, "webhook_deliveries").await);
    fill(db, "webhook_attempts", rows, &[("webhook_id", webhook_value), ("delivery_id", delivery)]).await;
    // A hundredth unread, as a user who reads them leaves them.
    let read_at = match backend {
        DbBackend::Postgres => "CASE WHEN i % 100 = 7 THEN NULL ELSE TIMESTAMPTZ '2020-01-01' END",
        _ => "CASE WHEN i % 100 = 7 THEN NULL ELSE '2020-01-01 00:00:00+00:00' END",
    };
    let user = ("idp_user_id", "'plan-user'".to_string());
    fill(db, "notifications", rows, &[user, on_site(), ("read_at", read_at.into())]).await;
    fill(db, "api_keys", rows, &[on_site()]).await;
    let key = first_id(db, "api_keys").await;
    fill(db, "api_key_requests", rows, &[("api_key_id", uuid_literal(backend, key))]).await;
    fill(db, "terms", rows, &[on_site(), ("taxonomy", "'category'".into())]).await;
    fill(db, "audit_log", rows, &[]).await;
    let audit_sites = format!("INSERT INTO audit_log_sites (site_id, audit_id, created_at) SELECT {site_value}, id, created_at FROM audit_log WHERE site_id IS NULL \
        AND id NOT IN (SELECT audit_id FROM audit_log_sites)");
    db.execute_unprepared(&audit_sites).await.unwrap();
    fill(db, "documents", rows, &[on_site(), ("is_deleted", flag(backend, "i % 100 = 7"))]).await;
    fill(db, "forms", rows, &[on_site()]).await;
    let form = first_id(db, "forms").await;
    fill(
        db,
        "form_submissions",
        rows,
        &[on_site(), ("form_id", uuid_literal(backend, form)), ("status", "'new'".into())],
    )
    .await;
    let mime = "CASE WHEN i % 3 = 0 THEN 'image/png' WHEN i % 3 = 1 THEN 'application/pdf' ELSE 'video/mp4' END";
    fill(db, "media_files", rows, &[("mime_type", mime.into()), ("is_deleted", flag(backend, "i % 100 = 7"))]).await;
    let media_sites = format!(
        "INSERT INTO media_sites (media_id, site_id) SELECT id, {site_value} FROM media_files \
        WHERE id NOT IN (SELECT media_id FROM media_sites)"
    );
    db.execute_unprepared(&media_sites).await.unwrap();
    Families { site, webhook, form, key }
}

#[actix_web::test]
async fn every_family_list_is_an_index_range_scan_in_its_own_order() {
    let app = TestApp::spawn().await;
    let db = &app.state.db;
    let backend = db.get_database_backend();
    let site: Uuid = app.create_site_id("family-plans").await.parse().unwrap();
    let families = fill_families(db, site, 1..=ROWS).await;

    // These tables grow row by row through the app, so PostgreSQL's autovacuum
    // has analyzed them long before they are large (after 50 rows and every
    // tenth more); only an import writes in bulk, and the media library (the
    // one family an archive brings) is left unanalyzed: its partial indexes
    // hold exactly each list's rows, as the content lists' do.
    if backend == DbBackend::Postgres {
        let grown_by_the_app = "webhooks, webhook_attempts, notifications, api_keys, api_key_requests, audit_log, \
            audit_log_sites, documents, forms, form_submissions, terms";
        db.execute_unprepared(&format!("ANALYZE {grown_by_the_app}")).await.unwrap();
    }

    let cases = family_lists(backend, &families);
    let mut wrong = Vec::new();
    for (name, statement, index) in cases {
        let sql = statement.to_string();
        let plan = plan_of(db, &format!("{sql} LIMIT 10")).await;
        let names_index =
            plan.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|word| index.split('|').any(|i| i == word));
        if !names_index || plan.contains("Sort") || plan.contains("TEMP B-TREE") {
            wrong.push(format!("{name}: expected a range scan of {index} without a sort:\n{sql}\n{plan}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));

    // The API answers from them: a deep page of the library and of the audit trail.
    let page: serde_json::Value =
        app.get(&format!("/sites/{site}/media?page=300&per_page=20"), &app.admin_key).await.json().await.unwrap();
    assert_eq!((page["meta"]["total"].as_u64(), page["data"].as_array().map(Vec::len)), (Some(9_900), Some(20)));
    let res = app.get(&format!("/sites/{site}/media?page=2&mime_category=image"), &app.admin_key).await;
    let images: serde_json::Value = res.json().await.unwrap();
    assert_eq!(images["meta"]["total"].as_u64(), Some(3_300), "{images}");
    assert!(images["data"].as_array().unwrap().iter().all(|m| m["mime_type"] == "image/png"), "{images}");
}

/// Each family's list as its service builds it, with the indexes that give
/// its order (the first is its own; a planner that knows every key or
/// notification is on one site, or every submission new, may rightly walk the
/// wider one).
pub fn family_lists(backend: DbBackend, families: &Families) -> Vec<(&'static str, Statement, &'static str)> {
    let Families { site, webhook, form, key } = *families;
    use plinth::pagination::SortDir;
    use plinth::{api_keys, audit_api, documents, forms, media, notifications, taxonomy, webhooks};
    let form_query = |sort: serde_json::Value| serde_json::from_value::<forms::model::FormListQuery>(sort).unwrap();
    let library = |deleted: bool, category: Option<&str>| media::listing::LibraryFilter {
        site_id: site,
        deleted,
        category: category.map(str::to_string),
        ..Default::default()
    };
    let key_filter =
        |site_id| api_keys::service::KeyFilter { status: None, permission: None, site_id, include_master: false };
    vec![
        ("webhooks", webhooks::service::list_query(site).build(backend), "ix_webhooks_site_created"),
        (
            "webhook deliveries",
            webhooks::service::attempts_query(webhook).build(backend),
            "ix_webhook_attempts_webhook_time",
        ),
        (
            "notifications",
            notifications::service::list_query("plan-user", false, SortDir::Desc).build(backend),
            "ix_notifications_user_time",
        ),
        (
            "unread notifications",
            notifications::service::list_query("plan-user", true, SortDir::Desc).build(backend),
            "ix_notifications_user_time",
        ),
        (
            "a site's notifications",
            notifications::service::site_list_query("plan-user", site, false, SortDir::Desc).build(backend),
            "ix_notifications_user_site_time|ix_notifications_user_time",
        ),
        (
            "a site's notifications, oldest first",
            notifications::service::site_list_query("plan-user", site, false, SortDir::Asc).build(backend),
            "ix_notifications_user_site_time|ix_notifications_user_time",
        ),
        (
            "a site's unread notifications, counted",
            notifications::service::unread_query("plan-user", site).build(backend),
            "ix_notifications_user_site_unread",
        ),
        ("a key's newest requests", api_keys::usage::stored_query(key).build(backend), "ix_api_key_requests_key_time"),
        (
            "a site's categories",
            taxonomy::list_query(site, taxonomy::Taxonomy::Category).build(backend),
            "ix_terms_site_name",
        ),
        (
            "a site's API keys",
            api_keys::service::list_query(&key_filter(Some(site)), chrono::Utc::now()).unwrap().build(backend),
            "ix_api_keys_site_created|ix_api_keys_created",
        ),
        (
            "every API key",
            api_keys::service::list_query(&key_filter(None), chrono::Utc::now()).unwrap().build(backend),
            "ix_api_keys_created",
        ),
        (
            "audit trail",
            audit_api::service::site_entries_query(site, &Default::default()).build(backend),
            "ix_audit_log_sites_page",
        ),
        ("documents", documents::service::list_query(site, None).build(backend), "ix_documents_list"),
        ("documents in the trash", documents::trash::trash_query(site).build(backend), "ix_documents_trash"),
        (
            "forms, newest first",
            forms::service::list_query(site, &form_query(json!({"sort_by": "created_at", "sort_dir": "desc"})))
                .build(backend),
            "ix_forms_site_created",
        ),
        (
            "forms by name",
            forms::service::list_query(site, &form_query(json!({"sort_by": "name", "sort_dir": "asc"}))).build(backend),
            "ix_forms_site_name",
        ),
        ("submissions", forms::review::list_query(form, None).build(backend), "ix_form_submissions_form_time"),
        (
            "submissions of one status",
            forms::review::list_query(form, Some(forms::model::SubmissionStatus::New)).build(backend),
            "ix_form_submissions_form_status|ix_form_submissions_form_time",
        ),
        ("media library", media::listing::site_rows(&library(false, None)).build(backend), "ix_media_sites_live"),
        (
            "media of a category",
            media::listing::site_rows(&library(false, Some("image"))).build(backend),
            "ix_media_sites_category",
        ),
        ("media in the trash", media::listing::site_rows(&library(true, None)).build(backend), "ix_media_sites_trash"),
    ]
}
