//! The audit API: a site's audit trail, one item's entries and field-level
//! history, and reverting chosen changes of a content item. The trail itself
//! is written by every mutation (`crate::audit`).

mod access;
mod revert;
pub mod service;

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use crate::auth::{Capability, Principal};
use crate::content::{self, model::ContentResponse};
use crate::error::{ApiResult, Problem};
use crate::pagination::{PageParams20, Paginated};
use crate::routes::Routes;
use crate::state::AppState;
pub use revert::RevertRequest;
pub use service::{AuditEntryResponse, AuditQuery, FieldChange};

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [site_audit, entity_audit, entity_history, revert_changes]);
}

/// List a site's audit log
///
/// Admin role or higher on the site. Errors: VALIDATION_INVALID_FORMAT, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(get, path = "/sites/{site_id}/audit", tag = "Audit", params(("site_id" = Uuid, Path), AuditQuery),
    responses((status = 200, body = Paginated<AuditEntryResponse>, description = "Newest first (Admin); an item on several sites is listed under each")))]
pub async fn site_audit(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    query: web::Query<AuditQuery>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    Ok(HttpResponse::Ok().json(service::site_entries(&state, site_id, query.into_inner()).await?))
}

/// List an item's audit log
///
/// Read role or higher on the item's site for content, Admin for site administration records; system admins any.
/// Errors: ENTITY_NOT_FOUND, FORBIDDEN, VALIDATION_INVALID_FORMAT.
#[utoipa::path(get, path = "/audit/entity/{entity_type}/{entity_id}", tag = "Audit",
    params(("entity_type" = String, Path), ("entity_id" = String, Path), PageParams20),
    responses(
        (status = 200, body = Paginated<AuditEntryResponse>, description = "Newest first. Content (blog, page, project, skill, cv, legal and their localizations): anyone who may read it on one of its sites; anything else: site admins"),
        (status = 404, body = Problem, content_type = "application/problem+json", description = "No entries for this item")
    ))]
pub async fn entity_audit(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(String, String)>,
    page: web::Query<PageParams20>,
) -> ApiResult<HttpResponse> {
    let (entity_type, entity_id) = path.into_inner();
    let entries = access::item_entries(&state, &principal, &entity_type, &entity_id).await?;
    Ok(HttpResponse::Ok().json(service::page_of(entries, page.into_inner().into())))
}

/// Show an item's field-level change history
///
/// Read role or higher on the item's site for content, Admin for site administration records; system admins any.
/// Errors: ENTITY_NOT_FOUND, FORBIDDEN, VALIDATION_INVALID_FORMAT.
#[utoipa::path(get, path = "/audit/history/{entity_type}/{entity_id}", tag = "Audit",
    params(("entity_type" = String, Path), ("entity_id" = String, Path)),
    responses(
        (status = 200, body = Vec<FieldChange>, description = "Every changed field of every entry, newest first; `change_id` names one for a revert"),
        (status = 404, body = Problem, content_type = "application/problem+json")
    ))]
pub async fn entity_history(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(String, String)>,
) -> ApiResult<HttpResponse> {
    let (entity_type, entity_id) = path.into_inner();
    let entries = access::item_entries(&state, &principal, &entity_type, &entity_id).await?;
    Ok(HttpResponse::Ok().json(service::history(&entries)))
}

/// Revert recorded changes
///
/// Admin role or higher on the site of every change. Errors: ENTITY_NOT_FOUND, FORBIDDEN, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(post, path = "/audit/history/revert", tag = "Audit", request_body = RevertRequest,
    responses(
        (status = 200, body = ContentResponse, description = "The item after the revert, written like any update (validation, events, audit, webhooks). Site admins"),
        (status = 400, body = Problem, content_type = "application/problem+json", description = "Changes of several items; an item that is not content; a system field (id, times, authorship, trash state)"),
        (status = 404, body = Problem, content_type = "application/problem+json")
    ))]
pub async fn revert_changes(
    state: web::Data<AppState>,
    principal: Principal,
    body: crate::body::Json<RevertRequest>,
) -> ApiResult<HttpResponse> {
    let changes = revert::chosen(&state, body.into_inner()).await?;
    // Permissions first: a caller who may not revert learns nothing more.
    access::authorize(&state, &principal, changes.entries(), Capability::AdministerSite).await?;
    let (kind, id, update) = revert::restoring_update(&changes)?;
    let item = content::access::for_update(&state, &principal, kind, id, update.site_ids.as_deref()).await?;
    Ok(HttpResponse::Ok().json(content::write::update(&state, item, update).await?))
}
