//! Page endpoints: the content engine's shared endpoints for the `page` kind
//! (documented from the blog ones), lookup by route, and a page's sections one
//! by one (`sections`).

mod section_model;
mod sections;

use actix_web::web::{self};
use actix_web::HttpResponse;
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use crate::auth::Principal;
use crate::content::model::ContentResponse;
use crate::content::{access, http, ContentKind};
use crate::error::ApiResult;
use crate::routes::Routes;
use crate::state::AppState;

const PAGE: ContentKind = ContentKind::Page;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [get_page_by_route], sections => [list_page_sections, create_page_section,
        update_page_section, delete_page_section, reorder_page_sections, list_section_localizations,
        list_page_section_localizations, upsert_section_localization, delete_section_localization]);
    http::kind_routes(r, PAGE, "pages");
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RouteQuery {
    /// The page's public path, e.g. `/about/team`.
    pub route: String,
}

/// Find a page by route
///
/// Read role or higher on the site. Errors: ENTITY_NOT_FOUND, MODULE_NOT_ENABLED.
#[utoipa::path(
    get,
    path = "/sites/{site_id}/pages/by-route",
    tag = "Pages",
    params(("site_id" = Uuid, Path), RouteQuery),
    responses((status = 200, body = ContentResponse))
)]
pub async fn get_page_by_route(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<RouteQuery>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    access::site_read(&state, &principal, PAGE, site_id).await?;
    let page = access::readable_at_route(&state, &principal, PAGE, site_id, &query.route).await?;
    Ok(HttpResponse::Ok().json(page.response()))
}
