//! Calls to destinations a tenant chose: webhook endpoints, a site's AI
//! provider, a form's remote bot verifier, and any later call of that kind.
//! They all go through one [`Outbound`], which guarantees:
//!
//! - **The address checked is the address connected to.** Its clients resolve
//!   names with [`resolver::GuardedResolver`], which refuses a name that
//!   resolves to any private or reserved address at connect time, so a DNS
//!   answer that changes between the save-time check and the call (rebinding)
//!   reaches nothing. Address literals are checked before the call.
//! - **`PLINTH_SSRF_ALLOWLIST` exempts exact `host:port` pairs**: only a target
//!   whose host and port are both listed is sent through the client whose
//!   resolver lets that host resolve to private addresses.
//! - **Redirects are refused** (a redirect could lead anywhere), and proxy
//!   variables from the environment are ignored unless the operator sets
//!   `PLINTH_OUTBOUND_PROXY_FROM_ENV` (the proxy then connects, so it must do
//!   the egress filtering; Plinth still checks each target's DNS answer first).
//! - **Bounded answers**: callers read bodies with [`read_capped`], a cap and a
//!   deadline at once, and drop the connection at the cap. No response is
//!   decompressed (reqwest is built without gzip or brotli).
//!
//! Destinations the operator configured (the identity provider) are trusted
//! and use [`operator_client`]. A source rule (`source_rules.rs`) keeps every
//! other `reqwest` client builder out of the families.

pub mod guard;
pub mod resolver;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use reqwest::{Method, RequestBuilder};
use url::Url;

pub use guard::{is_forbidden, Refusal};
use resolver::{Blocked, GuardedResolver};
pub use resolver::{Lookup, SystemLookup};

/// How long connecting may take, for every outbound call.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// No outbound call lasts longer, whatever its own timeout says.
const LONGEST_CALL: Duration = Duration::from_secs(120);

/// The one client for untrusted destinations; cheap to clone.
#[derive(Clone)]
pub struct Outbound(Arc<Inner>);

struct Inner {
    /// Every target but the allowlisted ones: names resolve to public addresses only.
    strict: reqwest::Client,
    /// Exactly allowlisted `host:port` targets: their hosts may resolve anywhere.
    allowlisted: reqwest::Client,
    allowlist: Vec<String>,
    lookup: Arc<dyn Lookup>,
    /// The operator opted into proxies from the environment.
    via_proxy: bool,
}

impl Outbound {
    /// With the system's resolver.
    pub fn new(allowlist: &[String], proxy_from_env: bool) -> Result<Self, String> {
        Self::with_lookup(allowlist, proxy_from_env, Arc::new(SystemLookup))
    }

    /// With `lookup` turning names into addresses (a stand-in in tests).
    pub fn with_lookup(allowlist: &[String], proxy_from_env: bool, lookup: Arc<dyn Lookup>) -> Result<Self, String> {
        let proxies: HashSet<String> = if proxy_from_env { proxy_hosts_from_env() } else { HashSet::new() };
        let mut exempt = proxies.clone();
        exempt.extend(guard::allowlisted_hosts(allowlist));
        let strict = client(GuardedResolver { lookup: Arc::clone(&lookup), exempt: proxies }, proxy_from_env)?;
        let allowlisted = client(GuardedResolver { lookup: Arc::clone(&lookup), exempt }, proxy_from_env)?;
        Ok(Self(Arc::new(Inner {
            strict,
            allowlisted,
            allowlist: allowlist.to_vec(),
            lookup,
            via_proxy: proxy_from_env,
        })))
    }

    /// Checks a URL when it is saved, DNS included, for a refusal that names the
    /// reason. Calls are checked again when they connect.
    pub async fn check(&self, raw: &str) -> Result<Url, Refusal> {
        let target = guard::target(raw, &self.0.allowlist)?;
        if target.allowlisted || target.literal.is_some() {
            return Ok(target.url);
        }
        let addresses = self
            .0
            .lookup
            .lookup(target.host.clone())
            .await
            .map_err(|_| Refusal::Invalid(format!("the host {} does not resolve", target.host)))?;
        guard::public_only(&target.host, &addresses)?;
        Ok(target.url)
    }

    /// A request to `raw`. Its shape and an address literal are checked now; a
    /// name is checked by the resolver when the call connects (through an
    /// opted-in proxy, which resolves names itself, by [`Self::check`] now).
    pub async fn request(&self, method: Method, raw: &str) -> Result<RequestBuilder, Refusal> {
        let target = guard::target(raw, &self.0.allowlist)?;
        if self.0.via_proxy && !target.allowlisted {
            self.check(raw).await?;
        }
        let client = if target.allowlisted { &self.0.allowlisted } else { &self.0.strict };
        Ok(client.request(method, target.url))
    }
}

fn client(resolver: GuardedResolver, proxy_from_env: bool) -> Result<reqwest::Client, String> {
    let mut builder = reqwest::Client::builder()
        .dns_resolver(Arc::new(resolver))
        // A redirect is a failure: following it could reach a private address.
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(LONGEST_CALL)
        .user_agent(concat!("Plinth/", env!("CARGO_PKG_VERSION")));
    if !proxy_from_env {
        builder = builder.no_proxy();
    }
    builder.build().map_err(|e| format!("the outbound HTTP client could not be built: {e}"))
}

/// The hosts of the proxies reqwest would take from the environment: they are
/// the operator's, so they may be private.
fn proxy_hosts_from_env() -> HashSet<String> {
    ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .filter_map(|value| {
            let value = value.trim().to_string();
            let with_scheme = if value.contains("://") { value } else { format!("http://{value}") };
            Url::parse(&with_scheme).ok()?.host_str().map(|h| h.trim_matches(['[', ']']).to_ascii_lowercase())
        })
        .collect()
}

/// The resolver's refusal somewhere in a failed call's error chain.
pub fn refusal_of(error: &reqwest::Error) -> Option<&Refusal> {
    causes(error).find_map(|e| e.downcast_ref::<Blocked>()).map(|Blocked(refusal)| refusal)
}

/// What a failed call's error wraps, outermost first.
fn causes(error: &reqwest::Error) -> impl Iterator<Item = &(dyn std::error::Error + 'static)> {
    std::iter::successors(std::error::Error::source(error), |e| e.source())
}

/// The connection closed after the request went out and before any answer
/// came: what a pooled keep-alive connection does when the server's idle
/// timeout closes it just as a request is written on it. Nothing was answered,
/// so a request the receiver deduplicates (a webhook, by its `webhook-id`) may
/// be sent again at once on a new connection.
pub fn closed_before_answer(error: &reqwest::Error) -> bool {
    causes(error).any(|e| e.downcast_ref::<hyper::Error>().is_some_and(hyper::Error::is_incomplete_message))
}

/// A failed call in words that never name its URL (which may carry a key).
pub fn describe(error: &reqwest::Error) -> String {
    if let Some(refusal) = refusal_of(error) {
        format!("target refused: {refusal}")
    } else if error.is_timeout() {
        "timed out".into()
    } else if error.is_connect() {
        "connection failed".into()
    } else {
        "request failed".into()
    }
}

/// How reading an answer's body ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyEnd {
    /// The whole body, within the cap.
    Complete,
    /// More than the cap arrived; the rest was never read.
    CapReached,
    /// The deadline passed first.
    TimedOut,
    /// The connection failed midway.
    Failed,
}

/// An answer's body as far as [`read_capped`] read it.
pub struct CappedBody {
    pub bytes: Vec<u8>,
    pub end: BodyEnd,
}

/// At most `cap` bytes of an answer, read as they arrive until the body ends,
/// the cap is passed or `deadline` comes. The response is dropped after, so
/// an endpoint that answers gigabytes, or trickles, costs `cap` bytes and
/// the time left, and its connection is closed rather than drained.
pub async fn read_capped(mut response: reqwest::Response, cap: usize, deadline: tokio::time::Instant) -> CappedBody {
    let mut bytes = Vec::with_capacity(cap.min(64 * 1024));
    let end = loop {
        match tokio::time::timeout_at(deadline, response.chunk()).await {
            Err(_) => break BodyEnd::TimedOut,
            Ok(Err(e)) if e.is_timeout() => break BodyEnd::TimedOut,
            Ok(Err(_)) => break BodyEnd::Failed,
            Ok(Ok(None)) => break BodyEnd::Complete,
            Ok(Ok(Some(chunk))) => {
                let room = cap - bytes.len();
                if chunk.len() > room {
                    bytes.extend_from_slice(&chunk[..room]);
                    break BodyEnd::CapReached;
                }
                bytes.extend_from_slice(&chunk);
            }
        }
    };
    CappedBody { bytes, end }
}

impl CappedBody {
    /// The bytes when the whole body arrived, or why it did not.
    pub fn whole(self, cap: usize) -> Result<Vec<u8>, String> {
        match self.end {
            BodyEnd::Complete => Ok(self.bytes),
            BodyEnd::CapReached => Err(format!("the answer is over {cap} bytes")),
            BodyEnd::TimedOut => Err("the answer did not arrive in time".into()),
            BodyEnd::Failed => Err("the connection failed while answering".into()),
        }
    }

    /// The bytes as text: invalid UTF-8 replaced, a character the cap cut in
    /// two left out.
    pub fn text(&self) -> String {
        let whole = match std::str::from_utf8(&self.bytes) {
            Err(e) if e.error_len().is_none() => &self.bytes[..e.valid_up_to()],
            _ => &self.bytes[..],
        };
        String::from_utf8_lossy(whole).into_owned()
    }
}

/// A client for destinations the operator configured (the identity provider's
/// JWKS and user API): trusted, so private addresses, redirects and the
/// environment's proxy are allowed; bounded by `timeout`.
pub fn operator_client(timeout: Duration) -> reqwest::Client {
    reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(timeout)
        .user_agent(concat!("Plinth/", env!("CARGO_PKG_VERSION")))
        .build()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
