//! Site members: list, add, change role, remove, transfer ownership,
//! and the caller's own memberships. Only an owner gives or takes the admin and
//! owner roles; the owner is never removed or demoted except by a transfer.

mod model;
mod service;

pub use model::*;
pub use service::memberships_of;

use actix_web::web::{self};
use actix_web::HttpResponse;
use uuid::Uuid;

use crate::auth::{Capability, Principal, Role};
use crate::error::{ApiError, ApiResult, ErrorCode, Problem};
use crate::permissions::RoleGrants;
use crate::routes::Routes;
use crate::state::AppState;
use crate::values::required_line;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [my_memberships, list_members, add_member, transfer_ownership, transfer_ownership_at_site,
        update_member, update_member_role, remove_member]);
}

/// Admin and owner roles are given and taken only by an owner.
fn require_owner_for(role: Role, caller: Role) -> ApiResult<()> {
    if role.has(Capability::AdministerSite) && !caller.has(Capability::OwnSite) {
        return Err(ApiError::new(
            ErrorCode::MemberRoleOwnerRequired,
            "only the owner gives or takes the admin and owner roles",
        ));
    }
    Ok(())
}

/// List the caller's memberships
///
/// JWT only (an API key gets 400 MEMBER_REQUIRES_IDP_AUTH).
#[utoipa::path(
    get,
    path = "/my/memberships",
    tag = "Members",
    responses(
        (status = 200, body = Vec<Membership>),
        (status = "4XX", body = Problem, description = "MEMBER_REQUIRES_IDP_AUTH for API keys")
    ),
    security(("bearer" = []))
)]
pub async fn my_memberships(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let user = principal.require_user(ErrorCode::MemberRequiresIdpAuth)?;
    Ok(HttpResponse::Ok().json(service::memberships_of(&state, &user.idp_user_id).await?))
}

/// List a site's members
///
/// Admin role or higher on the site. Each member carries the identity provider's `name`, `email` and `image_url`
/// when a provider API is configured (one request per hundred members, waited for up to 3 s; null otherwise).
#[utoipa::path(get, path = "/sites/{site_id}/members", tag = "Members", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<ListedMember>)))]
pub async fn list_members(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    Ok(HttpResponse::Ok().json(service::list(&state, site_id).await?))
}

/// Add a member to a site
///
/// Admin role or higher on the site; only owners give the admin and owner roles. Errors: MEMBER_ALREADY_EXISTS,
/// MEMBER_ROLE_OWNER_REQUIRED, VALIDATION_ERROR.
#[utoipa::path(
    post,
    path = "/sites/{site_id}/members",
    tag = "Members",
    params(("site_id" = Uuid, Path)),
    request_body = AddMember,
    responses(
        (status = 201, body = MemberResponse),
        (status = "4XX", body = Problem, description = "MEMBER_ALREADY_EXISTS, MEMBER_ROLE_OWNER_REQUIRED")
    )
)]
pub async fn add_member(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<AddMember>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    let caller = principal.require(&state, site_id, Capability::AdministerSite).await?.role();
    state.site_state(site_id).await?;
    let body = body.into_inner();
    let user_id = required_line("idp_user_id", &body.idp_user_id, 200).map_err(|e| ApiError::validation(vec![e]))?;
    // Permission before the business rule: an admin asking for owner hears that
    // only an owner may, not that a site has one owner.
    require_owner_for(body.role, caller)?;
    let now = state.clock.now();
    let created = service::add(&state, &principal.actor(), now, site_id, user_id, body.role).await?;
    Ok(HttpResponse::Created().json(created))
}

/// Change a member's role
///
/// Admin role or higher on the site; only owners give or take the admin and owner roles. Errors: ENTITY_NOT_FOUND,
/// MEMBER_ROLE_OWNER_REQUIRED.
#[utoipa::path(
    put,
    path = "/sites/{site_id}/members/{id}",
    tag = "Members",
    params(("site_id" = Uuid, Path), ("id" = Uuid, Path)),
    request_body = UpdateMember,
    responses(
        (status = 200, body = MemberResponse),
        (status = "4XX", body = Problem, description = "MEMBER_ROLE_OWNER_REQUIRED, MEMBER_CANNOT_REMOVE_OWNER")
    )
)]
pub async fn update_member(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, Uuid)>,
    body: crate::body::Json<UpdateMember>,
) -> ApiResult<HttpResponse> {
    change_member_role(&state, &principal, path.into_inner(), body.into_inner()).await
}

/// Change a member's role (the origin service's path)
///
/// `PUT /sites/{site_id}/members/{id}` at the path the origin service's admin uses: the same body, answer and errors.
#[utoipa::path(
    put,
    path = "/sites/{site_id}/members/{id}/role",
    tag = "Members",
    params(("site_id" = Uuid, Path), ("id" = Uuid, Path)),
    request_body = UpdateMember,
    responses((status = 200, body = MemberResponse))
)]
pub async fn update_member_role(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, Uuid)>,
    body: crate::body::Json<UpdateMember>,
) -> ApiResult<HttpResponse> {
    change_member_role(&state, &principal, path.into_inner(), body.into_inner()).await
}

async fn change_member_role(
    state: &AppState,
    principal: &Principal,
    (site_id, id): (Uuid, Uuid),
    body: UpdateMember,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let caller = principal.require(state, site_id, Capability::AdministerSite).await?.role();
    let current = service::find_member(state, site_id, id).await?;
    let role = body.role;
    require_owner_for(role, caller)?;
    require_owner_for(current.role, caller)?;
    let updated = service::change_role(state, &principal.actor(), now, current, role).await?;
    Ok(HttpResponse::Ok().json(updated))
}

/// Remove a member from a site
///
/// Admin role or higher on the site. Errors: ENTITY_NOT_FOUND, MEMBER_CANNOT_REMOVE_OWNER,
/// SITE_OWNER_CANNOT_LEAVE.
#[utoipa::path(
    delete,
    path = "/sites/{site_id}/members/{id}",
    tag = "Members",
    params(("site_id" = Uuid, Path), ("id" = Uuid, Path)),
    responses(
        (status = 204),
        (status = "4XX", body = Problem, description = "MEMBER_CANNOT_REMOVE_OWNER, SITE_OWNER_CANNOT_LEAVE, MEMBER_ROLE_OWNER_REQUIRED")
    )
)]
pub async fn remove_member(
    state: web::Data<AppState>,
    principal: Principal,
    path: web::Path<(Uuid, Uuid)>,
) -> ApiResult<HttpResponse> {
    let (site_id, id) = path.into_inner();
    let current = service::find_member(&state, site_id, id).await?;
    let leaving = principal.user().is_some_and(|u| u.idp_user_id == current.idp_user_id);
    // The owner rule is answered before the permission check here (unlike the
    // other member endpoints): whoever asks to remove the owner hears why not.
    service::ensure_removable(&current, leaving)?;
    // Anyone may leave a site; removing others needs admin, and admins only by an owner.
    if !leaving {
        let caller = principal.require(&state, site_id, Capability::AdministerSite).await?.role();
        require_owner_for(current.role, caller)?;
    }
    let now = state.clock.now();
    service::remove(&state, &principal.actor(), now, current).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Transfer a site's ownership
///
/// Owner role on the site. Errors: ENTITY_NOT_FOUND, VALIDATION_ERROR.
#[utoipa::path(
    post,
    path = "/sites/{site_id}/members/transfer-ownership",
    tag = "Members",
    params(("site_id" = Uuid, Path)),
    request_body = TransferOwnership,
    responses(
        (status = 200, body = Vec<MemberResponse>, description = "The new owner and the previous one (now admin)")
    )
)]
pub async fn transfer_ownership(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<TransferOwnership>,
) -> ApiResult<HttpResponse> {
    hand_over(&state, &principal, site_id.into_inner(), body.into_inner()).await
}

/// Transfer a site's ownership (the origin service's path)
///
/// `POST /sites/{site_id}/members/transfer-ownership` at the path the origin service's admin uses (its body names the
/// new owner `new_owner_clerk_user_id`): the same answer and errors.
#[utoipa::path(
    post,
    path = "/sites/{site_id}/transfer-ownership",
    tag = "Members",
    params(("site_id" = Uuid, Path)),
    request_body = TransferOwnership,
    responses(
        (status = 200, body = Vec<MemberResponse>, description = "The new owner and the previous one (now admin)")
    )
)]
pub async fn transfer_ownership_at_site(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: crate::body::Json<TransferOwnership>,
) -> ApiResult<HttpResponse> {
    hand_over(&state, &principal, site_id.into_inner(), body.into_inner()).await
}

async fn hand_over(
    state: &AppState,
    principal: &Principal,
    site_id: Uuid,
    body: TransferOwnership,
) -> ApiResult<HttpResponse> {
    principal.require(state, site_id, Capability::OwnSite).await?;
    let now = state.clock.now();
    let changed = service::transfer_ownership(state, &principal.actor(), now, site_id, &body.idp_user_id).await?;
    Ok(HttpResponse::Ok().json(changed))
}
