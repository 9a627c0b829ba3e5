//! The portfolio module: CV entries (`/cv`), projects (`/projects`) and skills
//! (`/skills`), all on the content engine's shared endpoints (documented from
//! the blog ones), gated by the site's `module_portfolio_enabled`.

use actix_web::web::{self};
use actix_web::HttpResponse;
use plinth_entities::content_site;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

use crate::auth::Principal;
use crate::content::model::ContentResponse;
use crate::content::{http, read, ContentKind};
use crate::error::{ApiError, ApiResult};
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    // Before the shared `/skills/{id}` resources, so `by-slug` is not read as an id.
    crate::mount!(r, self => [get_skill_by_slug]);
    http::kind_routes(r, ContentKind::CvEntry, "cv");
    http::kind_routes(r, ContentKind::Project, "projects");
    http::kind_routes(r, ContentKind::Skill, "skills");
}

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
    let slug = slug.into_inner();
    // Slugs are unique per site; the first skill the caller may read answers.
    let candidates: Vec<Uuid> = content_site::Entity::find()
        .filter(content_site::Column::Kind.eq(ContentKind::Skill.as_str()))
        .filter(content_site::Column::Slug.eq(slug.as_str()))
        .order_by_asc(content_site::Column::ContentId)
        .all(&state.db)
        .await?
        .into_iter()
        .map(|row| row.content_id)
        .collect();
    let mut first_error = None;
    for id in candidates {
        match read::get(&state, &principal, ContentKind::Skill, id).await {
            Ok(skill) => return Ok(HttpResponse::Ok().json(skill)),
            Err(e) => first_error = first_error.or(Some(e)),
        }
    }
    Err(first_error.unwrap_or_else(|| ApiError::not_found("skill", &slug)))
}
