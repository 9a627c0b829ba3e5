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
