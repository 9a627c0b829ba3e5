//! The client's address: the TCP peer, or — only when the peer is a reverse
//! proxy the operator trusts (`trusted_proxies`, `PLINTH_TRUSTED_PROXIES`) —
//! the address that proxy says it served. Per-address limits (failed
//! authentications, document passwords, form submissions) and analytics key on
//! it; behind a proxy every peer is the proxy, so without this all clients would
//! share one address.
//!
//! `X-Forwarded-For` is read from the right: each proxy appends the address it
//! was reached from, so the rightmost entries were written by our proxies and
//! everything left of the first untrusted entry may be forged by the client.
//! The client is the rightmost entry that is not itself a trusted proxy. Without
//! `X-Forwarded-For`, the last `for=` of `Forwarded` (RFC 7239) is read the same
//! way. A peer that is not a trusted proxy is the client, whatever it sends.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use actix_web::http::header::{HeaderMap, FORWARDED, X_FORWARDED_FOR};
use serde::{Deserialize, Deserializer};

/// A network in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`); a bare address
/// is the network of that address alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    network: IpAddr,
    prefix: u8,
}

impl Cidr {
    pub fn parse(raw: &str) -> Result<Cidr, String> {
        let raw = raw.trim();
        let invalid = || format!("'{raw}' is not an address or a network in CIDR notation (10.0.0.0/8, ::1/128)");
        let (address, prefix) = match raw.split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (raw, None),
        };
        let network: IpAddr = address.parse().map_err(|_| invalid())?;
        let bits = if network.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(p) => p.parse::<u8>().ok().filter(|p| *p <= bits).ok_or_else(invalid)?,
            None => bits,
        };
        // `::ffff:10.0.0.0/104` is `10.0.0.0/8`: addresses are compared canonical.
        let mapped = match network {
            IpAddr::V6(v6) if prefix >= 96 => v6.to_ipv4_mapped(),
            _ => None,
        };
        Ok(match mapped {
            Some(v4) => Cidr { network: IpAddr::V4(v4), prefix: prefix - 96 },
            None => Cidr { network, prefix },
        })
    }

    pub fn contains(&self, address: IpAddr) -> bool {
        match (self.network, address.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(a)) => {
                masked(u128::from(net.to_bits()), u128::from(a.to_bits()), 32, self.prefix)
            }
            (IpAddr::V6(net), IpAddr::V6(a)) => masked(net.to_bits(), a.to_bits(), 128, self.prefix),
            _ => false,
        }
    }
}

/// Whether `a` and `b`, numbers of `width` bits, agree in their first `prefix` bits.
fn masked(a: u128, b: u128, width: u32, prefix: u8) -> bool {
    let shift = width - u32::from(prefix);
    shift >= width || (a >> shift) == (b >> shift)
}

impl<'de> Deserialize<'de> for Cidr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        Cidr::parse(&raw).map_err(serde::de::Error::custom)
    }
}

/// The client of a request that reached us from `peer`.
pub fn resolve(peer: IpAddr, headers: &HeaderMap, trusted: &[Cidr]) -> IpAddr {
    let peer = peer.to_canonical();
    let is_trusted = |a: IpAddr| trusted.iter().any(|c| c.contains(a));
    if trusted.is_empty() || !is_trusted(peer) {
        return peer;
    }
    let hops: Vec<Option<IpAddr>> = if headers.contains_key(X_FORWARDED_FOR) {
        headers
            .get_all(X_FORWARDED_FOR)
            .flat_map(|v| v.to_str().unwrap_or("?").split(','))
            .map(|entry| parse_node(entry.trim()))
            .collect()
    } else {
        headers
            .get_all(FORWARDED)
            .flat_map(|v| v.to_str().unwrap_or("for=?").split(','))
            .filter_map(forwarded_for)
            .map(|node| parse_node(&node))
            .collect()
    };
    // From the right: past our own proxies to the first address they did not
    // write for themselves. An entry that is no address (`unknown`, garbage a
    // client prepended) ends the walk at the last address known.
    let mut client = peer;
    for hop in hops.into_iter().rev() {
        match hop {
            Some(address) => {
                client = address;
                if !is_trusted(address) {
                    break;
                }
            }
            None => break,
        }
    }
    client
}

/// The `for=` node of one `Forwarded` element (`for=192.0.2.60;proto=https`).
fn forwarded_for(element: &str) -> Option<String> {
    element.split(';').find_map(|pair| {
        let (name, value) = pair.trim().split_once('=')?;
        name.trim().eq_ignore_ascii_case("for").then(|| value.trim().trim_matches('"').to_string())
    })
}

/// An address as proxies write it: `192.0.2.60`, `192.0.2.60:4711`, `2001:db8::1`,
/// `[2001:db8::1]:4711`.
fn parse_node(node: &str) -> Option<IpAddr> {
    if let Ok(address) = node.parse::<IpAddr>() {
        return Some(address.to_canonical());
    }
    if let Some(rest) = node.strip_prefix('[') {
        let (v6, _) = rest.split_once(']')?;
        return v6.parse::<Ipv6Addr>().ok().map(|a| IpAddr::V6(a).to_canonical());
    }
    let (v4, port) = node.rsplit_once(':')?;
    port.parse::<u16>().ok()?;
    v4.parse::<Ipv4Addr>().ok().map(IpAddr::V4)
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::HeaderValue;

    use super::*;

    fn ip(raw: &str) -> IpAddr {
        raw.parse().unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
    }

    fn nets(raw: &[&str]) -> Vec<Cidr> {
        raw.iter().filter_map(|r| Cidr::parse(r).ok()).collect()
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(actix_web::http::header::HeaderName::from_static(name), HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn cidrs_parse_and_contain() {
        let private = Cidr::parse("10.0.0.0/8");
        assert!(private.is_ok_and(|c| c.contains(ip("10.200.3.4")) && !c.contains(ip("11.0.0.1"))));
        assert!(Cidr::parse("127.0.0.1").is_ok_and(|c| c.contains(ip("127.0.0.1")) && !c.contains(ip("127.0.0.2"))));
        assert!(Cidr::parse("0.0.0.0/0").is_ok_and(|c| c.contains(ip("203.0.113.7")) && !c.contains(ip("::1"))));
        assert!(Cidr::parse("2001:db8::/32")
            .is_ok_and(|c| c.contains(ip("2001:db8:1::5")) && !c.contains(ip("2001:db9::1"))));
        assert!(Cidr::parse("::/0").is_ok_and(|c| c.contains(ip("::1"))));
        // An IPv4 client seen over an IPv6 socket is the IPv4 address.
        assert!(Cidr::parse("127.0.0.1/32").is_ok_and(|c| c.contains(ip("::ffff:127.0.0.1"))));
        assert!(Cidr::parse("::ffff:10.0.0.0/104").is_ok_and(|c| c.contains(ip("10.1.2.3"))));
        for bad in ["10.0.0.0/33", "::/129", "10.0.0/8", "proxy.local", "10.0.0.0/", ""] {
            assert!(Cidr::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn forwarded_headers_count_only_from_trusted_proxies() {
        let trusted = nets(&["10.0.0.0/8", "127.0.0.1/32"]);
        let xff = headers(&[("x-forwarded-for", "198.51.100.1, 203.0.113.7, 10.0.0.2")]);
        assert_eq!(resolve(ip("10.0.0.1"), &xff, &trusted), ip("203.0.113.7"), "rightmost untrusted entry");
        assert_eq!(resolve(ip("192.0.2.9"), &xff, &trusted), ip("192.0.2.9"), "an untrusted peer is the client");
        assert_eq!(resolve(ip("10.0.0.1"), &xff, &[]), ip("10.0.0.1"), "no trusted proxies: headers ignored");
        let all_ours = headers(&[("x-forwarded-for", "10.0.0.3, 10.0.0.2")]);
        assert_eq!(resolve(ip("10.0.0.1"), &all_ours, &trusted), ip("10.0.0.3"));
        let garbage = headers(&[("x-forwarded-for", "evil, 203.0.113.7")]);
        assert_eq!(resolve(ip("10.0.0.1"), &garbage, &trusted), ip("203.0.113.7"));
        let unknown = headers(&[("x-forwarded-for", "unknown, 10.0.0.2")]);
        assert_eq!(resolve(ip("10.0.0.1"), &unknown, &trusted), ip("10.0.0.2"));
        let two = headers(&[("x-forwarded-for", "203.0.113.7"), ("x-forwarded-for", "10.0.0.2")]);
        assert_eq!(resolve(ip("10.0.0.1"), &two, &trusted), ip("203.0.113.7"));
        let ported = headers(&[("x-forwarded-for", "203.0.113.7:5555")]);
        assert_eq!(resolve(ip("10.0.0.1"), &ported, &trusted), ip("203.0.113.7"));

        let forwarded = headers(&[("forwarded", "for=198.51.100.1, for=\"[2001:db8:cafe::17]:4711\";proto=https")]);
        assert_eq!(resolve(ip("127.0.0.1"), &forwarded, &trusted), ip("2001:db8:cafe::17"));
        let obfuscated = headers(&[("forwarded", "for=_hidden;by=10.0.0.1")]);
        assert_eq!(resolve(ip("127.0.0.1"), &obfuscated, &trusted), ip("127.0.0.1"));
        assert_eq!(resolve(ip("::ffff:127.0.0.1"), &HeaderMap::new(), &trusted), ip("127.0.0.1"));
    }
}
