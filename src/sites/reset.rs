//! `POST /sites/{id}/reset-content`: everything editorial of a site goes to the
//! trash in one transaction; the site row, settings, members and locales stay.

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::service::reset::{self as service, ResetCounts};
use crate::auth::{Capability, Principal};
use crate::error::ApiResult;
use crate::state::AppState;
use crate::trash_source::TrashSources;

/// Delete all of a site's content
///
/// Owner role on the site. Answers the counts of what was deleted.
#[utoipa::path(
    post,
    path = "/sites/{id}/reset-content",
    tag = "Sites",
    params(("id" = Uuid, Path)),
    responses(
        (status = 200, body = ResetCounts, description = "Everything soft-deleted (restorable from the trash); site, settings, members and locales kept")
    )
)]
pub async fn reset_content(
    state: web::Data<AppState>,
    sources: web::Data<TrashSources>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let site_id = id.into_inner();
    let site = principal.require(&state, site_id, Capability::OwnSite).await?;
    let counts = service::reset_content(&state, &sources, &site, now).await?;
    Ok(HttpResponse::Ok().json(counts))
}
