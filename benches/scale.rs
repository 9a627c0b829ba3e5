//! Scale: `cargo bench --bench scale` (needs `wrk`: apt-get install wrk).
//!
//! Do reads and writes cost the same at 100,000 posts per site as at 100?
//! Starts the release `plinth` binary on a fresh SQLite database (and on a
//! fresh PostgreSQL database too when `PLINTH_TEST_DATABASE_URL` names a
//! server; dropped at the end) and grows one site in steps, 100 → 1,000 →
//! 10,000 → 100,000 posts, through `POST /blogs` from 16 tasks at once (80%
//! Published, one in ten with a cover, 1% moved to the trash, 1% with a search word in the title, two
//! with a rarer one), plus five small PNGs for the media list. Writes/s at a
//! step is a window of WRITE_WINDOW more of the same writes after its reads.
//!
//! At each step every row (a bare handler, the admin list first and middle
//! page, the published list, one item, trash list and count, media list,
//! search for the 1% word and for the two-title word, sitemap.xml, feed.rss)
//! is loaded with wrk (`-t1 -c8 -d4s`: req/s, p50, p99, non-2xx counted)
//! twice: with the response cache off (`PLINTH_RESPONSE_CACHE_BYTES=0`), then
//! with it on while one post is retitled every second beside the reads; then,
//! cache on, 200 times a post retitled and the admin list read at once
//! (p50/p99 of that first read).
//!
//! Then, on another fresh database, a site of 100 posts is measured alone,
//! exported, imported PLINTH_SCALE_SITES times, and one of the copies measured
//! the same way; memory per idle site is the server's RSS growth divided by
//! the number of sites.
//!
//! The last tables set the first step against the largest (and the site alone
//! against one of many) with targets: ratio ≥ 0.8; deep page ≥ 500 req/s (no ratio);
//! uncached admin list ≥ 8,000 req/s on SQLite, 4,000 on PostgreSQL. Printed,
//! never asserted: the bench fails only on a broken server.
//!
//! Settings: PLINTH_SCALE_STEPS (default `100,1000,10000,100000`),
//! PLINTH_SCALE_SITES (default 1000; 0 skips that part),
//! PLINTH_TEST_DATABASE_URL (also PostgreSQL), PLINTH_SCALE_SQLITE=0 (PostgreSQL only),
//! PLINTH_SCALE_KEEP=1 (keep the databases, paths printed, for profiling).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "scale/measure.rs"]
mod measure;
#[path = "scale/report.rs"]
mod report;
#[path = "scale/seed.rs"]
mod seed;
#[path = "scale/server.rs"]
mod server;

use std::time::Duration;

use tokio::runtime::Runtime;

use measure::Measured;
use report::{thousands, Column};
use seed::{Growth, Site};
use server::{Cache, Database, Server};

/// The most posts one step, or sites the second part, may ask for.
const MAX_POSTS: u64 = 1_000_000;
const MAX_SITES: u64 = 10_000;
/// Posts of each of the many sites.
const SITE_POSTS: u64 = 100;
/// Writes of the timed window at each step: enough that a cold server's first
/// writes do not set the figure (the 100-post step's seeding is 101 writes in
/// a tenth of a second).
const WRITE_WINDOW: u64 = 1_000;

fn main() {
    let steps: Vec<u64> = match std::env::var("PLINTH_SCALE_STEPS") {
        Ok(list) if !list.trim().is_empty() => {
            let mut steps: Vec<u64> =
                list.split(',').map(|s| s.trim().parse().expect("PLINTH_SCALE_STEPS: numbers")).collect();
            steps.sort_unstable();
            steps.dedup();
            steps.retain(|&n| (1..=MAX_POSTS).contains(&n));
            steps
        }
        _ => vec![100, 1_000, 10_000, 100_000],
    };
    let sites: u64 = std::env::var("PLINTH_SCALE_SITES").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(1000);
    let sites = sites.min(MAX_SITES);
    let postgres = std::env::var("PLINTH_TEST_DATABASE_URL").ok().filter(|u| !u.is_empty());
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    println!(
        "scale: steps {} posts; {} sites × {SITE_POSTS} posts; wrk -t1 -c8 -d4s per row; the release binary, \
         workers = cores ({})",
        steps.iter().map(|&n| thousands(n)).collect::<Vec<_>>().join(" → "),
        thousands(sites),
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    let mut backends = vec![("SQLite", None)];
    if std::env::var("PLINTH_SCALE_SQLITE").is_ok_and(|v| v.trim() == "0") {
        backends.clear();
    }
    if let Some(url) = postgres.as_deref() {
        backends.push(("PostgreSQL", Some(url)));
    }
    let started = std::time::Instant::now();
    for (backend, admin_url) in backends {
        println!("\n## {backend}");
        if !steps.is_empty() {
            growth(&runtime, backend, admin_url, &steps);
        }
        if sites > 0 {
            many_sites(&runtime, backend, admin_url, sites);
        }
    }
    println!("\nscale: done in {:.0} s", started.elapsed().as_secs_f64());
}

/// Both passes on the data as it is: the rows on `server` (cache on), then on
/// a cache-off server over the same data. Returns a fresh cache-on server.
fn measure_both(runtime: &Runtime, db: &Database, server: Server, site: &Site) -> (Server, Measured) {
    let target = runtime.block_on(measure::target(&seed::client(), &server.api, site));
    let on = measure::pass(runtime, &server, &target);
    server.stop();
    let uncached = Server::start(db, Cache::Off);
    let off = measure::pass(runtime, &uncached, &target);
    uncached.stop();
    (Server::start(db, Cache::On), Measured { off, on })
}

/// One site grown step by step; the table of each step, then first against largest.
fn growth(runtime: &Runtime, backend: &str, admin_url: Option<&str>, steps: &[u64]) {
    let db = Database::fresh(runtime, admin_url);
    let client = seed::client();
    let mut server = Server::start(&db, Cache::On);
    let site = runtime.block_on(seed::create_site(&client, &server.api, "scale"));
    let mut results: Vec<(u64, Growth, Measured)> = Vec::new();
    let mut seeded = 0;
    for &posts in steps {
        // A step below what the last window left measures the site as it is.
        let posts = posts.max(seeded);
        let label = format!("{} → {} posts", thousands(seeded), thousands(posts));
        println!("\nseeding {label} …");
        let grown = runtime.block_on(seed::grow(&client, &server.api, &site.id, seeded..posts));
        db.analyze(runtime);
        report::writes(&format!("while seeding {label}"), &grown);
        let (next, measured) = measure_both(runtime, &db, server, &site);
        server = next;
        report::step(&format!("{backend}, one site of {} posts", thousands(posts)), &measured);
        // Writes at this size: the same writes as seeding, a fixed number of
        // them, after the reads so those saw exactly `posts`.
        let window = runtime.block_on(seed::grow(&client, &server.api, &site.id, posts..posts + WRITE_WINDOW));
        seeded = posts + WRITE_WINDOW;
        report::writes(&format!("at {} posts (timed window)", thousands(posts)), &window);
        results.push((posts, window, measured));
    }
    server.stop();
    fn column((posts, grown, measured): &(u64, Growth, Measured)) -> Column<'_> {
        Column { label: format!("{} posts", thousands(*posts)), measured, writes_per_sec: Some(grown.per_sec()) }
    }
    // One step alone has nothing to compare with.
    if let (Some(first), Some(last), true) = (results.first(), results.last(), results.len() > 1) {
        let title = format!("{backend}: the first step against the largest (req/s; ratio = largest / first)");
        report::compare(&title, &column(first), &column(last), db.is_postgres());
    }
}

/// A site of 100 posts alone, then one of `sites` copies of it; memory per idle site.
fn many_sites(runtime: &Runtime, backend: &str, admin_url: Option<&str>, sites: u64) {
    let db = Database::fresh(runtime, admin_url);
    let client = seed::client();
    let server = Server::start(&db, Cache::On);
    let template = runtime.block_on(seed::create_site(&client, &server.api, "template"));
    let grown = runtime.block_on(seed::grow(&client, &server.api, &template.id, 0..SITE_POSTS));
    db.analyze(runtime);
    report::writes(&format!("while seeding the site alone (0 → {SITE_POSTS} posts)"), &grown);
    let archive = runtime.block_on(seed::export(&client, &server.api, &template.id));
    let (server, alone) = measure_both(runtime, &db, server, &template);
    report::step(&format!("{backend}, a site of {SITE_POSTS} posts alone"), &alone);

    // The server measure_both left is freshly started and has served nothing.
    let settle = || std::thread::sleep(Duration::from_secs(2));
    settle();
    let before = server.rss_kib();
    println!("\nimporting {} copies of it ({} KiB archive) …", thousands(sites), archive.len() / 1024);
    let imported = runtime.block_on(seed::import_copies(&client, &server.api, &archive, sites));
    settle();
    let after = server.rss_kib();
    server.stop();
    db.analyze(runtime);
    let server = Server::start(&db, Cache::On);
    settle();
    let restarted = server.rss_kib();
    let count = imported.ids.len() as u64;
    report::memory(count, imported.secs, before, after, restarted);
    if imported.failed > 0 {
        println!("{} imports failed", imported.failed);
    }

    let one = runtime.block_on(async {
        let one = seed::adopt(&client, &server.api, &imported.ids[imported.ids.len() / 2]).await;
        seed::trash_one(&client, &server.api, &one).await;
        one
    });
    let (server, one_of_many) = measure_both(runtime, &db, server, &one);
    server.stop();
    let label = format!("one of {} sites", thousands(count + 1));
    report::step(&format!("{backend}, {label} of {SITE_POSTS} posts"), &one_of_many);
    let column = |label: String, measured| Column { label, measured, writes_per_sec: None };
    report::compare(
        &format!("{backend}: {label} against the site alone (req/s; ratio = one of many / alone)"),
        &column("alone".into(), &alone),
        &column(label.clone(), &one_of_many),
        db.is_postgres(),
    );
}
