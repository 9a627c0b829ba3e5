//! The `plinth` command: `serve` (default), `migrate`, `api-key create`.

use std::net::TcpListener;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use plinth::api_keys::{insert_key, NewKey};
use plinth::auth::KeyPermission;
use plinth::{db, telemetry, Config, Plinth, RunningServer};
use uuid::Uuid;

#[derive(Parser)]
#[command(name = "plinth", version, about = "Multi-site headless CMS (JSON REST API)")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the API (the default).
    Serve,
    /// Apply pending database migrations and exit.
    Migrate,
    /// Manage API keys.
    #[command(subcommand)]
    ApiKey(ApiKeyCommand),
}

#[derive(Subcommand)]
enum ApiKeyCommand {
    /// Create a key and print its secret once.
    Create {
        #[arg(long)]
        name: String,
        /// Read, Write, Admin or Master.
        #[arg(long)]
        permission: String,
        /// Scope the key to one site.
        #[arg(long)]
        site: Option<Uuid>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = match Config::load() {
        Ok(c) => c,
        Err(e) => fail(Failure::new(Failure::SETTING, e.to_string())),
    };
    telemetry::init(&config.log);
    actix_web::rt::System::new().block_on(async move {
        let result = match cli.command.unwrap_or(Command::Serve) {
            Command::Serve => serve(config).await,
            Command::Migrate => migrate(config).await.map_err(Failure::from),
            Command::ApiKey(ApiKeyCommand::Create { name, permission, site }) => {
                create_key(config, name, permission, site).await.map_err(Failure::from)
            }
        };
        // Exit here, inside the runtime: dropping it with actors or pooled
        // connections still waiting would print their panics after the line
        // that says what went wrong.
        match result {
            Ok(()) => exit(0),
            Err(failure) => fail(failure),
        }
    })
}

/// Why `plinth` could not start: one line naming the cause and the setting
/// to change, and the exit code (docs/operating.md lists them).
struct Failure {
    code: i32,
    line: String,
}

impl Failure {
    const OTHER: i32 = 1;
    /// A setting is invalid (a value that does not parse, a bad combination).
    const SETTING: i32 = 2;
    /// The address to listen on is taken or not this machine's.
    const LISTEN: i32 = 3;
    /// The database cannot be reached or opened.
    const DATABASE: i32 = 4;
    /// The data directory cannot be created or written.
    const DATA_DIR: i32 = 5;

    fn new(code: i32, line: impl Into<String>) -> Self {
        Failure { code, line: line.into() }
    }
}

impl From<plinth::app::BoxError> for Failure {
    fn from(e: plinth::app::BoxError) -> Self {
        Failure::new(Failure::OTHER, e.to_string())
    }
}

fn fail(failure: Failure) -> ! {
    eprintln!("plinth: {}", failure.line);
    exit(failure.code)
}

fn exit(code: i32) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    std::process::exit(code)
}

/// Checks what start-up needs from outside, cheapest first, before anything
/// starts: the address, the data directory, the database. Each failure is a
/// [`Failure`] that names the setting.
async fn preflight(config: &Config) -> Result<TcpListener, Failure> {
    let bind = config.bind_addr().map_err(|e| Failure::new(Failure::SETTING, e.to_string()))?;
    let listener = TcpListener::bind(bind).map_err(|e| {
        Failure::new(Failure::LISTEN, format!("cannot listen on {bind}: {e}; set PLINTH_BIND to a free host:port"))
    })?;
    let dir = &config.data_dir;
    let probe = dir.join(".plinth-write-check");
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&probe, b""))
        .and_then(|()| std::fs::remove_file(&probe))
        .map_err(|e| {
            Failure::new(
                Failure::DATA_DIR,
                format!("the data directory {} is not writable: {e}; set PLINTH_DATA_DIR", dir.display()),
            )
        })?;
    let database = db::connect(&config.database_url, config.database_acquire_timeout()).await.map_err(|e| {
        Failure::new(
            Failure::DATABASE,
            format!("cannot open the database {}: {e}; check PLINTH_DATABASE_URL", db::describe(&config.database_url)),
        )
    })?;
    let _ = database.close().await;
    Ok(listener)
}

/// How long after the server's start the heap only start-up used is given
/// back: the workers build their apps on the server's first poll, which runs
/// before this task; the wait also lets the periodic work's first passes go by.
const STARTUP_SETTLED: std::time::Duration = std::time::Duration::from_secs(1);

/// Gives back the heap only start-up used (`footprint`).
async fn release_startup_footprint() {
    actix_web::rt::time::sleep(STARTUP_SETTLED).await;
    // Off the system thread the actors run on: trimming every arena takes a
    // few milliseconds.
    if let Err(e) = tokio::task::spawn_blocking(plinth::footprint::return_freed_heap).await {
        tracing::warn!(error = %e, "could not give back the heap only start-up used");
    }
}

async fn serve(config: Config) -> Result<(), Failure> {
    let listener = preflight(&config).await?;
    let public_url = config.public_url();
    let database = db::describe(&config.database_url);
    // Where uploaded files go: the S3 URL when storage is shared (it names a
    // bucket and prefix, never credentials), else the data directory.
    let files = match config.storage.url.as_deref() {
        Some(url) if url.starts_with("s3://") => url.to_string(),
        _ => config.data_dir.display().to_string(),
    };
    let app = Plinth::build(config).await?;
    let running = app.serve(listener, false)?;
    // Our own signal handling: /readyz turns 503 before the server stops.
    let on_signal = plinth::system::probes::stop_on_signal(running.state(), running.server.handle())
        .map_err(|e| Failure::new(Failure::OTHER, format!("cannot handle signals: {e}")))?;
    actix_web::rt::spawn(on_signal);
    let listen = format!("http://{}", running.addr);
    let mut banner = format!("\nPlinth {} listening on {listen}\n", env!("CARGO_PKG_VERSION"));
    banner += &format!("  API       {listen}/api/v1\n  Docs      {listen}/api-docs/\n");
    if public_url != listen {
        banner += &format!("  Links     {public_url}\n");
    }
    banner += &format!("  Database  {database}\n  Files     {files}\n");
    if let Some(metrics) = app.state.observability.metrics_listener() {
        banner += &format!("  Metrics   http://{metrics}/metrics\n");
    }
    if let Some(secret) = &app.generated_admin_key {
        banner += &format!(
            "\nFirst start: created a Master API key. It is shown only this once:\n\n    X-API-Key: {secret}\n"
        );
    }
    println!("{banner}\nReady. SIGTERM or Ctrl+C stops the server.");
    let webhooks = running.webhooks();
    actix_web::rt::spawn(release_startup_footprint());
    running.server.await.map_err(|e| Failure::new(Failure::OTHER, e.to_string()))?;
    tracing::info!("server stopped; flushing actors");
    RunningServer::drain(&webhooks).await;
    tracing::info!("stopped");
    // Everything durable is written. Tearing the runtime down would drop the
    // periodic passes still waiting (on SQLite's write lock, say) outside any
    // runtime, where their pooled connections cannot be returned and sqlx
    // panics: the caller exits instead, with success.
    Ok(())
}

async fn migrate(config: Config) -> Result<(), plinth::app::BoxError> {
    let conn = db::connect(&config.database_url, config.database_acquire_timeout()).await?;
    let applied = db::migrate(&conn).await?;
    println!("applied {applied} migrations");
    Ok(())
}

async fn create_key(
    config: Config,
    name: String,
    permission: String,
    site: Option<Uuid>,
) -> Result<(), plinth::app::BoxError> {
    let permission = KeyPermission::parse(&permission).ok_or("permission must be Read, Write, Admin or Master")?;
    if permission == KeyPermission::Master && site.is_some() {
        return Err("Master keys are never scoped to a site".into());
    }
    let conn = db::connect(&config.database_url, config.database_acquire_timeout()).await?;
    db::migrate(&conn).await?;
    let (key, secret) = insert_key(
        &conn,
        plinth_actors::Clock::now(&plinth_actors::SystemClock),
        NewKey::unlimited(&name, permission, site, "cli"),
        None,
    )
    .await?;
    println!(
        "created {} key {} ({})\n\n    X-API-Key: {secret}\n\nThe secret is shown only this once.",
        permission.as_str(),
        key.id,
        key.name
    );
    Ok(())
}
