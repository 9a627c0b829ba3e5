//! A document's edit lease (`crate::leases`): whoever may change it may take,
//! renew or release it.

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::find_document;
use crate::auth::{Capability, Principal};
use crate::error::{ApiResult, Problem};
use crate::leases::{self, LeaseResponse, TakeLease};
use crate::state::AppState;

/// Take or renew the edit lease of a document
///
/// Author role or higher on the document's site. Leases are advisory (see `POST /blogs/{id}/lease`). Errors:
/// LEASE_HELD (423, with the holder, unless `takeover`), ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE,
/// VALIDATION_OUT_OF_RANGE.
#[utoipa::path(post, path = "/documents/{id}/lease", tag = "Documents", params(("id" = Uuid, Path)),
    request_body(content = Option<TakeLease>),
    responses(
        (status = 200, body = LeaseResponse, description = "Taken, renewed or taken over"),
        (status = 423, body = Problem, description = "LEASE_HELD: another caller holds it; `lease` names who and until when")
    ))]
pub async fn take_document_lease(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: Option<crate::body::Json<TakeLease>>,
) -> ApiResult<HttpResponse> {
    let doc = find_document(&state, &principal, *id, Capability::CreateContent).await?;
    let body = body.map(|b| b.into_inner());
    Ok(HttpResponse::Ok().json(leases::take_row(&state, &principal.actor(), &doc, body).await?))
}

/// Release the edit lease of a document
///
/// The holder's; nothing to release answers 204 too. Errors: LEASE_HELD (423: another caller's live lease),
/// ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE.
#[utoipa::path(delete, path = "/documents/{id}/lease", tag = "Documents", params(("id" = Uuid, Path)),
    responses(
        (status = 204, description = "Released (or there was none of the caller's)"),
        (status = 423, body = Problem, description = "LEASE_HELD: another caller's live lease")
    ))]
pub async fn release_document_lease(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let doc = find_document(&state, &principal, *id, Capability::CreateContent).await?;
    leases::release(&state, &principal.actor(), doc.id).await?;
    Ok(HttpResponse::NoContent().finish())
}
