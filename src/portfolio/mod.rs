//! The portfolio module: CV entries (`/cv`), projects (`/projects`) and skills
//! (`/skills`), all on the content engine's shared endpoints (documented from
//! the blog ones), gated by the site's `module_portfolio_enabled`.

use actix_web::web::{self};
use actix_web::HttpResponse;

use crate::auth::Principal;
use crate::content::model::ContentResponse;
use crate::content::{access, http, ContentKind};
use crate::error::ApiResult;
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    // Before the shared `/skills/{id}` resources, so `by-slug` is not read as an id.
    crate::mount!(r, self => [get_skill_by_slug]);
    http::kind_routes(r, ContentKind::CvEntry, "cv");
    http::kind_routes(r, ContentKind::Project, "projects");
    http::kind_routes(r, ContentKind::Skill, "skills");
}

/// Find a skill by slug
///
/// Read role or higher on the skill's site. Errors: ENTITY_NOT_FOUND, MODULE_NOT_ENABLED.
#[utoipa::path(
    get,
    path = "/skills/by-slug/{slug}",
    operation_id = "get_skill_by_slug_any_site",
    tag = "Skills",
    params(("slug" = String, Path)),
    responses(
        (status = 200, body = ContentResponse, description = "The skill with this slug on a site the caller can read")
    )
)]
pub async fn get_skill_by_slug(
    state: web::Data<AppState>,
    principal: Principal,
    slug: web::Path<String>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok()
        .json(access::readable_by_slug(&state, &principal, ContentKind::Skill, &slug).await?.response()))
}
