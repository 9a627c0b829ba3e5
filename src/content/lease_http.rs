//! An item's edit lease (`crate::leases`), under every content kind's path
//! (documented once, as blogs).

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::{access, ContentKind};
use crate::auth::Principal;
use crate::error::{ApiResult, Problem};
use crate::leases::{self, LeaseResponse, LeasedItem, TakeLease};
use crate::state::AppState;

/// Take or renew the edit lease of an item of the kind
///
/// For whoever may edit the item (its role, as for a change). Renew before `expires_at` to keep it. Leases are
/// advisory: they block no write, they tell every open admin (the site's event stream, `GET
/// /sites/{site_id}/leases`) who edits what. Errors: LEASE_HELD (423, with the holder, unless `takeover`),
/// ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE, VALIDATION_OUT_OF_RANGE.
#[utoipa::path(
    post,
    path = "/blogs/{id}/lease",
    tag = "Blogs",
    operation_id = "take_blog_lease",
    params(("id" = Uuid, Path)),
    request_body(content = Option<TakeLease>),
    responses(
        (status = 200, body = LeaseResponse, description = "Taken, renewed or taken over"),
        (status = 423, body = Problem, description = "LEASE_HELD: another caller holds it; `lease` names who and until when")
    )
)]
pub async fn take_lease(
    kind: web::Data<ContentKind>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: Option<crate::body::Json<TakeLease>>,
) -> ApiResult<HttpResponse> {
    let item = access::editable(&state, &principal, **kind, id.into_inner(), false).await?;
    let leased = LeasedItem { item_type: kind.as_str(), item_id: item.item.id, site_ids: &item.relations.site_ids };
    let body = body.map(|b| b.into_inner()).unwrap_or_default();
    Ok(HttpResponse::Ok().json(leases::take(&state, item.grant.actor(), leased, body).await?))
}

/// Release the edit lease of an item of the kind
///
/// The holder's; nothing to release answers 204 too. Errors: LEASE_HELD (423: another caller's live lease),
/// ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE.
#[utoipa::path(
    delete,
    path = "/blogs/{id}/lease",
    tag = "Blogs",
    operation_id = "release_blog_lease",
    params(("id" = Uuid, Path)),
    responses(
        (status = 204, description = "Released (or there was none of the caller's)"),
        (status = 423, body = Problem, description = "LEASE_HELD: another caller's live lease")
    )
)]
pub async fn release_lease(
    kind: web::Data<ContentKind>,
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let item = access::editable(&state, &principal, **kind, id.into_inner(), false).await?;
    leases::release(&state, item.grant.actor(), item.item.id).await?;
    Ok(HttpResponse::NoContent().finish())
}
