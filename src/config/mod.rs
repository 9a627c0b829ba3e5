//! Layered configuration: the embedded `config/default.toml`, then an optional
//! file, then the environment names listed in docs/operating.md.

use std::net::SocketAddr;
use std::path::PathBuf;

use serde::Deserialize;

const EMBEDDED_DEFAULTS: &str = include_str!("../../config/default.toml");
/// The longest webhook retry schedule: attempts stay countable in a delivery's log.
const MAX_RETRY_DELAYS: usize = 20;

#[derive(Clone, Debug, Deserialize)]
pub struct Config {
    pub bind: String,
    pub database_url: String,
    /// How long a request waits for a pooled database connection before it is
    /// answered 503 (`PLINTH_DATABASE_ACQUIRE_TIMEOUT_MS`).
    #[serde(default = "default_database_acquire_timeout_ms")]
    pub database_acquire_timeout_ms: u64,
    pub data_dir: PathBuf,
    #[serde(default)]
    pub public_url: Option<String>,
    pub app_name: String,
    #[serde(default)]
    pub bootstrap_api_key: Option<String>,
    pub system_admins: Vec<String>,
    pub error_type_base: String,
    pub workers: usize,
    /// Period of the Janitor (scheduled publishing).
    pub janitor_every_secs: u64,
    pub ssrf_allowlist: Vec<String>,
    /// Outbound calls to tenant-chosen destinations go through the proxy the
    /// environment names (`HTTPS_PROXY`, …) only when this is set
    /// (`PLINTH_OUTBOUND_PROXY_FROM_ENV`); see `outbound`.
    #[serde(default)]
    pub outbound_proxy_from_env: bool,
    /// Origins a browser may call the API from (`https://admin.example.org`), or
    /// `*` for any origin (never with credentials). Empty: no CORS headers at all.
    #[serde(default)]
    pub cors_origins: Vec<String>,
    /// Reverse proxies whose `X-Forwarded-For` / `Forwarded` name the client
    /// (`crate::client_ip`). Empty: those headers are ignored and the TCP peer is
    /// the client.
    #[serde(default)]
    pub trusted_proxies: Vec<crate::client_ip::Cidr>,
    /// How long a request body may take to arrive once its headers are read;
    /// past it the request is answered 400 and the connection closed.
    #[serde(default = "default_body_timeout_secs")]
    pub body_timeout_secs: u64,
    pub webhooks: WebhookConfig,
    /// Live event streams (`GET /sites/{site_id}/events`).
    #[serde(default)]
    pub events: EventsConfig,
    /// Each site's share of what sites share (`[tenants]`).
    #[serde(default)]
    pub tenants: TenantsConfig,
    pub log: LogConfig,
    pub idp: IdpConfig,
    pub rate_limits: RateLimitConfig,
    pub sites: SitesConfig,
    pub media: MediaConfig,
    /// Server-side recovery key of private documents (`DOCUMENT_ENCRYPTION_KEY`).
    #[serde(default)]
    pub document_encryption_key: Option<String>,
    pub imprint: ImprintConfig,
    /// Where `/metrics` is served and the SIGTERM drain delay (see `system::metrics`).
    #[serde(default)]
    pub observability: ObservabilityConfig,
    /// Redis for limits shared by several instances (`PLINTH_REDIS_URL`).
    #[serde(default)]
    pub redis: RedisConfig,
    /// Where uploaded files live: local files (the default) or S3-compatible storage.
    #[serde(default)]
    pub storage: StorageConfig,
}

#[derive(Clone, Debug, Deserialize)]
pub struct WebhookConfig {
    pub retry_delays: Vec<u64>,
    pub retry_poll_secs: u64,
    pub flush_poll_secs: u64,
    pub flush_batch: u64,
    pub timeout_secs: u64,
    /// How long a delivery being sent is reserved for the instance sending it;
    /// longer than `timeout_secs`, so a slow attempt is never sent twice.
    pub claim_lease_secs: u64,
}

#[derive(Clone, Debug, Deserialize)]
pub struct LogConfig {
    pub filter: String,
    pub format: String,
}

#[derive(Clone, Debug, Deserialize)]
pub struct IdpConfig {
    pub jwks_url: Option<String>,
    pub jwks_file: Option<PathBuf>,
    pub issuer: Option<String>,
    pub audience: Option<String>,
    pub api_url: Option<String>,
    pub secret_key: Option<String>,
    pub publishable_key: Option<String>,
    /// Least time between two JWKS fetches triggered by unknown key ids.
    #[serde(default = "default_jwks_refetch_secs")]
    pub jwks_refetch_secs: u64,
}

fn default_database_acquire_timeout_ms() -> u64 {
    2000
}

fn default_body_timeout_secs() -> u64 {
    30
}

fn default_jwks_refetch_secs() -> u64 {
    30
}

#[derive(Clone, Debug, Deserialize)]
pub struct RateLimitConfig {
    pub auth_failures_per_minute: u32,
    pub auth_cooldown_secs: u64,
    pub default_key_per_second: u32,
    pub default_key_per_minute: u32,
    pub default_key_per_hour: u32,
    pub default_key_per_day: u32,
    pub usage_flush_secs: u64,
    /// Public form submissions one client address may make per minute (burst included).
    #[serde(default = "default_form_submissions_per_minute")]
    pub form_submissions_per_minute: u32,
    /// Visitor lookups, reads and deletes by reference code per address per minute.
    #[serde(default = "default_visitor_lookups_per_minute")]
    pub visitor_lookups_per_minute: u32,
}

fn default_form_submissions_per_minute() -> u32 {
    10
}

fn default_visitor_lookups_per_minute() -> u32 {
    30
}

/// What each tenant (site) is guaranteed of the pools all sites share; the
/// docs/operating.md, "Tenants", says how each is used.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct TenantsConfig {
    /// Webhook sends in flight at once, all sites together. A site below its
    /// fair share (this divided by the sites sending) is admitted past it.
    pub webhook_send_slots: u64,
    /// Sends in flight at once to one webhook endpoint.
    pub webhook_sends_per_endpoint: u64,
    /// Consecutive failed attempts that open an endpoint's circuit.
    pub circuit_failures: u64,
    /// How long an open circuit waits before one probe delivery is tried.
    pub circuit_cooldown_secs: u64,
    /// PostgreSQL: the share of the pool's connections (in percent) one
    /// site's writes may hold at once.
    pub write_share_percent: u64,
}

impl Default for TenantsConfig {
    fn default() -> Self {
        Self {
            webhook_send_slots: 256,
            webhook_sends_per_endpoint: 16,
            circuit_failures: 5,
            circuit_cooldown_secs: 60,
            write_share_percent: u64::from(crate::db::DEFAULT_WRITE_SHARE_PERCENT),
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct EventsConfig {
    /// How long events stay replayable for a client that reconnects with
    /// `Last-Event-ID`.
    pub replay_secs: u64,
    /// A comment line this often keeps idle streams (and proxies) open.
    pub heartbeat_secs: u64,
    /// Open streams per site and instance; more are refused with 503.
    pub subscribers_per_site: usize,
}

impl Default for EventsConfig {
    fn default() -> Self {
        Self { replay_secs: 900, heartbeat_secs: 15, subscribers_per_site: 64 }
    }
}

#[derive(Clone, Debug, Deserialize)]
pub struct SitesConfig {
    pub cache_idle_secs: u64,
    pub cache_max_age_secs: u64,
    /// Memory for built responses of authenticated reads; 0 turns the cache off.
    pub response_cache_bytes: u64,
    /// URLs per sitemap file before `sitemap.xml` becomes an index (at most
    /// 50,000, the sitemaps.org limit; fewer for long multilingual entries).
    #[serde(default = "default_sitemap_urls_per_file")]
    pub sitemap_urls_per_file: u64,
}

fn default_sitemap_urls_per_file() -> u64 {
    50_000
}

#[derive(Clone, Debug, Deserialize)]
pub struct MediaConfig {
    /// Bytes of uploaded files (originals) one site may keep; 0 = no quota.
    pub site_quota_bytes: u64,
    /// The most any upload may stream before its site is known.
    pub max_upload_bytes: u64,
    /// Image worker threads; 0 = one per core.
    pub pool_threads: usize,
    /// Image jobs that may wait beyond those running before uploads get 503.
    pub pool_queue: usize,
}

/// `[redis]`: without `url`, every limit is counted per instance.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct RedisConfig {
    pub url: Option<String>,
    /// When Redis does not answer: count per instance (true) or answer limited
    /// keys 503 SERVICE_UNAVAILABLE (false).
    pub fail_open: bool,
    /// Prefix of every key Plinth writes (several deployments on one Redis).
    pub key_prefix: String,
    /// The most one Redis call may take before the fallback applies.
    pub timeout_ms: u64,
}

impl Default for RedisConfig {
    fn default() -> Self {
        Self { url: None, fail_open: true, key_prefix: "plinth".into(), timeout_ms: 50 }
    }
}

impl RedisConfig {
    /// What the rate limiter needs to share limits, when a URL is set.
    pub fn shared_limits(&self) -> Option<plinth_actors::SharedLimitsOptions> {
        Some(plinth_actors::SharedLimitsOptions {
            url: self.url.clone()?,
            key_prefix: self.key_prefix.clone(),
            timeout: std::time::Duration::from_millis(self.timeout_ms.max(1)),
            fail_open: self.fail_open,
        })
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
pub struct ObservabilityConfig {
    /// Bearer token that opens `/metrics` on the main listener (`PLINTH_METRICS_TOKEN`).
    #[serde(default)]
    pub metrics_token: Option<String>,
    /// A separate listener for `/metrics` and the probes, without a token (`PLINTH_METRICS_ADDR`).
    #[serde(default)]
    pub metrics_addr: Option<String>,
    /// Seconds the server keeps serving, not ready, after SIGTERM (`PLINTH_DRAIN_DELAY_SECS`).
    #[serde(default)]
    pub drain_delay_secs: u64,
}

#[derive(Clone, Debug, Default, Deserialize)]
pub struct ImprintConfig {
    pub operator_name: Option<String>,
    pub address: Option<String>,
    pub email: Option<String>,
    pub vat: Option<String>,
}

/// `url` unset or `file://`: files under `data_dir/files`; `file:///path`: files
/// under that directory; `s3://bucket/prefix`: S3-compatible storage, configured
/// from the `AWS_*` environment as `object_store` reads it, with the fields below
/// taking precedence when set.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct StorageConfig {
    pub url: Option<String>,
    /// An S3-compatible endpoint other than AWS (`http://127.0.0.1:9000`).
    pub endpoint: Option<String>,
    pub region: Option<String>,
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<String>,
    /// Plain HTTP to the endpoint; unset: allowed exactly when the endpoint is `http://`.
    pub allow_http: Option<bool>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read configuration file {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("invalid configuration: {0}")]
    Invalid(String),
}

impl Config {
    /// The pool's acquire wait, at least 50 ms.
    pub fn database_acquire_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.database_acquire_timeout_ms.max(50))
    }

    /// Defaults, then the file (`PLINTH_CONFIG`, else `./config/plinth.toml` if it
    /// exists), then the process environment.
    pub fn load() -> Result<Self, ConfigError> {
        let file = std::env::var_os("PLINTH_CONFIG").map(PathBuf::from).or_else(|| {
            let local = PathBuf::from("config/plinth.toml");
            local.exists().then_some(local)
        });
        let overlay = match file {
            Some(path) => Some(std::fs::read_to_string(&path).map_err(|source| ConfigError::Read { path, source })?),
            None => None,
        };
        Self::from_sources(overlay.as_deref(), |name| std::env::var(name).ok())
    }

    /// The embedded defaults with no file and no environment: what tests start from.
    pub fn defaults() -> Result<Self, ConfigError> {
        Self::from_sources(None, |_| None)
    }

    pub fn from_sources(overlay_toml: Option<&str>, env: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let invalid = |e: toml::de::Error| ConfigError::Invalid(e.to_string());
        let mut merged: toml::Table = EMBEDDED_DEFAULTS.parse().map_err(invalid)?;
        if let Some(text) = overlay_toml {
            let overlay: toml::Table = text.parse().map_err(invalid)?;
            merge(&mut merged, overlay);
        }
        let mut config: Config = toml::Value::Table(merged).try_into().map_err(invalid)?;
        config.apply_env(env)?;
        Ok(config)
    }

    fn apply_env(&mut self, env: impl Fn(&str) -> Option<String>) -> Result<(), ConfigError> {
        let set = |target: &mut String, name: &str| {
            if let Some(v) = env(name) {
                *target = v;
            }
        };
        set(&mut self.bind, "PLINTH_BIND");
        set(&mut self.database_url, "PLINTH_DATABASE_URL");
        set(&mut self.app_name, "PLINTH_APP_NAME");
        set(&mut self.log.filter, "PLINTH_LOG");
        set(&mut self.log.format, "PLINTH_LOG_FORMAT");
        set(&mut self.error_type_base, "PLINTH_ERROR_TYPE_BASE");
        let opt = |target: &mut Option<String>, name: &str| {
            if let Some(v) = env(name) {
                *target = (!v.is_empty()).then_some(v);
            }
        };
        opt(&mut self.public_url, "PLINTH_PUBLIC_URL");
        opt(&mut self.document_encryption_key, "DOCUMENT_ENCRYPTION_KEY");
        opt(&mut self.bootstrap_api_key, "PLINTH_BOOTSTRAP_API_KEY");
        opt(&mut self.idp.jwks_url, "PLINTH_IDP_JWKS_URL");
        opt(&mut self.idp.issuer, "PLINTH_IDP_ISSUER");
        opt(&mut self.idp.audience, "PLINTH_IDP_AUDIENCE");
        opt(&mut self.idp.api_url, "PLINTH_IDP_API_URL");
        opt(&mut self.idp.secret_key, "PLINTH_IDP_SECRET_KEY");
        opt(&mut self.idp.publishable_key, "PLINTH_IDP_PUBLISHABLE_KEY");
        opt(&mut self.imprint.operator_name, "IMPRINT_OPERATOR_NAME");
        opt(&mut self.imprint.address, "IMPRINT_ADDRESS");
        opt(&mut self.imprint.email, "IMPRINT_EMAIL");
        opt(&mut self.imprint.vat, "IMPRINT_VAT");
        opt(&mut self.observability.metrics_token, "PLINTH_METRICS_TOKEN");
        opt(&mut self.observability.metrics_addr, "PLINTH_METRICS_ADDR");
        opt(&mut self.redis.url, "PLINTH_REDIS_URL");
        set(&mut self.redis.key_prefix, "PLINTH_REDIS_KEY_PREFIX");
        for (name, target) in [
            ("PLINTH_REDIS_FAIL_OPEN", &mut self.redis.fail_open),
            ("PLINTH_OUTBOUND_PROXY_FROM_ENV", &mut self.outbound_proxy_from_env),
        ] {
            if let Some(v) = env(name) {
                *target = match v.trim().to_ascii_lowercase().as_str() {
                    "true" | "1" | "yes" => true,
                    "false" | "0" | "no" => false,
                    _ => return Err(ConfigError::Invalid(format!("{name}={v} is not true or false"))),
                };
            }
        }
        opt(&mut self.storage.url, "PLINTH_STORAGE_URL");
        opt(&mut self.storage.endpoint, "PLINTH_S3_ENDPOINT");
        if let Some(v) = env("PLINTH_DATA_DIR") {
            self.data_dir = PathBuf::from(v);
        }
        if let Some(v) = env("PLINTH_IDP_JWKS_FILE") {
            self.idp.jwks_file = (!v.is_empty()).then(|| PathBuf::from(v));
        }
        if let Some(v) = env("PLINTH_SYSTEM_ADMINS") {
            self.system_admins = v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
        }
        if let Some(v) = env("PLINTH_SSRF_ALLOWLIST") {
            self.ssrf_allowlist = split_list(&v);
        }
        if let Some(v) = env("PLINTH_CORS_ORIGINS") {
            self.cors_origins = split_list(&v);
        }
        if let Some(v) = env("PLINTH_TRUSTED_PROXIES") {
            self.trusted_proxies = split_list(&v)
                .iter()
                .map(|c| {
                    crate::client_ip::Cidr::parse(c)
                        .map_err(|e| ConfigError::Invalid(format!("PLINTH_TRUSTED_PROXIES: {e}")))
                })
                .collect::<Result<_, _>>()?;
        }
        if let Some(v) = env("PLINTH_WEBHOOK_RETRY_DELAYS") {
            self.webhooks.retry_delays = split_list(&v)
                .iter()
                .map(|d| {
                    d.parse()
                        .map_err(|_| ConfigError::Invalid(format!("PLINTH_WEBHOOK_RETRY_DELAYS: '{d}' is not seconds")))
                })
                .collect::<Result<_, _>>()?;
        }
        for (name, target) in [
            ("PLINTH_WEBHOOK_RETRY_POLL_SECS", &mut self.webhooks.retry_poll_secs),
            ("PLINTH_WEBHOOK_FLUSH_POLL_SECS", &mut self.webhooks.flush_poll_secs),
            ("PLINTH_RESPONSE_CACHE_BYTES", &mut self.sites.response_cache_bytes),
            ("PLINTH_WEBHOOK_CLAIM_LEASE_SECS", &mut self.webhooks.claim_lease_secs),
            ("PLINTH_MEDIA_SITE_QUOTA_BYTES", &mut self.media.site_quota_bytes),
            ("PLINTH_BODY_TIMEOUT_SECS", &mut self.body_timeout_secs),
            ("PLINTH_DRAIN_DELAY_SECS", &mut self.observability.drain_delay_secs),
            ("PLINTH_REDIS_TIMEOUT_MS", &mut self.redis.timeout_ms),
            ("PLINTH_DATABASE_ACQUIRE_TIMEOUT_MS", &mut self.database_acquire_timeout_ms),
            ("PLINTH_WEBHOOK_SEND_SLOTS", &mut self.tenants.webhook_send_slots),
            ("PLINTH_WEBHOOK_SENDS_PER_ENDPOINT", &mut self.tenants.webhook_sends_per_endpoint),
            ("PLINTH_CIRCUIT_FAILURES", &mut self.tenants.circuit_failures),
            ("PLINTH_CIRCUIT_COOLDOWN_SECS", &mut self.tenants.circuit_cooldown_secs),
            ("PLINTH_WRITE_SHARE_PERCENT", &mut self.tenants.write_share_percent),
        ] {
            if let Some(v) = env(name) {
                *target = v.parse().map_err(|_| ConfigError::Invalid(format!("{name}={v} is not a number")))?;
            }
        }
        if let Some(v) = env("PLINTH_WORKERS") {
            self.workers =
                v.parse().map_err(|_| ConfigError::Invalid(format!("PLINTH_WORKERS={v} is not a number")))?;
        }
        self.bind_addr()?;
        self.check_cors_origins()?;
        if log_filter(&self.log.filter).is_none() {
            return Err(ConfigError::Invalid(format!(
                "log filter '{}' is not tracing directives such as info,plinth::webhooks=debug (PLINTH_LOG)",
                self.log.filter
            )));
        }
        self.check_retry_delays()?;
        if self.webhooks.claim_lease_secs <= self.webhooks.timeout_secs {
            return Err(ConfigError::Invalid(format!(
                "webhooks.claim_lease_secs ({}) must exceed webhooks.timeout_secs ({}): a slow attempt would be sent twice",
                self.webhooks.claim_lease_secs, self.webhooks.timeout_secs
            )));
        }
        Ok(())
    }

    /// The webhook retry schedule: the delays after the 1st, 2nd, … failed
    /// attempt, so its length decides the attempts (one more than delays).
    fn check_retry_delays(&self) -> Result<(), ConfigError> {
        let delays = &self.webhooks.retry_delays;
        let problem = if delays.is_empty() {
            "is empty: a delivery would get one attempt and no retry".to_string()
        } else if delays.len() > MAX_RETRY_DELAYS {
            format!("has {} delays, more than {MAX_RETRY_DELAYS}", delays.len())
        } else if delays.contains(&0) {
            "has a delay of 0 s".to_string()
        } else if delays.windows(2).any(|pair| pair[1] < pair[0]) {
            "shrinks: each delay must be at least the one before".to_string()
        } else {
            return Ok(());
        };
        Err(ConfigError::Invalid(format!(
            "webhooks.retry_delays {delays:?} {problem} (PLINTH_WEBHOOK_RETRY_DELAYS, in seconds, e.g. 300,1800,7200,43200,172800)"
        )))
    }

    /// Each CORS origin is `*` or `scheme://host[:port]`, as browsers send it.
    fn check_cors_origins(&self) -> Result<(), ConfigError> {
        for origin in self.cors_origins.iter().filter(|o| o.as_str() != "*") {
            let valid = url::Url::parse(origin).is_ok_and(|u| {
                matches!(u.scheme(), "http" | "https")
                    && u.host().is_some()
                    && u.path() == "/"
                    && u.query().is_none()
                    && u.username().is_empty()
            });
            if !valid {
                return Err(ConfigError::Invalid(format!(
                    "CORS origin '{origin}' is not '*' or scheme://host[:port] (PLINTH_CORS_ORIGINS)"
                )));
            }
        }
        Ok(())
    }

    pub fn bind_addr(&self) -> Result<SocketAddr, ConfigError> {
        self.bind.parse().map_err(|_| {
            ConfigError::Invalid(format!("bind address '{}' is not host:port (set PLINTH_BIND)", self.bind))
        })
    }

    /// The absolute base of links the API returns.
    pub fn public_url(&self) -> String {
        self.public_url.clone().unwrap_or_else(|| format!("http://{}", self.bind)).trim_end_matches('/').to_string()
    }

    pub fn is_sqlite(&self) -> bool {
        self.database_url.starts_with("sqlite:")
    }
}

/// `"a, b,,c"` → `["a", "b", "c"]`
fn split_list(raw: &str) -> Vec<String> {
    raw.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect()
}

fn merge(base: &mut toml::Table, overlay: toml::Table) {
    for (key, value) in overlay {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(key, v);
            }
        }
    }
}

/// `PLINTH_LOG` read as `target=level` directives (`info,plinth::webhooks=debug`),
/// `None` when it is not. `Targets`, not `EnvFilter`: the span and field
/// directives `EnvFilter` also takes are parsed with regexes compiled at
/// start, code and scratch memory an idle server does not need.
pub fn log_filter(directives: &str) -> Option<tracing_subscriber::filter::Targets> {
    directives.parse().ok()
}

#[cfg(test)]
mod tests;
