//! What the benches share: a fresh PostgreSQL database, and its statistics.

use std::net::{SocketAddr, TcpListener};
use std::process::Command;

use sea_orm::ConnectionTrait;

/// A fresh database on the PostgreSQL server `admin_url` names.
#[allow(dead_code)] // not every bench runs on PostgreSQL
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

#[allow(dead_code)]
pub struct Figures {
    pub requests_per_sec: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub requests: u64,
    /// Answers other than 2xx (304s and 429s where a row expects them).
    pub not_2xx: u64,
    /// This process's CPU time (the servers live here) per request, µs.
    pub cpu_us_per_request: f64,
}

/// CPU time this process has used so far: user + system, in µs.
pub fn process_cpu_us() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> =
        stat.rsplit_once(')').map(|(_, rest)| rest.split_whitespace().collect()).unwrap_or_default();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15 (1-based), 11 and 12 after the name.
    (ticks(11) + ticks(12)) * 1_000_000.0 / 100.0
}

#[allow(dead_code)]
pub fn wrk(url: &str, headers: &[(&str, &str)], seconds: u64, connections: u64) -> Figures {
    wrk_expecting(url, headers, seconds, connections, false)
}

#[allow(dead_code)]
pub fn wrk_expecting(url: &str, headers: &[(&str, &str)], seconds: u64, connections: u64, others_ok: bool) -> Figures {
    wrk_run(url, headers, None, seconds, connections, others_ok)
}

/// wrk with a Lua script (a POST body, say).
#[allow(dead_code)]
pub fn wrk_script(
    url: &str,
    headers: &[(&str, &str)],
    script: &std::path::Path,
    seconds: u64,
    connections: u64,
) -> Figures {
    wrk_run(url, headers, Some(script), seconds, connections, false)
}

fn wrk_run(
    url: &str,
    headers: &[(&str, &str)],
    script: Option<&std::path::Path>,
    seconds: u64,
    connections: u64,
    others_ok: bool,
) -> Figures {
    let cpu_before = process_cpu_us();
    let mut cmd = Command::new("wrk");
    cmd.args(["-t1", &format!("-c{connections}"), &format!("-d{seconds}s"), "--latency"]);
    if let Some(script) = script {
        cmd.arg("-s").arg(script);
    }
    for (name, value) in headers {
        cmd.args(["-H", &format!("{name}: {value}")]);
    }
    let out = cmd.arg(url).output().expect("wrk is installed (apt-get install wrk)");
    let cpu_used = process_cpu_us() - cpu_before;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(others_ok || !text.contains("Non-2xx"), "non-2xx answers during the benchmark:\n{text}");
    let field = |prefix: &str| -> String {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(prefix).map(|v| v.trim().to_string()))
            .unwrap_or_else(|| panic!("no '{prefix}' in wrk output:\n{text}"))
    };
    let requests: u64 = text
        .lines()
        .find(|l| l.contains("requests in"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let not_2xx = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Non-2xx or 3xx responses:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    Figures {
        requests_per_sec: field("Requests/sec:").parse().unwrap(),
        p50_ms: millis(&field("50%")),
        p99_ms: millis(&field("99%")),
        requests,
        not_2xx,
        cpu_us_per_request: cpu_used / requests.max(1) as f64,
    }
}

fn millis(value: &str) -> f64 {
    let split = value.find(|c: char| c.is_ascii_alphabetic()).unwrap();
    let (number, unit) = value.split_at(split);
    let n: f64 = number.parse().unwrap();
    match unit {
        "us" => n / 1000.0,
        "ms" => n,
        "s" => n * 1000.0,
        other => panic!("unknown unit {other}"),
    }
}

/// Plinth on its own actix system thread; answers its address once it listens.
#[allow(dead_code)]
pub fn start_plinth(config: plinth::Config) -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let app = plinth::Plinth::build(config).await.unwrap();
            let running = app.serve(TcpListener::bind("127.0.0.1:0").unwrap(), false).unwrap();
            tx.send(running.addr).unwrap();
            running.server.await.unwrap();
        });
    });
    rx.recv().unwrap()
}

/// This process's resident memory, KiB.
#[allow(dead_code)]
pub fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// The `plinth` binary cargo built for this bench (the release profile under
/// `cargo bench`), running as its own process.
#[allow(dead_code)] // used by the soak bench only
pub struct PlinthProcess {
    pub child: std::process::Child,
    pub addr: SocketAddr,
    /// The Master key printed on a first start (a fresh database).
    pub admin_key: Option<String>,
}

#[allow(dead_code)]
impl PlinthProcess {
    /// Starts it on a free port with `env` on top of a clean environment's
    /// essentials; returns once it printed its `Ready.` line.
    pub fn start(database_url: &str, data_dir: &std::path::Path, env: &[(&str, &str)]) -> PlinthProcess {
        use std::io::{BufRead, BufReader};
        let addr = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_plinth"))
            .current_dir(data_dir)
            .env_remove("PLINTH_CONFIG")
            .env("PLINTH_DATABASE_URL", database_url)
            .env("PLINTH_DATA_DIR", data_dir.join("data"))
            .env("PLINTH_BIND", addr.to_string())
            .env("PLINTH_LOG", "error")
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        // Reads the banner, then keeps draining so the pipe never fills.
        std::thread::spawn(move || {
            let mut admin_key = None;
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(key) = line.trim().strip_prefix("X-API-Key: ") {
                    admin_key = Some(key.to_string());
                }
                if line.starts_with("Ready.") {
                    let _ = tx.send(admin_key.take());
                }
            }
        });
        let Ok(admin_key) = rx.recv_timeout(std::time::Duration::from_secs(120)) else {
            let _ = child.kill();
            panic!("plinth did not start");
        };
        PlinthProcess { child, addr, admin_key }
    }

    /// Its resident memory, KiB.
    pub fn rss_kib(&self) -> u64 {
        rss_kib_of(&format!("/proc/{}/status", self.child.id()))
    }

    /// SIGTERM, and waits for it to exit.
    pub fn stop(mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let _ = self.child.wait();
    }
}

#[allow(dead_code)]
fn rss_kib_of(status_file: &str) -> u64 {
    std::fs::read_to_string(status_file)
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}
