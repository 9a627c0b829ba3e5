//! Site settings endpoints: the effective settings, and partial updates of the
//! stored overrides.

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::service::settings as service;
use crate::auth::{Capability, Principal};
use crate::error::ApiResult;
use crate::state::AppState;

pub use crate::state::site_settings::{PreviewTemplate, RobotsRule, RobotsRuleGroup, SiteSettings};
pub use service::UpdateSiteSettings;

/// Show a site's settings
///
/// Admin role or higher on the site. Stored values merged with the defaults.
#[utoipa::path(get, path = "/sites/{site_id}/settings", tag = "Sites",
    params(("site_id" = Uuid, Path)),
    responses((status = 200, body = SiteSettings)))]
pub async fn get_settings(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    let site = state.site_state(site_id).await?;
    Ok(HttpResponse::Ok().json(&site.settings))
}

/// Change a site's settings
///
/// Admin role or higher on the site. Only the fields sent change; answers the full settings. Errors: VALIDATION_ERROR,
/// VALIDATION_INVALID_FORMAT, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(put, path = "/sites/{site_id}/settings", tag = "Sites",
    params(("site_id" = Uuid, Path)), request_body = UpdateSiteSettings,
    responses((status = 200, body = SiteSettings, description = "The full effective settings")))]
pub async fn update_settings(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<UpdateSiteSettings>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    let updated = service::update(&state, &principal.actor(), now, site_id, body.into_inner()).await?;
    Ok(HttpResponse::Ok().json(updated))
}

/// A site's settings as a leased row: one per site, leased under the site's
/// own id, so an admin opening the settings sees who else has them open.
pub struct SettingsOf(Uuid);

impl crate::leases::LeasedRow for SettingsOf {
    fn lease_type(&self) -> &'static str {
        "site_settings"
    }

    fn lease_id(&self) -> Uuid {
        self.0
    }

    fn lease_sites(&self) -> Vec<Uuid> {
        vec![self.0]
    }
}

/// The settings of `site_id`, once the caller may change them.
async fn changeable_settings(
    state: &AppState,
    principal: &Principal,
    site_id: Uuid,
    capability: Capability,
) -> ApiResult<SettingsOf> {
    principal.require(state, site_id, capability).await?;
    // A caller whose role reaches every site still needs a live one.
    state.site_state(site_id).await?;
    Ok(SettingsOf(site_id))
}

crate::row_lease_handlers!(
    SettingsOf,
    Capability::AdministerSite,
    find = changeable_settings,
    id = "site_id",
    who = "Admin role or higher on the site.",
    path = "/sites/{site_id}/settings/lease",
    tag = "Sites",
    take = take_settings_lease("Take or renew the edit lease of a site's settings"),
    release = release_settings_lease("Release the edit lease of a site's settings")
);
