//! Legal documents (imprint, privacy, terms, …): the content engine's shared
//! endpoints for the `legal` kind plus versions. Gated by `module_legal_enabled`;
//! publishing needs a title and a body. Also created at the origin service's
//! `POST /sites/{site_id}/legal`, its `cookie_name` read as the title; its
//! consent groups and items one by one in `consent`.

mod consent;

use actix_web::web::{self};
use actix_web::HttpResponse;
use uuid::Uuid;

use crate::auth::{Capability, Principal};
use crate::content::model::{ContentResponse, CreateContent};
use crate::content::{access, copy, http, write, ContentKind};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError, Problem};
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, consent => [get_cookie_consent, list_legal_groups, create_legal_group, update_legal_group,
        delete_legal_group, list_legal_items, create_legal_item, update_legal_item, delete_legal_item]);
    // After the kind's own: its list shares the path of `create_site_legal`.
    http::kind_routes(r, ContentKind::Legal, "legal");
    crate::mount!(r, self => [create_legal_version, create_site_legal]);
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
    let id = id.into_inner();
    copy::ensure_version_source_live(&state, ContentKind::Legal, id).await?;
    let source = access::on_all_sites(&state, &principal, ContentKind::Legal, id, true).await?;
    Ok(HttpResponse::Created().json(copy::new_version(&state, source).await?))
}

/// Create a legal document on the site of the path
///
/// The origin service's form of `POST /legal`: the same body, with the site
/// from the path (`site_ids` may be omitted; when given it must name the site),
/// and `cookie_name` accepted for `title`. Author role or higher on the
/// site; the legal module must be on. Errors: as `POST /legal`.
#[utoipa::path(
    post,
    path = "/sites/{site_id}/legal",
    tag = "Legal documents",
    params(("site_id" = Uuid, Path)),
    request_body = CreateContent,
    responses(
        (status = 201, body = ContentResponse),
        (status = "4XX", body = Problem, description = "VALIDATION_ERROR when `site_ids` leaves out the path's site")
    )
)]
pub async fn create_site_legal(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<CreateContent>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    // The path's site is checked first: a caller without rights there hears
    // 403 whatever the body names.
    principal.require(&state, site_id, Capability::CreateContent).await?;
    let mut body = body.into_inner();
    if body.site_ids.is_empty() {
        body.site_ids = vec![site_id];
    } else if !body.site_ids.contains(&site_id) {
        let detail = "must name the site of the path";
        return Err(ApiError::validation(vec![FieldError::new(
            "site_ids",
            ErrorCode::ValidationInvalidFormat,
            detail,
        )]));
    }
    let grant = access::new_item(&state, &principal, &body.site_ids).await?;
    Ok(HttpResponse::Created().json(write::create(&state, &grant, ContentKind::Legal, body).await?))
}
