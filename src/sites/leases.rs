//! A site's live edit leases (`crate::leases`; the items' own lease
//! endpoints are mounted with their kinds, `content::lease_http`).

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use crate::auth::{Capability, Principal};
use crate::error::ApiResult;
use crate::leases::LeaseResponse;
use crate::state::AppState;

/// List a site's live edit leases
///
/// Read role or higher on the site: who edits which item, until when, soonest to end first, for an admin that has
/// just opened (the site's event stream tells the changes after). Errors: AUTH_SITE_ACCESS_DENIED.
#[utoipa::path(
    get,
    path = "/sites/{site_id}/leases",
    tag = "Sites",
    params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<LeaseResponse>))
)]
pub async fn list_leases(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    // Leases end with time, not with a write.
    crate::state::responses::depends_on_time();
    Ok(HttpResponse::Ok().json(crate::leases::list(&state, site_id).await?))
}
