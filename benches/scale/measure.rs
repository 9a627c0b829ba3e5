//! The rows measured at each step, with wrk: one pass with the response cache
//! off, one with it on while a post is retitled every second beside the reads,
//! followed by the "first read after a write" loop.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::Client;
use serde_json::{json, Value};
use tokio::runtime::Runtime;

use crate::common::{self, Figures};
use crate::seed::{Site, RARE_WORD, SEARCH_WORD};
use crate::server::{Cache, Server, MASTER_KEY};

/// wrk per row: `-t1 -c8 -d4s` (common's wrk helpers run one thread).
const SECONDS: u64 = 4;
const CONNECTIONS: u64 = 8;
/// The "first read after a write" loop: this many rounds, for at most this long.
const FIRST_READS: usize = 200;
const FIRST_READS_LIMIT: Duration = Duration::from_secs(60);
/// The background writer stops by itself after this long, whatever happens.
const WRITER_LIMIT: Duration = Duration::from_secs(600);

pub const ROWS: [&str; 13] = [
    "bare handler: GET /livez",
    "admin list, page 1",
    "admin list, deep page (total_pages/2)",
    "published list, page 1",
    "published list, page 1, locale + include=media",
    "one item: GET /blogs/{id}",
    "trash list",
    "trash count",
    "media list",
    "search (~1% of titles)",
    "search (2 titles at every size)",
    "sitemap.xml (public, by slug)",
    "feed.rss",
];
pub const BARE: usize = 0;
pub const ADMIN_LIST: usize = 1;
pub const DEEP_PAGE: usize = 2;
/// The search rows: each is probed first (see [`row`]).
const SEARCHES: [usize; 2] = [9, 10];

/// One row's outcome: wrk's figures, or none when the row could not be run.
pub struct Row {
    pub figures: Option<Figures>,
    pub note: String,
}

/// p50 and p99 of timed reads, ms.
pub struct Latency {
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub samples: usize,
    pub failed: u64,
}

/// One server configuration's figures at one step.
pub struct Pass {
    pub rows: Vec<Row>,
    /// Cache on only: the first reads after a write.
    pub first_read: Option<Latency>,
    /// Cache on only: the writes made beside the reads (ok, failed).
    pub writer: Option<(u64, u64)>,
}

/// Both passes at one step.
pub struct Measured {
    pub off: Pass,
    pub on: Pass,
}

/// What the rows address on a site, read from the API.
pub struct Target<'a> {
    site: &'a Site,
    /// Every post of the admin list (the trash left out).
    pub total: u64,
    pub deep_page: u64,
    /// A published post (the "one item" row).
    item_id: String,
    /// The post the background writer retitles, and the one the first-read loop does.
    writer_post: String,
    first_read_post: String,
}

async fn get(client: &Client, url: &str, key: Option<&str>) -> (u16, Value) {
    let mut request = client.get(url);
    if let Some(key) = key {
        request = request.header("X-API-Key", key);
    }
    match request.send().await {
        Ok(res) => {
            let status = res.status().as_u16();
            (status, res.json().await.unwrap_or(Value::Null))
        }
        Err(e) => panic!("GET {url}: {e}"),
    }
}

pub async fn target<'a>(client: &Client, api: &str, site: &'a Site) -> Target<'a> {
    let (status, list) =
        get(client, &format!("{api}/sites/{}/blogs?page=1&per_page=10", site.id), Some(&site.key)).await;
    assert_eq!(status, 200, "admin list: {list}");
    let url = format!("{api}/sites/{}/blogs/published?page=1&per_page=10", site.id);
    let (status, published) = get(client, &url, Some(&site.key)).await;
    assert_eq!(status, 200, "published list: {published}");
    let id =
        |n: usize| published["data"][n]["id"].as_str().or(published["data"][0]["id"].as_str()).unwrap().to_string();
    Target {
        site,
        total: list["meta"]["total"].as_u64().unwrap_or(0),
        deep_page: (list["meta"]["total_pages"].as_u64().unwrap_or(0) / 2).max(1),
        item_id: id(0),
        writer_post: id(1),
        first_read_post: id(2),
    }
}

/// The URL of each row of [`ROWS`], and whether it is read with the site's key.
fn urls(server: &Server, t: &Target) -> [(String, bool); 13] {
    let (api, id) = (&server.api, &t.site.id);
    let site = format!("{api}/sites/{id}");
    [
        (format!("{}/livez", server.base), false),
        (format!("{site}/blogs?page=1&per_page=10"), true),
        (format!("{site}/blogs?page={}&per_page=10", t.deep_page), true),
        (format!("{site}/blogs/published?page=1&per_page=10"), true),
        // In the site's default locale, by code, with a fallback: the chain
        // is read, and the covers (one post in ten has one) embedded.
        (format!("{site}/blogs/published?page=1&per_page=10&locale=en&fallback=en&include=media"), true),
        (format!("{api}/blogs/{}", t.item_id), true),
        (format!("{site}/trash?page=1&page_size=10"), true),
        (format!("{site}/trash/count"), true),
        (format!("{site}/media"), true),
        (format!("{site}/blogs?search={SEARCH_WORD}&page=1&per_page=10"), true),
        (format!("{site}/blogs?search={RARE_WORD}&page=1&per_page=10"), true),
        (format!("{api}/sites/{}/sitemap.xml", t.site.slug), false),
        (format!("{site}/feed.rss"), true),
    ]
}

/// Every row on `server`; with the cache on, a post retitled each second
/// beside them, then the first-read loop.
pub fn pass(runtime: &Runtime, server: &Server, t: &Target) -> Pass {
    let cached = server.cache == Cache::On;
    let client = crate::seed::client();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = cached.then(|| {
        let url = format!("{}/blogs/{}", server.api, t.writer_post);
        runtime.spawn(write_each_second(client.clone(), url, stop.clone()))
    });
    let rows = urls(server, t)
        .iter()
        .enumerate()
        .map(|(i, (url, keyed))| row(runtime, &client, i, url, keyed.then_some(t.site.key.as_str()), t.total))
        .collect();
    stop.store(true, Ordering::Relaxed);
    let writer = writer.map(|task| runtime.block_on(task).unwrap());
    let first_read = cached.then(|| runtime.block_on(first_reads(&client, server, t)));
    Pass { rows, first_read, writer }
}

/// One row: a probe first (a search the server does not know is not loaded),
/// then wrk, counting non-2xx answers instead of failing on them.
fn row(runtime: &Runtime, client: &Client, i: usize, url: &str, key: Option<&str>, total: u64) -> Row {
    let (status, body) = runtime.block_on(get(client, url, key));
    let mut note = String::new();
    if SEARCHES.contains(&i) {
        if !(200..300).contains(&status) {
            return Row { figures: None, note: format!("n/a (status {status})") };
        }
        let hits = body["meta"]["total"].as_u64().unwrap_or(0);
        if hits == total && total >= 10 {
            return Row { figures: None, note: "n/a (search ignored: every post listed)".into() };
        }
        note = format!("{hits} hits");
    } else if !(200..300).contains(&status) {
        note = format!("probe answered {status}; ");
    }
    let headers: Vec<(&str, &str)> = key.map(|k| vec![("X-API-Key", k)]).unwrap_or_default();
    let figures = common::wrk_expecting(url, &headers, SECONDS, CONNECTIONS, true);
    if figures.not_2xx > 0 {
        note = format!("{note}{} of {} answers not 2xx", figures.not_2xx, figures.requests);
    }
    Row { figures: Some(figures), note: note.trim_end_matches("; ").to_string() }
}

/// `PUT /blogs/{id}` retitling one post each second until `stop`; (ok, failed).
async fn write_each_second(client: Client, url: String, stop: Arc<AtomicBool>) -> (u64, u64) {
    let deadline = Instant::now() + WRITER_LIMIT;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let (mut ok, mut failed) = (0, 0);
    while !stop.load(Ordering::Relaxed) && Instant::now() < deadline {
        tick.tick().await;
        let title = json!({"title": format!("Retitled beside the reads {ok}")});
        match client.put(&url).header("X-API-Key", MASTER_KEY).json(&title).send().await {
            Ok(res) if res.status().is_success() => ok += 1,
            _ => failed += 1,
        }
    }
    (ok, failed)
}

/// A post retitled, then the admin list page 1 read at once (timed), `FIRST_READS` times.
async fn first_reads(client: &Client, server: &Server, t: &Target<'_>) -> Latency {
    let list = format!("{}/sites/{}/blogs?page=1&per_page=10", server.api, t.site.id);
    let post = format!("{}/blogs/{}", server.api, t.first_read_post);
    let started = Instant::now();
    let (mut ms, mut failed) = (Vec::new(), 0);
    for n in 0..FIRST_READS {
        if started.elapsed() > FIRST_READS_LIMIT {
            break;
        }
        let title = json!({"title": format!("First read after write {n}")});
        let write = client.put(&post).header("X-API-Key", MASTER_KEY).json(&title).send().await;
        if !matches!(&write, Ok(res) if res.status().is_success()) {
            failed += 1;
            continue;
        }
        let sent = Instant::now();
        let read = match client.get(&list).header("X-API-Key", &t.site.key).send().await {
            Ok(res) if res.status().is_success() => res.bytes().await.is_ok(),
            _ => false,
        };
        match read {
            true => ms.push(sent.elapsed().as_secs_f64() * 1000.0),
            false => failed += 1,
        }
    }
    ms.sort_by(f64::total_cmp);
    let at = |p: f64| ms.get(((ms.len() as f64 - 1.0) * p).round() as usize).copied().unwrap_or(f64::NAN);
    Latency { p50_ms: at(0.5), p99_ms: at(0.99), samples: ms.len(), failed }
}
