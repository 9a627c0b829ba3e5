//! A site's hot state, cached per site in the [`plinth_actors::SiteCache`].

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::web::Bytes;
use chrono::{DateTime, Utc};
use dashmap::DashMap;

use plinth_entities::{locale, site, site_locale, site_member, site_setting};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::site_settings::SiteSettings;
use super::AppState;
use crate::error::{ApiError, ApiResult};
use crate::permissions::Role;

/// What hot reads of a site need: the site row, its effective settings, its
/// locales, its members' roles (so a bearer request needs no membership query),
/// and responses built from its published content (lists, feed). Dropped and
/// rebuilt after any write to any of them.
#[derive(Debug)]
pub struct SiteState {
    pub site: site::Model,
    pub settings: SiteSettings,
    pub locales: Vec<SiteLocaleResponse>,
    /// Identity-provider user id → role on this site.
    pub members: HashMap<String, Role>,
    pub public: PublicCache,
}

/// A built response body and its content type.
#[derive(Debug)]
pub struct CachedBody {
    pub content_type: &'static str,
    pub body: Bytes,
    /// A strong validator of `body` (quoted).
    pub etag: String,
}

impl CachedBody {
    pub fn new(content_type: &'static str, body: impl Into<Bytes>) -> Self {
        use sha2::Digest;
        let body = body.into();
        let etag = format!("\"{}\"", hex::encode(&sha2::Sha256::digest(&body)[..16]));
        Self { content_type, body, etag }
    }
}

/// Responses built from a site's published content, by key, each kept for at
/// most its time to live. Bounded: past [`PublicCache::MAX_ENTRIES`] it starts over.
#[derive(Debug, Default)]
pub struct PublicCache {
    entries: DashMap<String, (Instant, Arc<CachedBody>)>,
    /// Bumped by [`PublicCache::clear`]: a body built across a clear is not kept.
    generation: std::sync::atomic::AtomicU64,
    /// One build per key at a time.
    building: super::flights::SingleFlight,
}

impl PublicCache {
    const MAX_ENTRIES: usize = 256;

    pub async fn get_or_build<F>(&self, key: String, ttl: Duration, build: F) -> ApiResult<Arc<CachedBody>>
    where
        F: Future<Output = ApiResult<CachedBody>>,
    {
        if let Some(hit) = self.entries.get(&key) {
            if hit.0.elapsed() < ttl {
                crate::observability::cache_hit(crate::observability::Cache::Public);
                return Ok(Arc::clone(&hit.1));
            }
        }
        crate::observability::cache_miss(crate::observability::Cache::Public);
        // One build per key at a time; who waited reads what it built.
        let _turn = self.building.turn(&key).await;
        if let Some(hit) = self.entries.get(&key).filter(|hit| hit.0.elapsed() < ttl) {
            return Ok(Arc::clone(&hit.1));
        }
        let started = self.generation.load(std::sync::atomic::Ordering::Acquire);
        let built = Arc::new(build.await?);
        if self.entries.len() >= Self::MAX_ENTRIES {
            self.entries.clear();
        }
        // Content written while this was built: answer it, but do not keep it.
        if self.generation.load(std::sync::atomic::Ordering::Acquire) == started {
            self.entries.insert(key, (Instant::now(), Arc::clone(&built)));
        }
        Ok(built)
    }

    /// Drops every body; one being built now is not kept either.
    pub fn clear(&self) {
        self.generation.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        self.entries.clear();
    }
}

/// A locale as assigned to a site, with the global locale's fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct SiteLocaleResponse {
    /// The site.
    pub site_id: Uuid,
    /// The global locale.
    pub locale_id: Uuid,
    /// The site's default locale (exactly one is).
    pub is_default: bool,
    /// Offered on the site.
    pub is_active: bool,
    /// Bare: `de`, or empty for a locale served at the site's root.
    pub url_prefix: String,
    /// When it was added to the site.
    pub created_at: DateTime<Utc>,
    /// The locale's code (`de`, `pt-BR`, …).
    pub code: String,
    /// Its English name.
    pub name: String,
    /// Its name in itself.
    pub native_name: String,
    /// `ltr` or `rtl`.
    pub direction: String,
}

impl SiteLocaleResponse {
    pub fn new(assignment: &site_locale::Model, global: &locale::Model) -> Self {
        Self {
            site_id: assignment.site_id,
            locale_id: assignment.locale_id,
            is_default: assignment.is_default,
            is_active: assignment.is_active,
            url_prefix: assignment.url_prefix.clone(),
            created_at: assignment.created_at,
            code: global.code.clone(),
            name: global.name.clone(),
            native_name: global.native_name.clone(),
            direction: global.direction.clone(),
        }
    }
}

impl SiteState {
    /// Four queries: site, settings, locales joined with their global records,
    /// members.
    pub async fn load<C: ConnectionTrait>(db: &C, site_id: Uuid) -> ApiResult<Option<SiteState>> {
        // A site being imported is not there until it is complete.
        let live = site::Entity::find_by_id(site_id)
            .filter(site::Column::DeletedAt.is_null())
            .filter(site::Column::ImportLeaseUntil.is_null());
        let Some(site) = live.one(db).await? else {
            return Ok(None);
        };
        let overrides = site_setting::Entity::find_by_id(site_id).one(db).await?.map(|s| s.overrides);
        let settings = SiteSettings::effective(overrides.as_ref())?;
        let locales = site_locale::Entity::find()
            .filter(site_locale::Column::SiteId.eq(site_id))
            .order_by_desc(site_locale::Column::IsDefault)
            .order_by_asc(site_locale::Column::CreatedAt)
            .find_also_related(locale::Entity)
            .all(db)
            .await?
            .into_iter()
            .filter_map(|(assignment, global)| global.map(|g| SiteLocaleResponse::new(&assignment, &g)))
            .collect();
        let members = site_member::Entity::find()
            .filter(site_member::Column::SiteId.eq(site_id))
            .all(db)
            .await?
            .into_iter()
            .map(|m| (m.idp_user_id, m.role))
            .collect();
        Ok(Some(SiteState { site, settings, locales, members, public: PublicCache::default() }))
    }

    pub fn default_locale(&self) -> Option<&SiteLocaleResponse> {
        self.locales.iter().find(|l| l.is_default)
    }
}

/// Slugs and domains remembered at most; past it the map starts over. Each
/// site takes up to two (its slug, its domain), and an entry is ~100 bytes:
/// 100,000 (~10 MB) keep finding a site flat to 50,000 sites, where 10,000
/// made lookups by slug 1.65× dearer at 10,000 sites (`cargo bench --bench tenants`).
const MAX_SLUGS: usize = 100_000;

impl AppState {
    /// The live site with this slug, without a query once the slug is known:
    /// public files are read by slug on every request. A remembered slug is
    /// checked against the cached site (which writes invalidate), so a renamed
    /// or deleted site is looked up again.
    pub async fn live_site_by_slug(&self, slug: &str) -> ApiResult<Arc<SiteState>> {
        if let Some(id) = self.site_slugs.get(slug).map(|e| *e) {
            if let Ok(site) = self.site_state(id).await {
                if site.site.slug == slug && site.site.deleted_at.is_none() {
                    return Ok(site);
                }
            }
            self.site_slugs.remove(slug);
        }
        let found = site::Entity::find()
            .filter(site::Column::Slug.eq(slug))
            .filter(site::Column::DeletedAt.is_null())
            .filter(site::Column::ImportLeaseUntil.is_null())
            .one(&self.db)
            .await?
            .ok_or_else(|| ApiError::not_found("site", slug))?;
        if self.site_slugs.len() >= MAX_SLUGS {
            self.site_slugs.clear();
        }
        self.site_slugs.insert(slug.to_string(), found.id);
        self.site_state(found.id).await
    }

    /// The live site a public request names in `X-Site-Domain`: the host of its
    /// `base_url` (`example.org`, any letter case, a port ignored) or its slug.
    /// Remembered like slugs (under `@host`), checked against the cached site.
    pub async fn live_site_by_domain(&self, domain: &str) -> ApiResult<Arc<SiteState>> {
        let host = domain.trim().trim_end_matches('.').to_ascii_lowercase();
        let host =
            host.rsplit_once(':').filter(|(_, port)| port.parse::<u16>().is_ok()).map_or(host.as_str(), |(h, _)| h);
        let host_of = |site: &site::Model| {
            site.base_url
                .as_deref()
                .and_then(|u| url::Url::parse(u).ok())
                .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
        };
        let key = format!("@{host}");
        if let Some(id) = self.site_slugs.get(&key).map(|e| *e) {
            if let Ok(site) = self.site_state(id).await {
                if host_of(&site.site).as_deref() == Some(host) {
                    return Ok(site);
                }
            }
            self.site_slugs.remove(&key);
        }
        // Candidates by a cheap text match, then the exact host check.
        let found = site::Entity::find()
            .filter(site::Column::BaseUrl.contains(host))
            .filter(site::Column::DeletedAt.is_null())
            .filter(site::Column::ImportLeaseUntil.is_null())
            .all(&self.db)
            .await?
            .into_iter()
            .find(|s| host_of(s).as_deref() == Some(host));
        let Some(found) = found else {
            return self.live_site_by_slug(host).await;
        };
        if self.site_slugs.len() >= MAX_SLUGS {
            self.site_slugs.clear();
        }
        self.site_slugs.insert(key, found.id);
        self.site_state(found.id).await
    }

    /// The cached state of a live (not deleted) site, or ENTITY_NOT_FOUND.
    pub async fn site_state(&self, site_id: Uuid) -> ApiResult<Arc<SiteState>> {
        crate::observability::cache_lookup(crate::observability::Cache::Site, self.sites.get(site_id).is_some());
        self.sites
            .get_or_load(site_id, SiteState::load(&self.db, site_id))
            .await?
            .ok_or_else(|| ApiError::not_found("site", site_id))
    }
}
