use super::*;

#[test]
fn defaults_match_the_operating_contract() -> Result<(), ConfigError> {
    let c = Config::defaults()?;
    assert_eq!(c.bind, "127.0.0.1:8080");
    assert_eq!(c.database_url, "sqlite://./data/plinth.db?mode=rwc");
    assert_eq!(c.public_url(), "http://127.0.0.1:8080");
    assert_eq!(c.app_name, "Plinth");
    Ok(())
}

#[test]
fn file_then_env_override() -> Result<(), ConfigError> {
    let c =
        Config::from_sources(
            Some("app_name = \"FromFile\"\n[rate_limits]\nauth_cooldown_secs = 7\n"),
            |name| match name {
                "PLINTH_BIND" => Some("0.0.0.0:9000".into()),
                "PLINTH_SYSTEM_ADMINS" => Some("user_a, user_b,".into()),
                "IMPRINT_EMAIL" => Some("ops@example.org".into()),
                "PLINTH_WEBHOOK_RETRY_DELAYS" => Some("1,2,3".into()),
                "PLINTH_SSRF_ALLOWLIST" => Some("127.0.0.1:9000".into()),
                "PLINTH_CORS_ORIGINS" => Some("https://admin.example.org, http://localhost:5173".into()),
                "PLINTH_TRUSTED_PROXIES" => Some("10.0.0.0/8, ::1".into()),
                "PLINTH_BODY_TIMEOUT_SECS" => Some("7".into()),
                _ => None,
            },
        )?;
    assert_eq!(c.app_name, "FromFile");
    assert_eq!(c.rate_limits.auth_cooldown_secs, 7);
    assert_eq!(c.rate_limits.auth_failures_per_minute, 20);
    assert_eq!(c.bind, "0.0.0.0:9000");
    assert_eq!(c.system_admins, vec!["user_a", "user_b"]);
    assert_eq!(c.imprint.email.as_deref(), Some("ops@example.org"));
    assert_eq!(c.webhooks.retry_delays, [1, 2, 3]);
    assert_eq!(c.webhooks.retry_poll_secs, 15);
    assert_eq!(c.ssrf_allowlist, ["127.0.0.1:9000"]);
    assert_eq!(c.cors_origins, ["https://admin.example.org", "http://localhost:5173"]);
    let ip = |raw: &str| raw.parse::<std::net::IpAddr>().unwrap_or(std::net::Ipv4Addr::UNSPECIFIED.into());
    assert_eq!(c.trusted_proxies.len(), 2);
    assert!(c.trusted_proxies[0].contains(ip("10.1.2.3")) && c.trusted_proxies[1].contains(ip("::1")));
    assert_eq!(c.body_timeout_secs, 7);
    assert!(Config::defaults()?.trusted_proxies.is_empty());
    assert_eq!(Config::defaults()?.body_timeout_secs, 30);
    let bad = Config::from_sources(None, |n| (n == "PLINTH_TRUSTED_PROXIES").then(|| "10.0.0.0/40".into()));
    assert!(bad.is_err());
    let file = Config::from_sources(Some("trusted_proxies = [\"127.0.0.1/32\"]\n"), |_| None)?;
    assert!(file.trusted_proxies[0].contains(ip("127.0.0.1")));
    Ok(())
}

#[test]
fn cors_origins_must_be_origins() {
    let with = |v: &'static str| Config::from_sources(None, move |n| (n == "PLINTH_CORS_ORIGINS").then(|| v.into()));
    assert!(with("*").is_ok());
    assert!(with("https://admin.example.org:8443").is_ok());
    assert!(with("admin.example.org").is_err());
    assert!(with("https://admin.example.org/app").is_err());
}

#[test]
fn the_retry_schedule_is_a_validated_list() {
    let with = |v: String| Config::from_sources(None, move |n| (n == "PLINTH_WEBHOOK_RETRY_DELAYS").then(|| v.clone()));
    assert!(with("60,600,6000,60000,600000,604800".into()).is_ok(), "a 7th attempt is configuration only");
    let too_long = vec!["60"; 21].join(",");
    for (bad, named) in [(",", "is empty"), ("60,0", "0 s"), ("600,60", "shrinks"), (too_long.as_str(), "more than 20")]
    {
        let refused = with(bad.to_string()).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(refused.contains(named) && refused.contains("PLINTH_WEBHOOK_RETRY_DELAYS"), "{bad}: {refused}");
    }
}

#[test]
fn bad_bind_is_rejected() {
    let r = Config::from_sources(None, |n| (n == "PLINTH_BIND").then(|| "nope".to_string()));
    assert!(r.is_err());
}
