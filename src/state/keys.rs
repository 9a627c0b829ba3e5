//! API key secrets and the in-memory key cache that keeps the database off the
//! request path for known keys.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use chrono::{DateTime, Utc};
use dashmap::DashMap;
use plinth_actors::KeyLimits;
use plinth_entities::api_key;
use rand::RngCore;
use sea_orm::{ColumnTrait, DatabaseConnection, DbErr, EntityTrait, QueryFilter};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::config::RateLimitConfig;
use crate::permissions::KeyPermission;

/// Prefix of every generated secret, so leaked keys are easy to scan for.
pub const KEY_PREFIX: &str = "plk_";

/// What authentication needs to know about a key.
#[derive(Clone, Debug)]
pub struct ApiKeyRecord {
    pub id: Uuid,
    pub name: String,
    pub permission: KeyPermission,
    pub site_id: Option<Uuid>,
    pub limits: KeyLimits,
    /// From this moment the key no longer authenticates.
    pub expires_at: Option<DateTime<Utc>>,
}

impl ApiKeyRecord {
    pub fn from_model(model: &api_key::Model, defaults: &RateLimitConfig) -> Option<Self> {
        let limit = |own: Option<i32>, default: u32| {
            own.and_then(|v| u32::try_from(v).ok()).or(Some(default)).and_then(NonZeroU32::new)
        };
        Some(Self {
            id: model.id,
            name: model.name.clone(),
            permission: model.permission,
            site_id: model.site_id,
            expires_at: model.expires_at,
            limits: KeyLimits {
                per_second: limit(model.rate_limit_per_second, defaults.default_key_per_second),
                per_minute: limit(model.rate_limit_per_minute, defaults.default_key_per_minute),
                per_hour: limit(model.rate_limit_per_hour, defaults.default_key_per_hour),
                per_day: limit(model.rate_limit_per_day, defaults.default_key_per_day),
            },
        })
    }
}

/// A fresh secret: `plk_` and 32 random bytes, URL-safe base64.
pub fn generate_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("{KEY_PREFIX}{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

pub fn hash_secret(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// The first characters of a secret, stored to tell keys apart in listings.
pub fn display_prefix(secret: &str) -> String {
    secret.chars().take(KEY_PREFIX.len() + 6).collect()
}

struct Cached {
    record: Arc<ApiKeyRecord>,
    loaded: Instant,
}

/// Known keys by a tag of their secret. Entries are re-read after `ttl`, so a
/// key revoked on another instance stops working within that time; on this
/// instance a revocation takes effect at once.
///
/// The tag is a 128-bit keyed hash (two SipHash instances with keys drawn at
/// start), not the SHA-256 the database stores: a cached request then costs no
/// SHA-256, the secret itself is never held, and without the process's random
/// keys nobody can craft a secret that collides with a cached one.
pub struct KeyStore {
    by_tag: DashMap<u128, Cached>,
    tag_keys: (std::hash::RandomState, std::hash::RandomState),
    ttl: Duration,
    defaults: RateLimitConfig,
}

impl KeyStore {
    pub fn new(ttl: Duration, defaults: RateLimitConfig) -> Self {
        let tag_keys = (std::hash::RandomState::new(), std::hash::RandomState::new());
        Self { by_tag: DashMap::new(), tag_keys, ttl, defaults }
    }

    fn tag(&self, secret: &str) -> u128 {
        use std::hash::BuildHasher;
        (u128::from(self.tag_keys.0.hash_one(secret)) << 64) | u128::from(self.tag_keys.1.hash_one(secret))
    }

    /// The active key with this secret at `now`, or `None` (unknown, revoked,
    /// blocked or expired). A revocation or block is seen when the cached entry
    /// is forgotten (at once, on every instance: `AppState::forget_key`); an
    /// expiry at the moment it passes, cached or not.
    pub async fn authenticate(
        &self,
        db: &DatabaseConnection,
        secret: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Arc<ApiKeyRecord>>, DbErr> {
        let live = |record: &Arc<ApiKeyRecord>| record.expires_at.is_none_or(|at| now < at);
        let tag = self.tag(secret);
        if let Some(hit) = self.by_tag.get(&tag) {
            if hit.loaded.elapsed() < self.ttl {
                crate::observability::cache_hit(crate::observability::Cache::Keys);
                return Ok(Some(Arc::clone(&hit.record)).filter(live));
            }
        }
        crate::observability::cache_miss(crate::observability::Cache::Keys);
        let hash = hash_secret(secret);
        let model = api_key::Entity::find()
            .filter(api_key::Column::KeyHash.eq(hash.as_str()))
            .filter(api_key::Column::RevokedAt.is_null())
            .filter(api_key::Column::BlockedAt.is_null())
            .one(db)
            .await?;
        let Some(record) = model.as_ref().and_then(|m| ApiKeyRecord::from_model(m, &self.defaults)) else {
            self.by_tag.remove(&tag);
            return Ok(None);
        };
        let record = Arc::new(record);
        self.by_tag.insert(tag, Cached { record: Arc::clone(&record), loaded: Instant::now() });
        Ok(Some(record).filter(live))
    }

    /// Forgets a key at once (revoked or changed).
    pub fn forget(&self, key_id: Uuid) {
        self.by_tag.retain(|_, cached| cached.record.id != key_id);
    }

    /// Forgets every key (their next use reads the database).
    pub fn forget_all(&self) {
        self.by_tag.clear();
    }
}
