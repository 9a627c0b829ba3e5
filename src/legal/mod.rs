//! Legal documents (imprint, privacy, terms, …): the content engine's shared
//! endpoints for the `legal` kind plus versions. Gated by `module_legal_enabled`;
//! publishing needs a title and a body.

use actix_web::web::{self};
use actix_web::HttpResponse;
use uuid::Uuid;

use crate::auth::Principal;
use crate::content::model::ContentResponse;
use crate::content::{copy, http, ContentKind};
use crate::error::{ApiResult, Problem};
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [create_legal_version]);
    http::kind_routes(r, ContentKind::Legal, "legal");
}

/// Create a new version of a legal document
///
/// Editor role or higher on the document's sites. The new version is a Draft copy. Errors: ENTITY_NOT_FOUND,
/// LEGAL_VERSION_SOURCE_DELETED, MODULE_NOT_ENABLED.
#[utoipa::path(
    post,
    path = "/legal/{id}/versions",
    tag = "Legal documents",
    params(("id" = Uuid, Path)),
    responses(
        (status = 201, body = ContentResponse, description = "A Draft of the next version: same title and text, `version` + 1, `previous_version_id`, slug `…-v{n}`"),
        (status = 404, body = Problem, description = "LEGAL_VERSION_SOURCE_DELETED when the source is in the trash")
    )
)]
pub async fn create_legal_version(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Created().json(copy::new_version(&state, &principal, ContentKind::Legal, id.into_inner()).await?))
}
