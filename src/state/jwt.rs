//! Bearer tokens from the identity provider: RS256 / ES256 verified against the
//! provider's JWKS (a file or a URL), with `iss` and `aud` checked. Keys are
//! cached by `kid`; an unknown `kid` triggers one refetch (at most every
//! `jwks_refetch_secs`, 30 s by default),
//! so key rotation at the provider needs no restart.
//!
//! A token whose signature was checked is remembered (by its SHA-256, never the
//! token itself) until it expires, so the signature is checked once per token,
//! not once per request. A remembered token is trusted only while the key that
//! signed it is still in the provider's key set and the app's clock is before
//! its `exp` (with the same 30 s leeway as the first check).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use dashmap::DashMap;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use tokio::sync::RwLock;

use crate::config::IdpConfig;
use crate::error::{ApiError, ErrorCode};

/// The claims Plinth reads from a token.
#[derive(Clone, Debug, Deserialize)]
pub struct Claims {
    pub sub: String,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub picture: Option<String>,
    #[serde(default)]
    pub iat: Option<i64>,
    pub exp: i64,
}

enum JwksSource {
    File(PathBuf),
    Url(String),
}

struct KeySet {
    keys: HashMap<String, (DecodingKey, Algorithm)>,
    fetched: Option<Instant>,
}

/// Seconds a token is still accepted after its `exp` (clock skew).
const LEEWAY_SECS: i64 = 30;

/// At most this many verified tokens are remembered; past it, expired ones go,
/// and if that is not enough, all of them.
const MAX_VERIFIED: usize = 10_000;
/// Fetching the JWKS, answer included.
const JWKS_TIMEOUT: Duration = Duration::from_secs(5);
/// A key set is a few KiB; nothing larger is read.
const MAX_JWKS_BYTES: usize = 1024 * 1024;

/// A token whose signature was checked.
struct Verified {
    claims: Claims,
    kid: String,
}

pub struct JwtVerifier {
    verified: DashMap<[u8; 32], Verified>,
    source: JwksSource,
    issuer: Option<String>,
    audience: Option<String>,
    refetch_every: Duration,
    http: reqwest::Client,
    key_set: RwLock<KeySet>,
}

impl JwtVerifier {
    /// `None` when no JWKS source is configured.
    pub fn from_config(idp: &IdpConfig) -> Option<Self> {
        let source = match (&idp.jwks_file, &idp.jwks_url) {
            (Some(path), _) => JwksSource::File(path.clone()),
            (None, Some(url)) => JwksSource::Url(url.clone()),
            (None, None) => return None,
        };
        Some(Self {
            verified: DashMap::new(),
            source,
            issuer: idp.issuer.clone(),
            audience: idp.audience.clone(),
            refetch_every: Duration::from_secs(idp.jwks_refetch_secs),
            http: crate::outbound::operator_client(JWKS_TIMEOUT),
            key_set: RwLock::new(KeySet { keys: HashMap::new(), fetched: None }),
        })
    }

    /// The token's claims when its signature, issuer, audience and expiry hold;
    /// `now` is the app's clock.
    pub async fn verify(&self, token: &str, now: DateTime<Utc>) -> Result<Claims, ApiError> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let remembered = self.verified.get(&digest).map(|v| (v.claims.clone(), v.kid.clone()));
        if let Some((claims, kid)) = remembered {
            let unexpired = claims.exp + LEEWAY_SECS > now.timestamp();
            if unexpired && self.key_set.read().await.keys.contains_key(&kid) {
                crate::observability::cache_hit(crate::observability::Cache::Jwt);
                return Ok(claims);
            }
            self.verified.remove(&digest);
        }
        crate::observability::cache_miss(crate::observability::Cache::Jwt);
        let (claims, kid) = self.check_signature(token).await?;
        // The app's clock decides expiry too, remembered or not.
        if claims.exp + LEEWAY_SECS <= now.timestamp() {
            return Err(ApiError::new(ErrorCode::AuthTokenInvalid, "the bearer token has expired"));
        }
        if self.verified.len() >= MAX_VERIFIED {
            self.verified.retain(|_, v| v.claims.exp + LEEWAY_SECS > now.timestamp());
            if self.verified.len() >= MAX_VERIFIED {
                self.verified.clear();
            }
        }
        self.verified.insert(digest, Verified { claims: claims.clone(), kid });
        Ok(claims)
    }

    /// The full check: header, key, signature and claims.
    async fn check_signature(&self, token: &str) -> Result<(Claims, String), ApiError> {
        let invalid = |detail: &str| ApiError::new(ErrorCode::AuthTokenInvalid, detail.to_string());
        let header = jsonwebtoken::decode_header(token).map_err(|_| invalid("the bearer token is malformed"))?;
        if !matches!(header.alg, Algorithm::RS256 | Algorithm::ES256) {
            return Err(invalid("the bearer token must be signed with RS256 or ES256"));
        }
        let kid = header.kid.unwrap_or_default();
        let (key, alg) =
            self.key_for(&kid).await?.ok_or_else(|| invalid("the bearer token was signed by an unknown key"))?;
        if alg != header.alg {
            return Err(invalid("the bearer token's algorithm does not match its key"));
        }

        let mut validation = Validation::new(alg);
        validation.leeway = LEEWAY_SECS.unsigned_abs();
        validation.set_required_spec_claims(&["exp", "sub"]);
        match &self.issuer {
            Some(iss) => validation.set_issuer(&[iss]),
            None => validation.iss = None,
        }
        match &self.audience {
            Some(aud) => validation.set_audience(&[aud]),
            None => validation.validate_aud = false,
        }
        let decoded = jsonwebtoken::decode::<Claims>(token, &key, &validation).map_err(|e| match e.kind() {
            ErrorKind::InvalidIssuer => {
                ApiError::new(ErrorCode::AuthTokenIssuer, "the bearer token was issued by another issuer")
            }
            ErrorKind::InvalidAudience => {
                ApiError::new(ErrorCode::AuthTokenAudience, "the bearer token is meant for another audience")
            }
            ErrorKind::ExpiredSignature => invalid("the bearer token has expired"),
            _ => invalid("the bearer token is invalid"),
        })?;
        Ok((decoded.claims, kid))
    }

    async fn key_for(&self, kid: &str) -> Result<Option<(DecodingKey, Algorithm)>, ApiError> {
        {
            let set = self.key_set.read().await;
            if let Some(found) = set.keys.get(kid) {
                return Ok(Some(found.clone()));
            }
            if set.fetched.is_some_and(|at| at.elapsed() < self.refetch_every) {
                return Ok(None);
            }
        }
        let mut set = self.key_set.write().await;
        // Another request may have refreshed while we waited for the lock.
        if set.fetched.is_none_or(|at| at.elapsed() >= self.refetch_every) {
            set.fetched = Some(Instant::now());
            match self.fetch().await {
                Ok(keys) => set.keys = keys,
                Err(e) => tracing::warn!(error = %e, "could not load the identity provider's JWKS"),
            }
        }
        Ok(set.keys.get(kid).cloned())
    }

    async fn fetch(&self) -> Result<HashMap<String, (DecodingKey, Algorithm)>, String> {
        let text = match &self.source {
            JwksSource::File(path) => {
                tokio::fs::read_to_string(path).await.map_err(|e| format!("{}: {e}", path.display()))?
            }
            JwksSource::Url(url) => {
                let deadline = tokio::time::Instant::now() + JWKS_TIMEOUT;
                let answer =
                    self.http.get(url).send().await.and_then(|r| r.error_for_status()).map_err(|e| e.to_string())?;
                let bytes =
                    crate::outbound::read_capped(answer, MAX_JWKS_BYTES, deadline).await.whole(MAX_JWKS_BYTES)?;
                String::from_utf8(bytes).map_err(|_| "the JWKS is not UTF-8".to_string())?
            }
        };
        let set: JwkSet = serde_json::from_str(&text).map_err(|e| format!("invalid JWKS: {e}"))?;
        let mut keys = HashMap::new();
        for jwk in &set.keys {
            let alg = match &jwk.algorithm {
                jsonwebtoken::jwk::AlgorithmParameters::RSA(_) => Algorithm::RS256,
                jsonwebtoken::jwk::AlgorithmParameters::EllipticCurve(_) => Algorithm::ES256,
                _ => continue,
            };
            if let Ok(key) = DecodingKey::from_jwk(jwk) {
                keys.insert(jwk.common.key_id.clone().unwrap_or_default(), (key, alg));
            }
        }
        Ok(keys)
    }
}
