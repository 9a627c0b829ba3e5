//! Many sites on one deployment: `BENCH_SITES` sites, each touched once.
//! Reports memory per active and per idle site (the process's RSS, which
//! includes this bench's client), whether idle supervisors stop, and the cost
//! of finding a site by id, slug and `X-Site-Domain` at 10 sites and at all.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::stream::{self, StreamExt};
use serde_json::json;

use super::{json_of, start_plinth, Bench};

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Gives freed heap back to the kernel, so RSS shows what is still held.
fn trim_heap() {
    // SAFETY: malloc_trim only releases free memory at the top of glibc's heaps.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::malloc_trim(0);
    }
}

struct Made {
    id: String,
    slug: String,
}

async fn create_sites(bench: &Bench, from: usize, to: usize) -> Vec<Made> {
    stream::iter(from..to)
        .map(|n| async move {
            let slug = format!("tenant-{n}");
            let body = json!({"name": slug, "slug": slug, "base_url": format!("https://{slug}.example.org")});
            let site = json_of(bench.as_admin(reqwest::Method::POST, "/sites").json(&body)).await;
            Made { id: site["id"].as_str().unwrap().to_string(), slug }
        })
        .buffered(8)
        .collect()
        .await
}

/// The three ways to find a site, for the site `made`.
async fn find(bench: &Bench, made: &Made, way: usize) {
    let req = match way {
        0 => bench.as_admin(reqwest::Method::GET, &format!("/sites/{}", made.id)),
        1 => bench.as_admin(reqwest::Method::GET, &format!("/sites/by-slug/{}", made.slug)),
        _ => bench
            .client
            .get(format!("{}/public/forms/none", bench.base))
            .header("X-Site-Domain", format!("{}.example.org", made.slug)),
    };
    let res = req.send().await.unwrap();
    // The domain lookup finds the site, then no such form (or no forms module).
    assert!(res.status() == 200 || (way == 2 && res.status() == 404), "{way}: {}", res.status());
    let _ = res.bytes().await;
}

const WAYS: [&str; 3] = ["id", "slug", "X-Site-Domain"];

/// Mean µs of each way, over `rounds` requests cycling through `sites`
/// (each found once beforehand, so these are the warm lookups).
async fn lookup_costs(bench: &Bench, sites: &[&Made], rounds: usize) -> [f64; 3] {
    let mut costs = [0.0; 3];
    for (way, cost) in costs.iter_mut().enumerate() {
        for made in sites {
            find(bench, made, way).await;
        }
        let started = Instant::now();
        for n in 0..rounds {
            find(bench, sites[n % sites.len()], way).await;
        }
        *cost = started.elapsed().as_secs_f64() * 1e6 / rounds as f64;
    }
    costs
}

pub async fn run(database_url: &str, sites: usize) {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(plinth_actors::ShiftedClock::default());
    let (bench, state) = start_plinth(database_url, dir.path(), "127.0.0.1:9".into(), Arc::clone(&clock)).await;
    let few = create_sites(&bench, 0, 10).await;
    let at_ten = lookup_costs(&bench, &few.iter().collect::<Vec<_>>(), 1000).await;

    let started = Instant::now();
    let mut all = few;
    all.extend(create_sites(&bench, 10, sites).await);
    println!("{sites} sites created in {:.1} s", started.elapsed().as_secs_f64());
    state.supervisors.stop_idle(); // none idle yet: the clock has not moved
    clock.advance(chrono::Duration::seconds(state.config.sites.cache_idle_secs as i64 + 1));
    state.supervisors.stop_idle();
    trim_heap();
    let (before, running_before) = (rss_kib(), state.supervisors.counts().active);

    // Touch each site once (its supervisor starts, its state is cached).
    let started = Instant::now();
    stream::iter(&all).for_each_concurrent(8, |made| find(&bench, made, 0)).await;
    let touched = started.elapsed();
    trim_heap();
    let active = rss_kib();
    let running = state.supervisors.counts().active;
    let spread: Vec<&Made> = all.iter().step_by((sites / 1000).max(1)).collect();
    let at_all = lookup_costs(&bench, &spread, 1000).await;

    // Idle past the idle time: every supervisor stops and forgets its site.
    clock.advance(chrono::Duration::seconds(state.config.sites.cache_idle_secs as i64 + 1));
    let stopped = state.supervisors.stop_idle();
    tokio::time::sleep(Duration::from_millis(500)).await;
    trim_heap();
    let idle = rss_kib();
    let per_site = |kib: i64| kib as f64 * 1024.0 / sites as f64;
    println!(
        "touched {sites} sites once in {:.1} s: supervisors running {running_before} → {running}; then idle: {stopped} stopped, {} running",
        touched.as_secs_f64(),
        state.supervisors.counts().active,
    );
    println!(
        "memory (RSS) per site: active {:.0} bytes, idle {:.0} bytes (RSS {} → {} → {} MiB)",
        per_site(active as i64 - before as i64),
        per_site(idle as i64 - before as i64),
        before / 1024,
        active / 1024,
        idle / 1024,
    );
    for (way, name) in WAYS.iter().enumerate() {
        println!(
            "finding a site by {name:<13}: {:>6.0} µs at 10 sites, {:>6.0} µs at {sites} (×{:.2})",
            at_ten[way],
            at_all[way],
            at_all[way] / at_ten[way],
        );
    }
}
