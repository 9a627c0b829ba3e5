//! Tenants that cannot hurt each other: `cargo bench --bench tenants`.
//!
//! Plinth in process (SQLite in a temp dir, then PostgreSQL when
//! `PLINTH_TEST_DATABASE_URL` names a server), two sites with keys scoped to
//! them: a noisy site A and a quiet site B. B runs the same probe each time:
//! one writer creating posts one after another (each delivered to B's webhook
//! on a healthy local receiver) and one reader of B's cached admin list. The
//! probe runs quiet, then beside A in each of its moods:
//!
//! - **hung endpoints**: A has 20 webhooks whose endpoint accepts and never
//!   answers, and creates `BENCH_NOISY_POSTS` posts 16 at a time;
//! - **writing flat out**: 16 of A's writers create posts for as long as B's
//!   probe runs (and, first, alone, for A's own rate without B);
//! - **importing**: A's export imported again and again while B's probe runs.
//!
//! Prints B's delivery latency (post answered → receiver got it) p50/p99, B's
//! write and read p99, each with its ratio to quiet, B's errors, and A's own
//! writes/s; then where B's deliveries spent their time (event → fan-out,
//! fan-out → arrival). Settings: BENCH_PROBE_POSTS (default 500: with 100, A's
//! flat-out phase lasted 2 s and hid a backlog that built over 10),
//! BENCH_NOISY_POSTS (default 100), BENCH_LOG (Plinth's log filter, default
//! `error`).
//!
//! Then **many sites** (`many_sites`): BENCH_SITES sites (default 10,000),
//! each touched once; memory per active and per idle site, whether idle
//! supervisors stop, and the cost of finding a site by id, slug and
//! `X-Site-Domain` at 10 sites and at all of them.
//!
//! Plinth, A's load and B's probe each run on a thread of their own, as three
//! programs would: on one executor, B's requests queued behind A's client
//! work, and B's latency measured the bench as much as the server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "tenants/many_sites.rs"]
mod many_sites;

use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::{web, App, HttpResponse, HttpServer};
use futures_util::stream::{self, StreamExt};
use plinth::{Config, Plinth};
use serde_json::{json, Value};

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// When each of B's posts arrived at B's receiver, by title.
type Arrivals = Arc<Mutex<HashMap<String, Instant>>>;

/// Two receivers on one server: `/hung` accepts and never answers in time,
/// anything else records the arrival of the post it carries.
fn start_receivers(arrivals: Arrivals) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let server = HttpServer::new(move || {
        let arrivals = Arc::clone(&arrivals);
        App::new()
            .route(
                "/hung",
                web::post().to(|_body: web::Bytes| async {
                    tokio::time::sleep(Duration::from_secs(600)).await;
                    HttpResponse::Ok().finish()
                }),
            )
            .default_service(web::to(move |body: web::Json<Value>| {
                if let Some(title) = body["data"]["title"].as_str() {
                    arrivals.lock().unwrap().insert(title.to_string(), Instant::now());
                }
                async { HttpResponse::Ok().finish() }
            }))
    })
    .workers(2)
    .max_connections(100_000)
    .disable_signals()
    .listen(listener)
    .unwrap()
    .run();
    actix_web::rt::spawn(server);
    addr
}

#[derive(Clone)]
struct Site {
    id: String,
    key: String,
}

#[derive(Clone)]
struct Bench {
    base: String,
    /// Plinth's database, read for where B's deliveries spent their time.
    db: sea_orm::DatabaseConnection,
    client: reqwest::Client,
    admin_key: String,
    receiver: String,
}

/// Runs `load` on a thread of its own, with a client of its own: A's load
/// generator is another program (an import script), so none of its work may
/// sit in the executor B's probe measures from.
fn on_another_thread<T, F>(bench: &Bench, load: impl FnOnce(Bench) -> F + Send + 'static) -> std::thread::JoinHandle<T>
where
    T: Send + 'static,
    F: std::future::Future<Output = T> + 'static,
{
    let bench = Bench { client: reqwest::Client::new(), ..bench.clone() };
    std::thread::spawn(move || actix_web::rt::System::new().block_on(load(bench)))
}

/// What `load`'s thread returned, once it has ended.
async fn joined<T: Send + 'static>(load: std::thread::JoinHandle<T>) -> T {
    tokio::task::spawn_blocking(move || load.join().unwrap()).await.unwrap()
}

/// The JSON answer of a request that must succeed.
async fn json_of(request: reqwest::RequestBuilder) -> Value {
    request.send().await.unwrap().json().await.unwrap()
}

impl Bench {
    /// A request with the Master key.
    fn as_admin(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.client.request(method, format!("{}{path}", self.base)).header("X-API-Key", &self.admin_key)
    }

    async fn site(&self, slug: &str) -> Site {
        let site =
            json_of(self.as_admin(reqwest::Method::POST, "/sites").json(&json!({"name": slug, "slug": slug}))).await;
        let id = site["id"].as_str().unwrap().to_string();
        let key = json_of(
            self.as_admin(reqwest::Method::POST, "/api-keys")
                .json(&json!({"name": slug, "permission": "Admin", "site_id": id})),
        )
        .await;
        Site { id, key: key["key"].as_str().unwrap().to_string() }
    }

    async fn webhook(&self, site: &Site, path: &str) {
        let res = self
            .client
            .post(format!("{}/sites/{}/webhooks", self.base, site.id))
            .header("X-API-Key", &site.key)
            .json(&json!({"url": format!("http://{}/{path}", self.receiver), "events": ["blog.created"]}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201);
    }

    async fn import(&self, archive: &bytes::Bytes) -> bool {
        let part = reqwest::multipart::Part::bytes(archive.to_vec()).file_name("site.zip");
        let form = reqwest::multipart::Form::new().part("archive", part);
        let res = self.as_admin(reqwest::Method::POST, "/sites/import").multipart(form).send().await;
        res.is_ok_and(|res| res.status() == 201)
    }

    /// `site`'s export archive.
    async fn export(&self, site: &Site) -> bytes::Bytes {
        let export = format!("/sites/{}/export", site.id);
        let job = json_of(self.as_admin(reqwest::Method::POST, &export).json(&json!({}))).await;
        let id = job["id"].as_str().unwrap();
        loop {
            let job = json_of(self.as_admin(reqwest::Method::GET, &format!("{export}/{id}"))).await;
            if job["status"] == "ready" {
                let download =
                    self.client.get(job["download_url"].as_str().unwrap()).header("X-API-Key", &self.admin_key);
                return download.send().await.unwrap().bytes().await.unwrap();
            }
            assert_ne!(job["status"], "failed", "{job}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn create_post(&self, site: &Site, title: &str) -> bool {
        let res = self
            .client
            .post(format!("{}/blogs", self.base))
            .header("X-API-Key", &site.key)
            .json(&json!({"site_ids": [site.id], "title": title}))
            .send()
            .await;
        res.is_ok_and(|res| res.status() == 201)
    }
}

#[derive(Clone, Copy)]
struct Probe {
    delivery_p50: f64,
    delivery_p99: f64,
    write_p99: f64,
    read_p99: f64,
    errors: usize,
    missing: usize,
    stages: Stages,
}

/// Where B's deliveries spent their time, p50 and p99 in ms: from the event
/// (written with the post) to its delivery row (the outbox's fan-out), and
/// from the row to its arrival at the receiver (the send).
#[derive(Clone, Copy)]
struct Stages {
    fan_out: (f64, f64),
    send: (f64, f64),
}

/// The stages of B's deliveries: each delivery row's event time (the
/// payload's `timestamp`) and creation, against its arrival (`arrived`, by
/// title, on the wall clock).
async fn stages_of(
    db: &sea_orm::DatabaseConnection,
    site: &Site,
    arrived: &HashMap<String, chrono::DateTime<chrono::Utc>>,
) -> Stages {
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    let site_id: uuid::Uuid = site.id.parse().unwrap();
    let rows = plinth_entities::webhook_delivery::Entity::find()
        .filter(plinth_entities::webhook_delivery::Column::SiteId.eq(site_id))
        .all(db)
        .await
        .unwrap();
    let (mut fan_out, mut send) = (Vec::new(), Vec::new());
    for row in rows {
        let payload: Value = serde_json::from_str(&row.payload).unwrap_or_default();
        let (Some(title), Some(event_at)) = (
            payload["data"]["title"].as_str(),
            payload["timestamp"].as_str().and_then(|t| t.parse::<chrono::DateTime<chrono::Utc>>().ok()),
        ) else {
            continue;
        };
        let Some(arrival) = arrived.get(title) else { continue };
        let ms = |d: chrono::TimeDelta| d.num_microseconds().unwrap_or(0).max(0) as f64 / 1000.0;
        fan_out.push(ms(row.created_at - event_at));
        send.push(ms(*arrival - row.created_at));
    }
    fan_out.sort_by(f64::total_cmp);
    send.sort_by(f64::total_cmp);
    let p = |list: &[f64]| (percentile(list, 0.50), percentile(list, 0.99));
    Stages { fan_out: p(&fan_out), send: p(&send) }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)]
}

/// B's writer and reader, side by side; then waits (10 s at most) for B's
/// deliveries.
async fn probe(bench: &Bench, quiet: &Site, posts: usize, round: &str, arrivals: &Arrivals) -> Probe {
    let probe_started = (Instant::now(), chrono::Utc::now());
    let done = Arc::new(AtomicBool::new(false));
    let reader = {
        let (client, done) = (bench.client.clone(), Arc::clone(&done));
        let url = format!("{}/sites/{}/blogs?per_page=20", bench.base, quiet.id);
        let key = quiet.key.clone();
        actix_web::rt::spawn(async move {
            let (mut reads, mut errors) = (Vec::new(), 0);
            while !done.load(Ordering::Relaxed) {
                let sent = Instant::now();
                match client.get(&url).header("X-API-Key", &key).send().await {
                    Ok(res) if res.status().is_success() => {
                        let _ = res.bytes().await;
                        reads.push(sent.elapsed().as_secs_f64() * 1000.0);
                    }
                    _ => errors += 1,
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            (reads, errors)
        })
    };
    let (mut writes, mut answered, mut errors) = (Vec::new(), HashMap::new(), 0);
    for n in 0..posts {
        let title = format!("{round} {n}");
        let sent = Instant::now();
        if bench.create_post(quiet, &title).await {
            writes.push(sent.elapsed().as_secs_f64() * 1000.0);
            answered.insert(title, Instant::now());
        } else {
            errors += 1;
        }
    }
    done.store(true, Ordering::Relaxed);
    let (mut reads, read_errors) = reader.await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline && answered.keys().any(|title| !arrivals.lock().unwrap().contains_key(title)) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let arrived = arrivals.lock().unwrap().clone();
    let mut deliveries: Vec<f64> = answered
        .iter()
        .filter_map(|(title, at)| {
            arrived.get(title).map(|got| got.saturating_duration_since(*at).as_secs_f64() * 1000.0)
        })
        .collect();
    let missing = answered.len() - deliveries.len();
    // Each arrival on the wall clock, for the stages (the rows keep wall-clock times).
    let arrived_at: HashMap<String, chrono::DateTime<chrono::Utc>> = answered
        .keys()
        .filter_map(|title| {
            let since = arrived.get(title)?.saturating_duration_since(probe_started.0);
            Some((title.clone(), probe_started.1 + chrono::TimeDelta::from_std(since).ok()?))
        })
        .collect();
    let stages = stages_of(&bench.db, quiet, &arrived_at).await;
    for list in [&mut deliveries, &mut writes, &mut reads] {
        list.sort_by(f64::total_cmp);
    }
    Probe {
        delivery_p50: percentile(&deliveries, 0.50),
        delivery_p99: percentile(&deliveries, 0.99),
        write_p99: percentile(&writes, 0.99),
        read_p99: percentile(&reads, 0.99),
        errors: errors + read_errors,
        missing,
        stages,
    }
}

fn report(label: &str, got: Probe, quiet: Option<Probe>, noisy_writes_per_sec: Option<f64>) {
    let ratio = |now: f64, then: Option<f64>| then.map_or(String::new(), |then| format!(" (×{:.2})", now / then));
    println!(
        "{label:<26} B delivery p50 {:>7.1} ms p99 {:>7.1} ms{} | B write p99 {:>6.1} ms{} | B read p99 {:>6.2} ms{} | B errors {} missing {}{}",
        got.delivery_p50,
        got.delivery_p99,
        ratio(got.delivery_p99, quiet.map(|q| q.delivery_p99)),
        got.write_p99,
        ratio(got.write_p99, quiet.map(|q| q.write_p99)),
        got.read_p99,
        ratio(got.read_p99, quiet.map(|q| q.read_p99)),
        got.errors,
        got.missing,
        noisy_writes_per_sec.map_or(String::new(), |w| format!(" | A writes {w:.0}/s")),
    );
    let Stages { fan_out, send } = got.stages;
    println!(
        "{:<26} B's deliveries: event → fan-out p50 {:>7.1} ms p99 {:>7.1} ms | fan-out → arrival p50 {:>7.1} ms p99 {:>7.1} ms",
        "", fan_out.0, fan_out.1, send.0, send.1
    );
}

/// Plinth in process on `database_url` ("sqlite": a fresh file), sending
/// webhooks to `receiver`, on `clock`.
async fn start_plinth(
    database_url: &str,
    dir: &std::path::Path,
    receiver: String,
    clock: Arc<plinth_actors::ShiftedClock>,
) -> (Bench, actix_web::web::Data<plinth::AppState>) {
    let admin_key = "plk_bench_tenants".to_string();
    let mut config = Config::defaults().unwrap();
    config.database_url = match database_url {
        "sqlite" => format!("sqlite://{}?mode=rwc", dir.join("bench.db").display()),
        admin_url => common::fresh_postgres(admin_url).await,
    };
    config.data_dir = dir.join("data");
    config.bootstrap_api_key = Some(admin_key.clone());
    config.log.filter = std::env::var("BENCH_LOG").unwrap_or_else(|_| "error".into());
    config.ssrf_allowlist = vec![receiver.clone()];
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    // Links the API answers (an export's download) point at this server.
    config.public_url = Some(format!("http://{}", listener.local_addr().unwrap()));
    // Its own thread and actor system, as its own process would have.
    let (started, ready) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let app = Plinth::build_with_clock(config, clock).await.unwrap();
            let running = app.serve(listener, false).unwrap();
            let _ = started.send((running.addr, running.state()));
            let _ = running.server.await;
        })
    });
    let (addr, state) = ready.await.unwrap();
    let base = format!("http://{addr}/api/v1");
    let db = (*state.db).clone();
    (Bench { base, db, client: reqwest::Client::new(), admin_key, receiver }, state)
}

async fn run(database_url: &str, probe_posts: usize, noisy_posts: usize) {
    let arrivals: Arrivals = Arc::default();
    let receiver = start_receivers(Arc::clone(&arrivals));
    let dir = tempfile::tempdir().unwrap();
    let (bench, _) = start_plinth(database_url, dir.path(), receiver, Arc::default()).await;

    let (noisy, quiet) = (bench.site("noisy").await, bench.site("quiet").await);
    bench.webhook(&quiet, "hook").await;
    let alone = probe(&bench, &quiet, probe_posts, "quiet", &arrivals).await;
    report("quiet", alone, None, None);

    // A's hung endpoints: its sends take slots and hold them to the timeout.
    for _ in 0..20 {
        bench.webhook(&noisy, "hung").await;
    }
    let site = noisy.clone();
    let noisy_rate = joined(on_another_thread(&bench, move |bench| async move {
        let started = Instant::now();
        stream::iter(0..noisy_posts)
            .for_each_concurrent(16, |n| {
                let (bench, site) = (&bench, &site);
                async move {
                    bench.create_post(site, &format!("noisy {n}")).await;
                }
            })
            .await;
        noisy_posts as f64 / started.elapsed().as_secs_f64()
    }))
    .await;
    let beside = probe(&bench, &quiet, probe_posts, "beside hung", &arrivals).await;
    report("beside A's hung endpoints", beside, Some(alone), Some(noisy_rate));

    // A writing flat out: alone first (A's own rate), then beside B's probe.
    let writers = FlatOut::start(&bench, &noisy);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let alone_rate = writers.rate_over(Duration::from_secs(5)).await;
    println!("{:<26} A writes {alone_rate:.0}/s", "A alone, flat out");
    let (started, before) = (Instant::now(), writers.written.load(Ordering::Relaxed));
    let flat_out = probe(&bench, &quiet, probe_posts, "beside flat out", &arrivals).await;
    let rate = (writers.written.load(Ordering::Relaxed) - before) as f64 / started.elapsed().as_secs_f64();
    writers.stop().await;
    report("beside A writing flat out", flat_out, Some(alone), Some(rate));

    // A importing its own export, one import after another.
    let archive = bench.export(&noisy).await;
    let stop = Arc::new(AtomicBool::new(false));
    let importer = {
        let stop = Arc::clone(&stop);
        on_another_thread(&bench, move |bench| async move {
            let mut imported = 0;
            while !stop.load(Ordering::Relaxed) {
                imported += usize::from(bench.import(&archive).await);
            }
            imported
        })
    };
    let started = Instant::now();
    let importing = probe(&bench, &quiet, probe_posts, "beside import", &arrivals).await;
    stop.store(true, Ordering::Relaxed);
    let imported = joined(importer).await;
    let seconds = started.elapsed().as_secs_f64();
    report("beside A importing", importing, Some(alone), None);
    println!(
        "{:<26} A imported {imported} sites of {} posts in {seconds:.1} s",
        "",
        flat_out_posts(&bench, &noisy).await
    );
}

/// How many posts a site has.
async fn flat_out_posts(bench: &Bench, site: &Site) -> u64 {
    let url = format!("{}/sites/{}/blogs?per_page=1", bench.base, site.id);
    let page = json_of(bench.client.get(url).header("X-API-Key", &site.key)).await;
    page["meta"]["total"].as_u64().unwrap_or(0)
}

/// 16 writers creating posts for a site as fast as it answers, on a thread
/// of their own.
struct FlatOut {
    stop: Arc<AtomicBool>,
    written: Arc<AtomicU64>,
    load: std::thread::JoinHandle<()>,
}

impl FlatOut {
    fn start(bench: &Bench, site: &Site) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let written = Arc::new(AtomicU64::new(0));
        let (site, flags) = (site.clone(), (Arc::clone(&stop), Arc::clone(&written)));
        let load = on_another_thread(bench, move |bench| async move {
            let writers: Vec<_> = (0..16)
                .map(|w| {
                    let (stop, written) = (Arc::clone(&flags.0), Arc::clone(&flags.1));
                    let (client, base) = (bench.client.clone(), bench.base.clone());
                    let (key, site) = (site.key.clone(), site.id.clone());
                    actix_web::rt::spawn(async move {
                        let mut n = 0;
                        while !stop.load(Ordering::Relaxed) {
                            let res = client
                                .post(format!("{base}/blogs"))
                                .header("X-API-Key", &key)
                                .json(&json!({"site_ids": [site], "title": format!("flat out {w}-{n}")}))
                                .send()
                                .await;
                            if res.is_ok_and(|r| r.status() == 201) {
                                written.fetch_add(1, Ordering::Relaxed);
                            }
                            n += 1;
                        }
                    })
                })
                .collect();
            for writer in writers {
                let _ = writer.await;
            }
        });
        Self { stop, written, load }
    }

    async fn rate_over(&self, window: Duration) -> f64 {
        let before = self.written.load(Ordering::Relaxed);
        tokio::time::sleep(window).await;
        (self.written.load(Ordering::Relaxed) - before) as f64 / window.as_secs_f64()
    }

    async fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        joined(self.load).await;
    }
}

fn main() {
    let (probe_posts, noisy_posts) = (env_or("BENCH_PROBE_POSTS", 500), env_or("BENCH_NOISY_POSTS", 100));
    actix_web::rt::System::new().block_on(async move {
        let mut backends = vec![("SQLite", "sqlite".to_string())];
        if let Some(url) = std::env::var("PLINTH_TEST_DATABASE_URL").ok().filter(|u| !u.is_empty()) {
            backends.push(("PostgreSQL", url));
        }
        for (name, url) in &backends {
            println!(
                "{name}: site B's probe ({probe_posts} posts, one writer, one reader), quiet and beside a noisy site A"
            );
            run(url, probe_posts, noisy_posts).await;
            many_sites::run(url, env_or("BENCH_SITES", 10_000)).await;
        }
        // Leave before the runtime is torn down under live connection pools.
        std::process::exit(0);
    });
}
