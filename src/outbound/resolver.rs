//! The resolver of the outbound clients: the one place a destination's name
//! becomes addresses, so the addresses checked are the addresses connected to.
//! A name that resolves to any forbidden address is refused whole, as the
//! save-time check refuses it; a name rebinding between the two (a public
//! answer first, `127.0.0.1` or `169.254.169.254` next) is refused here.

use std::collections::HashSet;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use futures_util::future::BoxFuture;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::guard;

/// Turns a host name into addresses. The system's resolver in service; tests
/// put a stand-in here that answers what a hostile DNS server would.
pub trait Lookup: Send + Sync {
    fn lookup(&self, host: String) -> BoxFuture<'static, std::io::Result<Vec<IpAddr>>>;
}

/// The operating system's resolver (getaddrinfo on tokio's blocking pool).
pub struct SystemLookup;

impl Lookup for SystemLookup {
    fn lookup(&self, host: String) -> BoxFuture<'static, std::io::Result<Vec<IpAddr>>> {
        Box::pin(async move { Ok(tokio::net::lookup_host((host.as_str(), 0)).await?.map(|a| a.ip()).collect()) })
    }
}

/// Why the resolver refused a name; found again in reqwest's error chain to
/// tell the caller (see `super::refusal_of`).
#[derive(Debug)]
pub struct Blocked(pub guard::Refusal);

impl std::fmt::Display for Blocked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Blocked {}

/// Resolves through `lookup` and hands reqwest only allowed addresses. Names
/// in `exempt` (allowlisted hosts, an opted-in proxy) resolve anywhere; the
/// client that carries exemptions is used only for exactly allowlisted
/// `host:port` targets (see `super::Outbound::request`).
pub struct GuardedResolver {
    pub lookup: Arc<dyn Lookup>,
    pub exempt: HashSet<String>,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_ascii_lowercase();
        let exempt = self.exempt.contains(&host);
        let found = self.lookup.lookup(host.clone());
        Box::pin(async move {
            let addresses = found.await?;
            if exempt && !addresses.is_empty() {
                return Ok(addrs(addresses));
            }
            // Boxed as the error itself (not a box of a box), so `refusal_of` finds it.
            let blocked = |refusal| -> Box<dyn std::error::Error + Send + Sync> { Box::new(Blocked(refusal)) };
            guard::public_only(&host, &addresses).map_err(blocked)?;
            Ok(addrs(addresses))
        })
    }
}

/// Port 0: reqwest puts the URL's port in.
fn addrs(addresses: Vec<IpAddr>) -> Addrs {
    Box::new(addresses.into_iter().map(|ip| SocketAddr::new(ip, 0)))
}
