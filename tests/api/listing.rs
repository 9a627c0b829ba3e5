//! Lists read from the site's own rows (`content_sites`) and totals from
//! `content_counts`, both kept by the database's triggers: every kind of write
//! shows in the next list and total, and every list's plan is an index range
//! scan in its own order on a site of 10,000 items, with no statistics.

use plinth::content::listing::{self, Filter, Sort, SortKey};
use plinth::content::{ContentKind, ContentStatus};
use sea_orm::{ConnectionTrait, DbBackend, QueryTrait, Statement};
use serde_json::{json, Value};
use uuid::Uuid;

use crate::helpers::{assert_problem, TestApp};

pub async fn list(app: &TestApp, site: &str, query: &str) -> Value {
    let res = app.get(&format!("/sites/{site}/blogs?{query}"), &app.admin_key).await;
    let status = res.status();
    let body: Value = res.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    body
}

pub fn titles(page: &Value) -> Vec<&str> {
    page["data"].as_array().unwrap().iter().map(|i| i["title"].as_str().unwrap()).collect()
}

async fn trash_count(app: &TestApp, site: &str) -> u64 {
    let count: Value = app.get(&format!("/sites/{site}/trash/count"), &app.admin_key).await.json().await.unwrap();
    count["count"].as_u64().unwrap()
}

/// Every counter equals a count of the rows it stands for.
async fn assert_counts_match_rows(app: &TestApp) {
    let db = &app.state.db;
    let sql = "SELECT CAST(COUNT(*) AS BIGINT) FROM (\
        SELECT site_id, kind, COALESCE(subtype, '') AS subtype, status, is_deleted, COUNT(*) AS n FROM content_sites \
        GROUP BY site_id, kind, COALESCE(subtype, ''), status, is_deleted) AS actual \
        FULL OUTER JOIN (SELECT * FROM content_counts WHERE n <> 0) AS kept \
        USING (site_id, kind, subtype, status, is_deleted) WHERE actual.n IS NULL OR kept.n IS NULL OR actual.n <> kept.n";
    let row = db.query_one_raw(Statement::from_string(db.get_database_backend(), sql)).await.unwrap().unwrap();
    let mismatches: i64 = row.try_get_by_index(0).unwrap();
    assert_eq!(mismatches, 0, "content_counts differs from content_sites");
}

#[actix_web::test]
async fn lists_and_totals_follow_every_kind_of_write() {
    let app = TestApp::spawn().await;
    let (a, b) = (app.create_site_id("list-a").await, app.create_site_id("list-b").await);
    let mut ids = Vec::new();
    for (title, status) in [("c", "Draft"), ("a", "Published"), ("b", "Published"), ("e", "Draft"), ("d", "Published")]
    {
        let res = app.post("/blogs", &app.admin_key, json!({"site_ids": [a], "title": title, "status": status})).await;
        assert_eq!(res.status(), 201);
        ids.push(res.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string());
    }
    let shared = app.post("/blogs", &app.admin_key, json!({"site_ids": [a, b], "title": "f", "status": "Published"}));
    let shared = shared.await.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();

    let all = list(&app, &a, "per_page=100").await;
    assert_eq!((all["meta"]["total"].as_u64(), titles(&all)), (Some(6), vec!["f", "d", "e", "b", "a", "c"]));
    assert_eq!(titles(&list(&app, &a, "per_page=100&sort=title").await), ["a", "b", "c", "d", "e", "f"]);
    assert_eq!(titles(&list(&app, &a, "sort=-title&per_page=2&page=2").await), ["d", "c"]);
    assert_eq!(list(&app, &a, "status=Draft").await["meta"]["total"], 2);
    assert_eq!(list(&app, &b, "per_page=100").await["meta"]["total"], 1);
    let res = app.get(&format!("/sites/{a}/blogs?sort=size"), &app.admin_key).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;

    // A status change shows in the published list and both filtered totals.
    let res = app.put(&format!("/blogs/{}", ids[0]), &app.admin_key, json!({"status": "Published"})).await;
    assert_eq!(res.status(), 200);
    let published: Value =
        app.get(&format!("/sites/{a}/blogs/published?per_page=100"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(published["meta"]["total"], 5);
    assert_eq!(titles(&published)[..2], ["c", "f"], "the one published last first");
    assert_eq!(list(&app, &a, "status=Draft").await["meta"]["total"], 1);

    // The trash and back.
    assert_eq!(app.delete(&format!("/blogs/{}", ids[1]), &app.admin_key).await.status(), 204);
    assert_eq!(
        (list(&app, &a, "per_page=100").await["meta"]["total"].as_u64(), trash_count(&app, &a).await),
        (Some(5), 1)
    );
    let trash: Value = app.get(&format!("/sites/{a}/trash"), &app.admin_key).await.json().await.unwrap();
    assert_eq!(trash["items"][0]["id"], json!(ids[1]));
    let res = app.post(&format!("/trash/{}/restore?entity_type=blog", ids[1]), &app.admin_key, json!({})).await;
    assert_eq!(res.status(), 200);
    assert_eq!(
        (list(&app, &a, "per_page=100").await["meta"]["total"].as_u64(), trash_count(&app, &a).await),
        (Some(6), 0)
    );

    // Leaving a site, and a purge.
    let res = app.put(&format!("/blogs/{shared}"), &app.admin_key, json!({"site_ids": [a]})).await;
    assert_eq!(res.status(), 200);
    assert_eq!(list(&app, &b, "per_page=100").await["meta"]["total"], 0);
    assert_eq!(app.delete(&format!("/blogs/{}", ids[2]), &app.admin_key).await.status(), 204);
    assert_eq!(app.delete(&format!("/trash/{}?entity_type=blog", ids[2]), &app.admin_key).await.status(), 204);
    assert_eq!(
        (list(&app, &a, "per_page=100").await["meta"]["total"].as_u64(), trash_count(&app, &a).await),
        (Some(5), 0)
    );
    assert_counts_match_rows(&app).await;
}

/// Fills one site with `n` posts (a fifth drafts, every hundredth in the
/// trash) straight in SQL, as a bulk import would, and no `ANALYZE`.
pub async fn fill(db: &sea_orm::DatabaseConnection, site: Uuid, n: u32) {
    fill_numbered(db, site, 1..=n).await
}

/// [`fill`] with the posts numbered `numbers` (`plan-<number>`), so a later
/// fill of other numbers adds to the site.
pub async fn fill_numbered(db: &sea_orm::DatabaseConnection, site: Uuid, numbers: std::ops::RangeInclusive<u32>) {
    let backend = db.get_database_backend();
    let (first, last) = (numbers.start(), numbers.end());
    let numbers = match backend {
        DbBackend::Postgres => format!("SELECT i FROM generate_series({first}, {last}) AS g(i)"),
        _ => format!(
            "WITH RECURSIVE g(i) AS (SELECT {first} UNION ALL SELECT i + 1 FROM g WHERE i < {last}) SELECT i FROM g"
        ),
    };
    // Ids as each backend stores a Uuid: a uuid, or 16 bytes on SQLite.
    let (id, site, at) = match backend {
        DbBackend::Postgres => (
            "md5(i::text || 'plan')::uuid".to_string(),
            format!("'{site}'"),
            "TIMESTAMPTZ '2020-01-01' + make_interval(mins => i)",
        ),
        _ => (
            "randomblob(16)".to_string(),
            format!("X'{}'", site.simple()),
            "strftime('%Y-%m-%d %H:%M:%f+00:00', '2020-01-01', '+' || i || ' minutes')",
        ),
    };
    let (yes, no) = match backend {
        DbBackend::Postgres => ("true", "false"),
        _ => ("1", "0"),
    };
    let insert = format!(
        "INSERT INTO contents (id, kind, slug, title, excerpt, body, status, is_featured, is_sample, fields, \
         created_at, updated_at, published_at, is_deleted, deleted_at) \
         SELECT {id}, 'blog', 'plan-' || i, 'Plan ' || i, '', '', \
         CASE WHEN i % 5 = 0 THEN 'Draft' ELSE 'Published' END, {no}, {no}, '{{}}', {at}, {at}, \
         CASE WHEN i % 5 = 0 THEN NULL ELSE {at} END, CASE WHEN i % 100 = 7 THEN {yes} ELSE {no} END, \
         CASE WHEN i % 100 = 7 THEN {at} END FROM ({numbers}) AS numbers"
    );
    db.execute_unprepared(&insert).await.unwrap();
    let sites = format!(
        "INSERT INTO content_sites (content_id, site_id, kind, slug) SELECT id, {site}, kind, slug FROM contents \
         WHERE slug LIKE 'plan-%' AND id NOT IN (SELECT content_id FROM content_sites)"
    );
    db.execute_unprepared(&sites).await.unwrap();
}

/// The plan of `query` as text, one line per step.
async fn plan(
    db: &sea_orm::DatabaseConnection,
    query: sea_orm::Select<plinth_entities::content_listing::Entity>,
) -> String {
    plan_of(db, &query.build(db.get_database_backend()).to_string()).await
}

/// The plan of the statement `sql` as text, one line per step: `EXPLAIN` on
/// PostgreSQL, `EXPLAIN QUERY PLAN` on SQLite.
pub async fn plan_of(db: &sea_orm::DatabaseConnection, sql: &str) -> String {
    let backend = db.get_database_backend();
    let explain = match backend {
        DbBackend::Postgres => format!("EXPLAIN {sql}"),
        _ => format!("EXPLAIN QUERY PLAN {sql}"),
    };
    let rows = db.query_all_raw(Statement::from_string(backend, explain)).await.unwrap();
    let column = if backend == DbBackend::Postgres { 0 } else { 3 };
    rows.iter().map(|r| r.try_get_by_index::<String>(column).unwrap()).collect::<Vec<_>>().join("\n")
}

#[actix_web::test]
async fn every_list_is_an_index_range_scan_in_its_own_order_without_statistics() {
    let app = TestApp::spawn().await;
    let site: Uuid = app.create_site_id("plans").await.parse().unwrap();
    fill(&app.state.db, site, 10_000).await;
    let blogs = |status: Option<ContentStatus>| Filter { status, ..Filter::live(ContentKind::Blog, site) };
    let cases = [
        ("admin list", blogs(None), Sort::NEWEST, 0, "ix_content_sites_live_created"),
        ("deep admin page", blogs(None), Sort::NEWEST, 4_000, "ix_content_sites_live_created"),
        ("by title", blogs(None), Sort { key: SortKey::Title, descending: false }, 0, "ix_content_sites_live_title"),
        (
            "published list",
            Filter::published(ContentKind::Blog, site),
            Sort::LATEST_PUBLISHED,
            0,
            "ix_content_sites_published",
        ),
        ("drafts", blogs(Some(ContentStatus::Draft)), Sort::NEWEST, 0, "ix_content_sites_draft"),
        (
            "featured",
            Filter { featured_only: true, ..Filter::published(ContentKind::Blog, site) },
            Sort::LATEST_PUBLISHED,
            0,
            "ix_content_sites_featured",
        ),
        ("trash", Filter::trashed(site, Some(ContentKind::Blog)), Sort::LATEST_DELETED, 0, "ix_content_sites_trash"),
    ];
    let mut wrong = Vec::new();
    for (name, filter, sort, offset, index) in cases {
        let plan = plan(&app.state.db, listing::page_query(&filter, sort, 10, offset)).await;
        // Index entries only, no rows: a deep page walks entries up to its
        // offset. Featured lists have no offset and their index holds only
        // featured rows, so SQLite (which does not count `is_featured` as
        // covered) reads just the rows it returns.
        let index_only = plan.contains("COVERING INDEX") || plan.contains("Index Only Scan") || name == "featured";
        if !plan.contains(&format!("{index} ")) || !index_only || plan.contains("Sort") || plan.contains("TEMP B-TREE")
        {
            wrong.push(format!("{name}: expected an index-only scan of {index} without a sort:\n{plan}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
    // A page's items are read by key in the same query, never by a scan.
    let items = listing::page_items_query(&blogs(None), Sort::NEWEST, 10, 4_000);
    let items = plan_of(&app.state.db, &items.build(app.state.db.get_database_backend()).to_string()).await;
    let by_key = ["SEARCH contents USING INDEX sqlite_autoindex_contents_1 (id=?)", "Index Scan using contents_pkey"];
    assert!(
        by_key.iter().any(|k| items.contains(k)) && items.contains("ix_content_sites_live_created"),
        "a page's items by key:\n{items}"
    );
    // A search reads the words' entries in the text index, not the site's rows.
    let backend = app.state.db.get_database_backend();
    let search = Filter { search: listing::Search::parse("plan 77", backend).unwrap(), ..blogs(None) };
    let plan = plan(&app.state.db, listing::page_query(&search, Sort::NEWEST, 10, 0)).await;
    let (text_index, by_match) = match backend {
        DbBackend::Postgres => {
            ("Bitmap Index Scan on ix_content_sites_search", "Bitmap Heap Scan on content_sites matched")
        }
        _ => ("SCAN content_search VIRTUAL TABLE INDEX", "ix_content_sites_search_rowid (search_rowid=?)"),
    };
    assert!(
        plan.contains(text_index) && plan.contains(by_match) && !plan.contains("ix_content_sites_live"),
        "a search is found from the text index, its matches probed by key:\n{plan}"
    );
    let first_page = plinth::pagination::Page { page: 1, per_page: 10 };
    let found = listing::page_with_sites(&app.state, &search, Sort::NEWEST, first_page);
    let found = found.await.unwrap();
    assert_eq!(
        (found.meta.total, found.data[0].0.title.as_str()),
        (110, "Plan 7799"),
        "77, 770-779, 7700-7799 but 7707 (trashed); newest first"
    );
    // A word every row has: the page walks the list's own index and keeps the
    // rows among the matches, instead of reading all 9,900 matches and sorting.
    let common = Filter { search: listing::Search::parse("plan", backend).unwrap(), ..blogs(None) };
    if backend == DbBackend::Sqlite {
        let walking = Filter { search: common.search.as_ref().map(|s| s.walking_the_list()), ..blogs(None) };
        let walk =
            plan_of(&app.state.db, &listing::page_query(&walking, Sort::NEWEST, 10, 0).build(backend).to_string())
                .await;
        assert!(
            walk.contains("ix_content_sites_live_created")
                && walk.contains("LIST SUBQUERY")
                && !walk.contains("TEMP B-TREE")
                && !walk.contains("search_rowid=?"),
            "a broad search walks the list's index in order:\n{walk}"
        );
    }
    for page in [1, 400] {
        let at = plinth::pagination::Page { page, per_page: 10 };
        let searched = listing::page_with_sites(&app.state, &common, Sort::NEWEST, at).await.unwrap();
        let everything = listing::page_with_sites(&app.state, &blogs(None), Sort::NEWEST, at).await.unwrap();
        let ids =
            |found: &plinth::pagination::Paginated<(plinth_entities::content::Model, Vec<Uuid>, Option<String>)>| {
                found.data.iter().map(|(item, _, _)| item.id).collect::<Vec<_>>()
            };
        assert_eq!(searched.meta.total, 9_900, "every live row has the word");
        assert_eq!(ids(&searched), ids(&everything), "page {page}: the same rows as the list without a search");
    }
    // The totals come from the counters, kept through the bulk insert.
    let total = listing::total(&app.state.db, &Filter::published(ContentKind::Blog, site)).await.unwrap();
    assert_eq!(total, 7_900);
    assert_eq!(listing::total(&app.state.db, &Filter::trashed(site, None)).await.unwrap(), 100);
    assert_counts_match_rows(&app).await;
    // And the API answers from them.
    let page: Value = app.get(&format!("/sites/{site}/blogs?page=400"), &app.admin_key).await.json().await.unwrap();
    assert_eq!((page["meta"]["total"].as_u64(), page["data"].as_array().map(Vec::len)), (Some(9_900), Some(10)));
}

#[actix_web::test]
async fn search_finds_the_words_and_word_starts_of_titles_and_slugs_on_one_site() {
    let app = TestApp::spawn().await;
    let (a, b) = (app.create_site_id("search-a").await, app.create_site_id("search-b").await);
    let mut ids = Vec::new();
    for (site, title, slug, status) in [
        (&a, "Hello, World", None, "Published"),
        (&a, "Größere Übersicht", None, "Draft"),
        (&a, "Release notes", Some("changelog-2026"), "Published"),
        (&a, "Worldwide shipping", Some("item-four"), "Draft"),
        (&b, "Hello from B", None, "Published"),
    ] {
        let mut body = json!({"site_ids": [site], "title": title, "status": status});
        if let Some(slug) = slug {
            body["slug"] = json!(slug);
        }
        let res = app.post("/blogs", &app.admin_key, body).await;
        assert_eq!(res.status(), 201);
        ids.push(res.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string());
    }
    let found = |query: &'static str| {
        let (app, a) = (&app, a.clone());
        async move { titles(&list(app, &a, query).await).into_iter().map(str::to_string).collect::<Vec<_>>() }
    };
    assert_eq!(found("search=hello").await, ["Hello, World"], "one site only");
    assert_eq!(found("search=WOR").await, ["Worldwide shipping", "Hello, World"], "word starts, any case");
    assert_eq!(found("search=hel%20wor").await, ["Hello, World"], "every word");
    assert_eq!(found("search=ubersicht").await, ["Größere Übersicht"], "the slug's transliterated words");
    assert_eq!(found("search=hello%20xyz").await, Vec::<String>::new());
    assert_eq!(found("search=gr%C3%B6%C3%9F").await, ["Größere Übersicht"]);
    assert_eq!(found("search=changelog").await, ["Release notes"], "the slug's words");
    assert_eq!(found("search=2026").await, ["Release notes"]);
    assert_eq!(found("search=wor&status=Draft").await, ["Worldwide shipping"]);
    assert_eq!(found("search=wor&sort=title").await, ["Hello, World", "Worldwide shipping"]);
    assert_eq!(list(&app, &a, "search=wor").await["meta"]["total"], 2);
    assert_eq!(list(&app, &a, "search=%2C%2C").await["meta"]["total"], 4, "no words: no filter");

    // A new title is found at once, the old one no more; the trash is not listed.
    let res = app.put(&format!("/blogs/{}", ids[3]), &app.admin_key, json!({"title": "Local pickup"})).await;
    assert_eq!(res.status(), 200);
    assert_eq!(found("search=pickup").await, ["Local pickup"]);
    assert_eq!(found("search=wor").await, ["Hello, World"]);
    assert_eq!(app.delete(&format!("/blogs/{}", ids[0]), &app.admin_key).await.status(), 204);
    assert_eq!(found("search=hello").await, Vec::<String>::new());
    assert_eq!(list(&app, &a, "search=hello").await["meta"]["total"], 0, "the total leaves the trash out too");
    // Back from the trash: listed and counted again.
    let res = app.post(&format!("/trash/{}/restore?entity_type=blog", ids[0]), &app.admin_key, json!({})).await;
    assert_eq!(res.status(), 200);
    let back = list(&app, &a, "search=hello").await;
    assert_eq!((titles(&back), back["meta"]["total"].as_u64()), (vec!["Hello, World"], Some(1)));

    let long = "a".repeat(201);
    let res = app.get(&format!("/sites/{a}/blogs?search={long}"), &app.admin_key).await;
    assert_problem(res, 422, "VALIDATION_ERROR").await;
}

#[actix_web::test]
async fn page_size_is_another_name_for_per_page_on_every_list() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("page-size").await;
    for title in ["one", "two", "three"] {
        let res = app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": title})).await;
        assert_eq!(res.status(), 201);
        let id = res.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
        assert!(app.delete(&format!("/blogs/{id}"), &app.admin_key).await.status().is_success());
        let res = app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": title})).await;
        assert_eq!(res.status(), 201);
    }
    // The content lists, a list of the shared page parameters, and the trash
    // (whose spec name is `page_size`, so `per_page` is the other name there).
    for path in [
        format!("/sites/{site}/blogs?page_size=2"),
        format!("/sites/{site}/audit?page_size=2"),
        format!("/sites/{site}/trash?per_page=2"),
    ] {
        let res = app.get(&path, &app.admin_key).await;
        let status = res.status();
        let page: Value = res.json().await.unwrap();
        assert_eq!(status, 200, "{path}: {page}");
        let items = page.get("data").or(page.get("items")).and_then(Value::as_array).map(Vec::len);
        assert_eq!(items, Some(2), "{path}: {page}");
    }
}

#[actix_web::test]
async fn list_items_carry_the_fields_of_their_kind() {
    let app = TestApp::spawn().await;
    let site = app.create_site_id("kinds").await;
    let settings = json!({"module_portfolio_enabled": true});
    assert_eq!(app.put(&format!("/sites/{site}/settings"), &app.admin_key, settings).await.status(), 200);
    let created = [
        (
            "pages",
            json!({"title": "Team", "route": "/about/team", "sections": [{"section_type": "hero", "title": "Hi"}]}),
        ),
        (
            "cv",
            json!({"entry_type": "work", "title": "Engineer", "organization": "ACME", "start_date": "2021-03-01", "is_current": true}),
        ),
        ("skills", json!({"name": "Rust", "category": "languages", "proficiency": 90})),
    ];
    for (kind, mut body) in created {
        body["site_ids"] = json!([site]);
        let res = app.post(&format!("/{kind}"), &app.admin_key, body).await;
        assert_eq!(res.status(), 201, "{kind}: {}", res.text().await.unwrap());
    }
    let first = |kind: &'static str| {
        let app = &app;
        let site = site.clone();
        async move {
            let page: Value = app.get(&format!("/sites/{site}/{kind}"), &app.admin_key).await.json().await.unwrap();
            page["data"][0].clone()
        }
    };
    let page = first("pages").await;
    assert_eq!((page["route"].as_str(), page.get("sections")), (Some("/about/team"), None), "{page}");
    let cv = first("cv").await;
    assert_eq!(
        (&cv["entry_type"], &cv["organization"], &cv["start_date"], &cv["is_current"]),
        (&json!("work"), &json!("ACME"), &json!("2021-03-01"), &json!(true)),
        "{cv}"
    );
    let skill = first("skills").await;
    assert_eq!(
        (&skill["name"], &skill["category"], &skill["proficiency"]),
        (&json!("Rust"), &json!("languages"), &json!(90))
    );
}
