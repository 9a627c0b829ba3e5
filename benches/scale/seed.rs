//! Seeding through the app's own write path: sites, posts (`POST /blogs` from
//! many tasks at once), a few media files, the trash, and copies of a site by
//! export and import.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use reqwest::multipart::{Form, Part};
use reqwest::{Client, RequestBuilder};
use serde_json::{json, Value};

use crate::server::MASTER_KEY;

/// A word in 1% of the titles, for the search row.
pub const SEARCH_WORD: &str = "quokka";
/// A word in two titles at every size (posts 3 and 53), for the row that finds
/// one post among all of them.
pub const RARE_WORD: &str = "wombat";
/// Writes in flight while seeding.
const IN_FLIGHT: usize = 16;
/// Media files per site (the media list row).
const MEDIA_FILES: u8 = 5;
/// The longest one seeding step, or all the imports, may take.
const SEEDING_LIMIT: Duration = Duration::from_secs(3600);
const TOPICS: [&str; 8] = ["gardens", "rivers", "engines", "bread", "maps", "bridges", "choirs", "tides"];

/// A site under measurement and a key acting as its admin (what an admin UI reads with).
pub struct Site {
    pub id: String,
    pub slug: String,
    pub key: String,
}

pub fn client() -> Client {
    Client::builder().timeout(Duration::from_secs(60)).build().unwrap()
}

fn master(request: RequestBuilder) -> RequestBuilder {
    request.header("X-API-Key", MASTER_KEY)
}

/// Sends a request up to three times (again after a transport error, a 429 or
/// a 5xx); the body of the first 2xx answer, else what went wrong.
async fn send(make: impl Fn() -> RequestBuilder) -> Result<Value, String> {
    let mut last = String::new();
    for attempt in 1..=3u64 {
        match make().send().await {
            Ok(res) if res.status().is_success() => {
                let bytes = res.bytes().await.map_err(|e| e.to_string())?;
                return Ok(serde_json::from_slice(&bytes).unwrap_or(Value::Null));
            }
            Ok(res) => {
                let status = res.status();
                let text: String = res.text().await.unwrap_or_default().chars().take(300).collect();
                last = format!("{status}: {text}");
                if !(status.is_server_error() || status.as_u16() == 429) {
                    break;
                }
            }
            Err(e) => last = e.to_string(),
        }
        tokio::time::sleep(Duration::from_millis(200 * attempt)).await;
    }
    Err(last)
}

/// `send`, panicking on failure: for the few setup requests a working server answers.
async fn must(what: &str, make: impl Fn() -> RequestBuilder) -> Value {
    send(make).await.unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// A new site with a public URL (the sitemap needs one), a few PNGs and a key.
pub async fn create_site(client: &Client, api: &str, slug: &str) -> Site {
    let body = json!({"name": format!("Scale {slug}"), "slug": slug, "base_url": format!("https://{slug}.example")});
    let site = must("POST /sites", || master(client.post(format!("{api}/sites"))).json(&body)).await;
    let id = site["id"].as_str().unwrap().to_string();
    for n in 0..MEDIA_FILES {
        let png = png(n);
        must("POST /media/upload", || {
            let part = Part::bytes(png.clone()).file_name(format!("scale-{n}.png")).mime_str("image/png").unwrap();
            let form = Form::new().text("site_ids", json!([id]).to_string()).part("file", part);
            master(client.post(format!("{api}/media/upload"))).multipart(form)
        })
        .await;
    }
    adopt(client, api, &id).await
}

/// A small PNG of its own colour.
fn png(n: u8) -> Vec<u8> {
    let image = image::RgbImage::from_pixel(32, 32, image::Rgb([n.wrapping_mul(40), 120, 255 - n]));
    let mut bytes = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(image).write_to(&mut bytes, image::ImageFormat::Png).unwrap();
    bytes.into_inner()
}

/// An existing site: its slug, and a new key scoped to it with Admin permission.
pub async fn adopt(client: &Client, api: &str, id: &str) -> Site {
    let site = must("GET /sites/{id}", || master(client.get(format!("{api}/sites/{id}")))).await;
    let body = json!({"name": "scale reader", "permission": "Admin", "site_id": id});
    let key = must("POST /api-keys", || master(client.post(format!("{api}/api-keys"))).json(&body)).await;
    Site {
        id: id.to_string(),
        slug: site["slug"].as_str().unwrap().to_string(),
        key: key["key"].as_str().unwrap().to_string(),
    }
}

/// What seeding one step did.
#[derive(Default)]
pub struct Growth {
    /// Successful writes: posts created and posts moved to the trash.
    pub writes: u64,
    pub failed: u64,
    pub secs: f64,
    pub first_error: Option<String>,
}

impl Growth {
    pub fn per_sec(&self) -> f64 {
        self.writes as f64 / self.secs.max(1e-9)
    }
}

/// Posts numbered `range`, `IN_FLIGHT` at a time: 80% Published, 20% Draft,
/// one in ten with a cover, 1% moved to the trash right after, 1% with [`SEARCH_WORD`] in the title,
/// two with [`RARE_WORD`].
pub async fn grow(client: &Client, api: &str, site_id: &str, range: Range<u64>) -> Growth {
    let started = Instant::now();
    let deadline = started + SEEDING_LIMIT;
    let (writes, failed) = (AtomicU64::new(0), AtomicU64::new(0));
    let first_error = Mutex::new(None);
    // One post in ten has a cover (one of the site's PNGs), so a page of the
    // published list embeds one with `include=media`.
    let library = must("GET /sites/{id}/media", || master(client.get(format!("{api}/sites/{site_id}/media")))).await;
    let covers: Vec<String> =
        library["data"].as_array().into_iter().flatten().filter_map(|m| m["id"].as_str().map(str::to_string)).collect();
    let covers = &covers;
    let failure = |e: String| {
        failed.fetch_add(1, Ordering::Relaxed);
        first_error.lock().unwrap().get_or_insert(e);
    };
    futures_util::stream::iter(range.clone())
        .for_each_concurrent(IN_FLIGHT, |i| {
            let (writes, failure) = (&writes, &failure);
            async move {
                if Instant::now() > deadline {
                    return;
                }
                let topic = TOPICS[(i % TOPICS.len() as u64) as usize];
                let tail = match i {
                    _ if i % 100 == 7 => format!(" and a {SEARCH_WORD}"),
                    3 | 53 => format!(" and a {RARE_WORD}"),
                    _ => String::new(),
                };
                let cover = (i % 10 == 0).then(|| covers.get((i / 10) as usize % covers.len().max(1))).flatten();
                let body = json!({
                    "site_ids": [site_id],
                    "title": format!("Post {i} about {topic}{tail}"),
                    "status": if i % 5 == 4 { "Draft" } else { "Published" },
                    "body": format!("A paragraph about {topic}, written to be read. ").repeat(12),
                    "cover_image_id": cover,
                });
                let created = match send(|| master(client.post(format!("{api}/blogs"))).json(&body)).await {
                    Ok(created) => created,
                    Err(e) => return failure(format!("POST /blogs: {e}")),
                };
                writes.fetch_add(1, Ordering::Relaxed);
                if i % 100 == 50 {
                    let id = created["id"].as_str().unwrap_or_default();
                    match send(|| master(client.delete(format!("{api}/blogs/{id}")))).await {
                        Ok(_) => _ = writes.fetch_add(1, Ordering::Relaxed),
                        Err(e) => failure(format!("DELETE /blogs/{{id}}: {e}")),
                    }
                }
            }
        })
        .await;
    let growth = Growth {
        writes: writes.into_inner(),
        failed: failed.into_inner(),
        secs: started.elapsed().as_secs_f64(),
        first_error: first_error.into_inner().unwrap(),
    };
    if Instant::now() > deadline {
        println!("seeding stopped at its limit of {} s", SEEDING_LIMIT.as_secs());
    }
    // A working server answers nearly every write; past 1% failed it is broken.
    let attempted = growth.writes + growth.failed;
    assert!(
        growth.failed * 100 <= attempted,
        "{} of {attempted} writes failed, e.g. {:?}",
        growth.failed,
        growth.first_error
    );
    growth
}

/// Moves one post of the site to the trash (a copy made by import has none:
/// exports leave the trash out).
pub async fn trash_one(client: &Client, api: &str, site: &Site) {
    let list = must("GET /sites/{id}/blogs", || {
        master(client.get(format!("{api}/sites/{}/blogs?page=2&per_page=10", site.id)))
    })
    .await;
    let id = list["data"][0]["id"].as_str().unwrap().to_string();
    must("DELETE /blogs/{id}", || master(client.delete(format!("{api}/blogs/{id}")))).await;
}

/// The site exported (`POST /sites/{id}/export`, polled until ready) and downloaded.
pub async fn export(client: &Client, api: &str, site_id: &str) -> Vec<u8> {
    let job = must("POST /sites/{id}/export", || master(client.post(format!("{api}/sites/{site_id}/export")))).await;
    let job_id = job["id"].as_str().unwrap().to_string();
    let mut done = Value::Null;
    for _ in 0..1200 {
        let url = format!("{api}/sites/{site_id}/export/{job_id}");
        done = must("GET /sites/{id}/export/{job}", || master(client.get(&url))).await;
        if done["status"] == "ready" || done["status"] == "failed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(done["status"], "ready", "the export did not become ready: {done}");
    // The link is absolute; only its path is taken, so the request stays here.
    let link = done["download_url"].as_str().unwrap();
    let (_, path) = link.split_once("/api/v1").unwrap();
    let archive = master(client.get(format!("{api}{path}"))).send().await.unwrap();
    assert!(archive.status().is_success(), "download: {}", archive.status());
    archive.bytes().await.unwrap().to_vec()
}

/// What importing the copies did.
pub struct Imported {
    pub ids: Vec<String>,
    pub secs: f64,
    pub failed: u64,
}

/// `n` copies of `archive` by `POST /sites/import`, one after the other; each
/// copy is renamed `copy-<n>` at once, so the next import finds the archive's
/// slug plus `-2` free (import probes `slug`, `slug-2`, … up to `-999`).
pub async fn import_copies(client: &Client, api: &str, archive: &[u8], n: u64) -> Imported {
    let started = Instant::now();
    let mut imported = Imported { ids: Vec::new(), secs: 0.0, failed: 0 };
    for copy in 0..n {
        if started.elapsed() > SEEDING_LIMIT {
            println!("imports stopped at their limit of {} s", SEEDING_LIMIT.as_secs());
            break;
        }
        let site = send(|| {
            let part = Part::bytes(archive.to_vec()).file_name("site.zip").mime_str("application/zip").unwrap();
            master(client.post(format!("{api}/sites/import"))).multipart(Form::new().part("archive", part))
        })
        .await;
        let id = match site {
            Ok(site) => site["id"].as_str().unwrap_or_default().to_string(),
            Err(e) => {
                imported.failed += 1;
                eprintln!("import {copy} failed: {e}");
                assert!(imported.failed <= 10, "more than 10 imports failed");
                continue;
            }
        };
        let slug = json!({"slug": format!("copy-{copy}")});
        must("PUT /sites/{id}", || master(client.put(format!("{api}/sites/{id}"))).json(&slug)).await;
        imported.ids.push(id);
    }
    imported.secs = started.elapsed().as_secs_f64();
    assert!(!imported.ids.is_empty() || n == 0, "no import succeeded");
    imported
}
