//! The `plinth` binary itself: first start prints a Master key, SIGTERM exits 0,
//! `plinth api-key create` prints a working key, and a start that cannot
//! succeed says why in one line with a documented exit code.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::helpers::fresh_database;

pub fn plinth(dir: &tempfile::TempDir, database_url: &str, port: u16) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_plinth"));
    cmd.current_dir(dir.path())
        .env_remove("PLINTH_BOOTSTRAP_API_KEY")
        .env_remove("PLINTH_CONFIG")
        .env("PLINTH_DATABASE_URL", database_url)
        .env("PLINTH_DATA_DIR", dir.path().join("data"))
        .env("PLINTH_BIND", format!("127.0.0.1:{port}"))
        .env("PLINTH_WORKERS", "1")
        .env("PLINTH_LOG", "warn");
    cmd
}

/// Reads the child's stdout until the banner's last line; returns the printed key
/// and every line printed so far.
pub fn wait_until_ready(child: &mut Child) -> (Option<String>, Vec<String>) {
    let stdout = child.stdout.take().expect("piped stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut key = None;
        let mut seen = Vec::new();
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(secret) = line.trim().strip_prefix("X-API-Key: ") {
                key = Some(secret.to_string());
            }
            seen.push(line.clone());
            if line.starts_with("Ready.") {
                let _ = tx.send((key.clone(), seen.clone()));
            }
        }
    });
    let printed = rx.recv_timeout(Duration::from_secs(60));
    if printed.is_err() {
        let _ = child.kill();
    }
    printed.expect("the server printed its banner")
}

fn wait_until_listening(child: &mut Child) -> Option<String> {
    wait_until_ready(child).0
}

/// A child process killed when the test ends, also when an assertion fails, so a
/// failed test leaves no server running.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Peak resident memory of `pid` in KiB.
pub fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Makes the peak start again from the current resident size.
pub fn reset_peak_rss(pid: u32) {
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").unwrap();
}

/// The Master key every [`Instance`] starts with.
pub const INSTANCE_KEY: &str = "plk_crash_test_master_key";

/// One database and data directory, started (and killed) as often as a test likes.
pub struct Instance {
    pub dir: crate::helpers::TestData,
    pub database_url: String,
    pub port: u16,
    env: Vec<(&'static str, String)>,
}

impl Instance {
    /// `allowed`: the `host:port` of the test's webhook receiver (SSRF allowlist).
    pub async fn new(allowed: &str, env: &[(&'static str, &str)]) -> Instance {
        let (dir, database_url) = fresh_database().await;
        let mut all = vec![
            ("PLINTH_BOOTSTRAP_API_KEY", INSTANCE_KEY.to_string()),
            ("PLINTH_SSRF_ALLOWLIST", allowed.to_string()),
        ];
        all.extend(env.iter().map(|(k, v)| (*k, v.to_string())));
        Instance { dir, database_url, port: free_port(), env: all }
    }

    /// Settings only a configuration file carries.
    pub fn with_config_file(mut self, toml: &str) -> Instance {
        let path = self.dir.path().join("plinth.toml");
        std::fs::write(&path, toml).unwrap();
        self.env.push(("PLINTH_CONFIG", path.display().to_string()));
        self
    }

    pub fn start(&self) -> Running {
        let mut cmd = plinth(&self.dir, &self.database_url, self.port);
        cmd.envs(self.env.iter().map(|(k, v)| (*k, v.as_str())));
        let mut child = Running(cmd.stdout(Stdio::piped()).spawn().unwrap());
        wait_until_ready(&mut child.0);
        child
    }

    pub fn api(&self) -> String {
        format!("http://127.0.0.1:{}/api/v1", self.port)
    }
}

#[actix_web::test]
async fn the_binary_prints_a_key_on_first_start_and_stops_cleanly_on_sigterm() {
    let (dir, database_url) = fresh_database().await;
    let port = free_port();
    // At the default log level, as an operator's first `cargo run` would.
    let mut child =
        Running(plinth(&dir, &database_url, port).env("PLINTH_LOG", "info").stdout(Stdio::piped()).spawn().unwrap());
    let (key, first_screen) = wait_until_ready(&mut child.0);
    let key = key.expect("first start prints a Master key");
    let screen = first_screen.join("\n");
    assert!(first_screen.len() <= 16, "a short first screen, got:\n{screen}");
    assert!(!screen.contains('\u{1b}'), "no colour codes into a pipe:\n{screen}");
    assert!(screen.contains(&format!("listening on http://127.0.0.1:{port}")), "{screen}");
    assert!(screen.contains(&format!("http://127.0.0.1:{port}/api-docs/")), "{screen}");
    assert!(screen.contains("  Database  "), "{screen}");
    assert_eq!(screen.matches("migration").count(), 1, "one line about migrations:\n{screen}");

    let client = reqwest::Client::new();
    let res =
        client.get(format!("http://127.0.0.1:{port}/api/v1/sites")).header("X-API-Key", &key).send().await.unwrap();
    assert_eq!(res.status(), 200);

    let killed = Command::new("kill").args(["-TERM", &child.0.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let status = child.0.wait().unwrap();
    assert!(status.success(), "exit status after SIGTERM: {status:?}");

    // Second start on the same database: no new key is printed.
    let mut child = Running(plinth(&dir, &database_url, port).stdout(Stdio::piped()).spawn().unwrap());
    assert_eq!(wait_until_listening(&mut child.0), None);

    // The CLI creates a key that the running server accepts (a new client: the old
    // one's pooled connections died with the first process).
    let client = reqwest::Client::new();
    let out = plinth(&dir, &database_url, port)
        .args(["api-key", "create", "--name", "ops", "--permission", "read"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let secret =
        text.lines().find_map(|l| l.trim().strip_prefix("X-API-Key: ")).expect("the CLI prints the secret").to_string();
    let res =
        client.get(format!("http://127.0.0.1:{port}/api/v1/sites")).header("X-API-Key", &secret).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let res = client
        .post(format!("http://127.0.0.1:{port}/api/v1/sites"))
        .header("X-API-Key", &secret)
        .json(&serde_json::json!({"name": "n", "slug": "n"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403, "a Read key cannot create sites");

    let bad = plinth(&dir, &database_url, port)
        .args([
            "api-key",
            "create",
            "--name",
            "x",
            "--permission",
            "Master",
            "--site",
            &uuid::Uuid::new_v4().to_string(),
        ])
        .output()
        .unwrap();
    assert!(!bad.status.success());

    Command::new("kill").args(["-TERM", &child.0.id().to_string()]).status().unwrap();
    assert!(child.0.wait().unwrap().success());
}

/// Runs `plinth` expecting it to fail at start-up: its exit code and stderr.
fn failed_start(mut cmd: Command) -> (Option<i32>, String) {
    let out = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).trim().to_string())
}

#[actix_web::test]
async fn start_up_failures_print_one_line_naming_the_setting_and_never_panic() {
    let (dir, database_url) = fresh_database().await;
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let (code, stderr) = failed_start(plinth(&dir, &database_url, port));
    assert_eq!(code, Some(3), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line:\n{stderr}");
    assert!(stderr.contains("in use") && stderr.contains("PLINTH_BIND"), "{stderr}");

    let free = free_port();
    let mut cmd = plinth(&dir, &database_url, free);
    cmd.env("PLINTH_BIND", "not-an-address");
    let (code, stderr) = failed_start(cmd);
    assert_eq!((code, stderr.lines().count()), (Some(2), 1), "{stderr}");
    assert!(stderr.contains("PLINTH_BIND"), "{stderr}");

    let mut cmd = plinth(&dir, &database_url, free);
    cmd.env("PLINTH_LOG", "info,plinth=loud");
    let (code, stderr) = failed_start(cmd);
    assert_eq!((code, stderr.lines().count()), (Some(2), 1), "{stderr}");
    assert!(stderr.contains("PLINTH_LOG"), "{stderr}");

    let mut cmd = plinth(&dir, "postgres://nobody@127.0.0.1:1/none", free);
    cmd.env("PLINTH_DATABASE_URL", "postgres://nobody@127.0.0.1:1/none");
    let (code, stderr) = failed_start(cmd);
    assert_eq!((code, stderr.lines().count()), (Some(4), 1), "{stderr}");
    assert!(stderr.contains("PLINTH_DATABASE_URL") && !stderr.contains("nobody@"), "no credentials echoed:\n{stderr}");

    let file = dir.path().join("a-file");
    std::fs::write(&file, b"").unwrap();
    let mut cmd = plinth(&dir, &database_url, free);
    cmd.env("PLINTH_DATA_DIR", file.join("data"));
    let (code, stderr) = failed_start(cmd);
    assert_eq!((code, stderr.lines().count()), (Some(5), 1), "{stderr}");
    assert!(stderr.contains("PLINTH_DATA_DIR"), "{stderr}");
}

/// `plinth migrate` builds a database from nothing, as a first `cargo run`
/// does, and an upgrade applies only what is new. Every other test copies a
/// database migrated once in the test process, so only this one runs the
/// binary's migrations on an empty file.
#[actix_web::test]
async fn migrate_builds_a_database_from_nothing_and_then_finds_nothing_pending() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("fresh.db").display());
    let run = || {
        let out = plinth(&dir, &url, free_port()).arg("migrate").output().unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "plinth migrate failed: {text}");
        text
    };
    let first = run();
    assert!(first.contains("applied") && !first.contains("applied 0"), "{first}");
    let again = run();
    assert!(!again.contains("error"), "{again}");
}
