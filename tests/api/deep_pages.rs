//! Deep pages of the content lists start from a remembered row of the list
//! (`content::listing::seek`) instead of walking every index entry before
//! them: they hold the same items as a plain offset would, in every order,
//! and after a write they follow the rows that moved.

use plinth::content::listing::{self, Filter, Sort};
use plinth::content::ContentKind;
use sea_orm::QueryTrait;
use uuid::Uuid;

use crate::helpers::TestApp;
use crate::listing::{fill, list, plan_of, titles};

/// The titles of the page at `offset` read by a plain offset (no boundary).
async fn by_offset(app: &TestApp, filter: &Filter, sort: Sort, offset: u64) -> Vec<String> {
    let items = listing::page_items_query(filter, sort, 10, offset).all(&app.state.db).await.unwrap();
    items.into_iter().map(|item| item.title).collect()
}

#[actix_web::test]
async fn deep_pages_hold_what_an_offset_holds_and_follow_writes() {
    let app = TestApp::spawn().await;
    let site: Uuid = app.create_site_id("deep").await.parse().unwrap();
    fill(&app.state.db, site, 10_000).await;
    let site_path = site.to_string();
    let filter = Filter::live(ContentKind::Blog, site);
    let orders = [("-created_at", Sort::NEWEST), ("created_at", Sort::parse("created_at").unwrap())];
    let orders = orders.into_iter().chain([("title", Sort::parse("title").unwrap())]);
    for (name, sort) in orders {
        for page in [600_u64, 701, 990] {
            let listed = list(&app, &site_path, &format!("page={page}&per_page=10&sort={name}")).await;
            let expected = by_offset(&app, &filter, sort, (page - 1) * 10).await;
            assert_eq!(titles(&listed), expected, "page {page} by {name}");
            assert_eq!(listed["meta"]["total"].as_u64(), Some(9_900));
        }
    }

    // The newest post goes to the trash: every later row moves up by one, and
    // the deep page (its boundaries found before the write) moves with them.
    let before = titles(&list(&app, &site_path, "page=701&per_page=10").await).join(",");
    let newest = list(&app, &site_path, "page=1&per_page=1").await;
    let newest_id = newest["data"][0]["id"].as_str().unwrap().to_string();
    let res = app.delete(&format!("/blogs/{newest_id}"), &app.admin_key).await;
    assert!(res.status().is_success(), "{}", res.status());
    let after = list(&app, &site_path, "page=701&per_page=10").await;
    assert_eq!(titles(&after), by_offset(&app, &filter, Sort::NEWEST, 7_000).await);
    assert_ne!(titles(&after).join(","), before, "the page moved by one row");
    assert_eq!(after["meta"]["total"].as_u64(), Some(9_899));

    // The page starts at a boundary 7,000 rows down and walks the rest: a
    // range of the list's index, in its order, without a sort.
    let state = &app.state;
    let at = listing::position(state, &filter, Sort::NEWEST, 7_450).await.unwrap();
    assert!(at.from.is_some() && at.offset == 450, "{at:?}");
    let query = listing::page_query(&filter, Sort::NEWEST, 10, at);
    let plan = plan_of(&state.db, &query.build(state.db.get_database_backend()).to_string()).await;
    assert!(
        plan.contains("ix_content_sites_live_created") && !plan.contains("TEMP B-TREE") && !plan.contains("Sort"),
        "a seek into the list's index:\n{plan}"
    );
    // Past the end: nothing, and the true total.
    let past = list(&app, &site_path, "page=5000&per_page=10").await;
    assert_eq!((titles(&past).len(), past["meta"]["total"].as_u64()), (0, Some(9_899)));
}
