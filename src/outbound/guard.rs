//! The rules of where an outbound call may go: http(s) only, no credentials in
//! the URL, and never a private, loopback, link-local or otherwise reserved
//! address, unless the exact `host:port` is in `PLINTH_SSRF_ALLOWLIST`.
//! `Outbound::check` applies them when a URL is saved (a friendly 4xx); the
//! resolver of `Outbound` applies them again to the addresses it connects to.

use std::net::{IpAddr, Ipv4Addr};

use url::Url;

/// Addresses no outbound call may reach.
pub fn is_forbidden(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_forbidden_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_forbidden_v4(v4);
            }
            let segments = v6.segments();
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (segments[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
                || (segments[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
                || (segments[0] == 0 && segments[1] == 0 && segments[2] == 0 && segments[3] == 0 && segments[4] == 0 && segments[5] == 0) // IPv4-compatible ::a.b.c.d
                || (segments[0] == 0x64 && segments[1] == 0xff9b) // NAT64 64:ff9b::/96 reaches IPv4 space
        }
    }
}

fn is_forbidden_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || a == 0
        || (a == 100 && (64..=127).contains(&b)) // CGNAT 100.64.0.0/10
        || (a == 198 && (b == 18 || b == 19)) // benchmarking 198.18.0.0/15
        || a >= 240 // reserved
}

/// Why a URL is refused, for the problem detail.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    Invalid(String),
    Private(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Invalid(why) | Refusal::Private(why) => f.write_str(why),
        }
    }
}

/// A URL whose shape passed: its host (IPv6 without brackets), port, and
/// whether that exact pair is allowlisted.
pub struct Target {
    pub url: Url,
    pub host: String,
    pub port: u16,
    pub allowlisted: bool,
    /// The host is an address, not a name: nothing is resolved for it.
    pub literal: Option<IpAddr>,
}

fn host_port(url: &Url) -> Option<(String, Option<IpAddr>, u16)> {
    let (host, literal) = match url.host()? {
        url::Host::Domain(d) => (d.to_ascii_lowercase(), None),
        url::Host::Ipv4(v4) => (v4.to_string(), Some(IpAddr::V4(v4))),
        url::Host::Ipv6(v6) => (v6.to_string(), Some(IpAddr::V6(v6))),
    };
    Some((host, literal, url.port_or_known_default()?))
}

fn allowlisted(allowlist: &[String], host: &str, port: u16) -> bool {
    let candidates = [format!("{host}:{port}"), format!("[{host}]:{port}")];
    allowlist.iter().any(|entry| candidates.iter().any(|c| c.eq_ignore_ascii_case(entry.trim())))
}

/// The host names the allowlist exempts (on some port), lowercase and without
/// brackets: the resolver of allowlisted targets lets these resolve anywhere.
pub fn allowlisted_hosts(allowlist: &[String]) -> Vec<String> {
    allowlist
        .iter()
        .filter_map(|entry| entry.trim().rsplit_once(':').map(|(host, _)| host))
        .map(|host| host.trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase())
        .filter(|host| !host.is_empty())
        .collect()
}

/// Checks what can be checked without DNS: http(s), no credentials, a host,
/// and, for an address literal, that it is public or allowlisted.
pub fn target(raw: &str, allowlist: &[String]) -> Result<Target, Refusal> {
    let url = Url::parse(raw.trim()).map_err(|_| Refusal::Invalid("the URL is not valid".into()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Refusal::Invalid("the URL must use http or https".into()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Refusal::Invalid("the URL must not carry credentials".into()));
    }
    let (host, literal, port) = host_port(&url).ok_or_else(|| Refusal::Invalid("the URL has no host".into()))?;
    let allowlisted = allowlisted(allowlist, &host, port);
    if let Some(ip) = literal.filter(|ip| !allowlisted && is_forbidden(*ip)) {
        return Err(Refusal::Private(format!("{ip} is a private or reserved address")));
    }
    Ok(Target { url, host, port, allowlisted, literal })
}

/// Refuses `host` when any of the addresses it resolved to is forbidden.
pub fn public_only(host: &str, addresses: &[IpAddr]) -> Result<(), Refusal> {
    if addresses.is_empty() {
        return Err(Refusal::Invalid(format!("the host {host} does not resolve")));
    }
    match addresses.iter().find(|ip| is_forbidden(**ip)) {
        Some(bad) => Err(Refusal::Private(format!("{host} resolves to {bad}, a private or reserved address"))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
    }

    #[test]
    fn private_and_reserved_ranges_are_forbidden() {
        for bad in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fc00::1",
            "fd12::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "ff02::1",
        ] {
            assert!(is_forbidden(ip(bad)), "{bad}");
        }
        for good in ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "100.128.0.1"] {
            assert!(!is_forbidden(ip(good)), "{good}");
        }
    }

    #[test]
    fn urls_are_checked_and_allowlisted_exactly() {
        let private = |raw: &str, allow: &[String]| matches!(target(raw, allow), Err(Refusal::Private(_)));
        let invalid = |raw: &str| matches!(target(raw, &[]), Err(Refusal::Invalid(_)));
        assert!(private("http://127.0.0.1:9000/hook", &[]));
        assert!(target("http://127.0.0.1:9000/hook", &["127.0.0.1:9000".into()]).is_ok_and(|t| t.allowlisted));
        assert!(private("http://127.0.0.1:9001/hook", &["127.0.0.1:9000".into()]));
        assert!(private("http://[::1]:80/", &[]));
        assert!(target("http://[::1]:80/", &["[::1]:80".into()]).is_ok());
        // Other spellings of 127.0.0.1 are normalized by the URL parser first.
        assert!(private("http://2130706433/", &[]));
        assert!(private("http://0x7f.1/", &[]));
        assert!(invalid("ftp://example.org/"));
        assert!(invalid("http://user:pw@example.org/"));
        assert!(target("http://Example.ORG/", &[]).is_ok_and(|t| t.host == "example.org" && t.literal.is_none()));
        assert!(matches!(public_only("localhost", &[ip("127.0.0.1")]), Err(Refusal::Private(_))));
        assert!(matches!(public_only("nowhere", &[]), Err(Refusal::Invalid(_))));
        assert_eq!(allowlisted_hosts(&["Hooks.internal:8443".into(), "[::1]:80".into()]), ["hooks.internal", "::1"]);
    }
}
