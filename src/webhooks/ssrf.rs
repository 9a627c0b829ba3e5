//! Webhook targets must not reach private networks: checked when a webhook is
//! saved and again before every attempt (DNS answers change). Only exact
//! `host:port` pairs in `PLINTH_SSRF_ALLOWLIST` are exempt.

use std::net::{IpAddr, Ipv4Addr};

use url::Url;

/// Addresses a webhook may never target.
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

fn host_port(url: &Url) -> Option<(String, u16)> {
    let host = match url.host()? {
        url::Host::Domain(d) => d.to_string(),
        url::Host::Ipv4(v4) => v4.to_string(),
        url::Host::Ipv6(v6) => v6.to_string(),
    };
    Some((host, url.port_or_known_default()?))
}

fn allowlisted(allowlist: &[String], host: &str, port: u16) -> bool {
    let candidates = [format!("{host}:{port}"), format!("[{host}]:{port}")];
    allowlist.iter().any(|entry| candidates.iter().any(|c| c.eq_ignore_ascii_case(entry)))
}

/// Parses and checks a target: http(s), no credentials, and every address the
/// host resolves to is public (unless the exact host:port is allowlisted).
pub async fn check(raw: &str, allowlist: &[String]) -> Result<Url, Refusal> {
    let url = Url::parse(raw.trim()).map_err(|_| Refusal::Invalid("the URL is not valid".into()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Refusal::Invalid("the URL must use http or https".into()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Refusal::Invalid("the URL must not carry credentials".into()));
    }
    let (host, port) = host_port(&url).ok_or_else(|| Refusal::Invalid("the URL has no host".into()))?;
    if allowlisted(allowlist, &host, port) {
        return Ok(url);
    }
    let addresses: Vec<IpAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![ip],
        Err(_) => tokio::net::lookup_host((host.as_str(), port))
            .await
            .map_err(|_| Refusal::Invalid(format!("the host {host} does not resolve")))?
            .map(|a| a.ip())
            .collect(),
    };
    if addresses.is_empty() {
        return Err(Refusal::Invalid(format!("the host {host} does not resolve")));
    }
    if let Some(bad) = addresses.iter().find(|ip| is_forbidden(**ip)) {
        return Err(Refusal::Private(format!("{host} resolves to {bad}, a private or reserved address")));
    }
    Ok(url)
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

    #[tokio::test]
    async fn urls_are_checked_and_allowlisted_exactly() {
        assert!(matches!(check("http://127.0.0.1:9000/hook", &[]).await, Err(Refusal::Private(_))));
        assert!(check("http://127.0.0.1:9000/hook", &["127.0.0.1:9000".into()]).await.is_ok());
        assert!(matches!(
            check("http://127.0.0.1:9001/hook", &["127.0.0.1:9000".into()]).await,
            Err(Refusal::Private(_))
        ));
        assert!(matches!(check("http://[::1]:80/", &[]).await, Err(Refusal::Private(_))));
        assert!(matches!(check("http://localhost:8080/", &[]).await, Err(Refusal::Private(_))));
        assert!(matches!(check("ftp://example.org/", &[]).await, Err(Refusal::Invalid(_))));
        assert!(matches!(check("http://user:pw@example.org/", &[]).await, Err(Refusal::Invalid(_))));
    }
}
