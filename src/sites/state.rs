//! A site's hot state, cached per site in the [`plinth_actors::SiteCache`].

use std::sync::Arc;

use plinth_entities::{locale, site, site_locale, site_setting};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

use super::locales::SiteLocaleResponse;
use super::settings::SiteSettings;
use crate::app::AppState;
use crate::error::{ApiError, ApiResult};

/// What hot reads of a site need: the site row, its effective settings and
/// its locales. Rebuilt after any write to them.
#[derive(Debug)]
pub struct SiteState {
    pub site: site::Model,
    pub settings: SiteSettings,
    pub locales: Vec<SiteLocaleResponse>,
}

impl SiteState {
    /// Three queries: site, settings, locales joined with their global records.
    pub async fn load<C: ConnectionTrait>(db: &C, site_id: Uuid) -> ApiResult<Option<SiteState>> {
        let Some(site) = site::Entity::find_by_id(site_id).filter(site::Column::DeletedAt.is_null()).one(db).await?
        else {
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
        Ok(Some(SiteState { site, settings, locales }))
    }

    pub fn default_locale(&self) -> Option<&SiteLocaleResponse> {
        self.locales.iter().find(|l| l.is_default)
    }
}

impl AppState {
    /// The cached state of a live (not deleted) site, or ENTITY_NOT_FOUND.
    pub async fn site_state(&self, site_id: Uuid) -> ApiResult<Arc<SiteState>> {
        self.sites
            .get_or_load(site_id, SiteState::load(&self.db, site_id))
            .await?
            .ok_or_else(|| ApiError::not_found("site", site_id))
    }

    /// After any write to a site's row, settings or locales.
    pub fn invalidate_site(&self, site_id: Uuid) {
        self.sites.invalidate(site_id);
    }
}
