//! `/idp/users*`: the identity provider's users, as site admins manage them, with
//! Plinth's moderation state beside each.

mod model;
mod service;

pub use crate::state::identity_provider::{ClerkCompatible, IdentityProvider, ProviderUser};
pub use model::{IdpUser, IdpUserList, ListQuery, SetRole};

use actix_web::web::{self};
use actix_web::HttpResponse;

use crate::auth::{KeyCapability, KeyGrants, Principal};
use crate::error::{ApiError, ApiResult, ErrorCode, Problem};
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_idp_users, get_idp_user, set_idp_user_role]);
}

/// Site admins anywhere (members with admin or owner, Admin keys) and system admins.
async fn require_some_site_admin(state: &AppState, principal: &Principal) -> ApiResult<()> {
    let allowed = if principal.is_system_admin() {
        true
    } else if let Some(key) = principal.api_key() {
        key.permission.has(KeyCapability::ManageIdpUsers)
    } else if let Some(user) = principal.user() {
        service::administers_some_site(&state.db, &user.idp_user_id).await?
    } else {
        false
    };
    if allowed {
        Ok(())
    } else {
        Err(ApiError::new(ErrorCode::AuthInsufficientRole, "managing users needs the admin role on at least one site"))
    }
}

/// List identity-provider users
///
/// Admin role on at least one site, or a system admin. Errors: IDP_NOT_CONFIGURED (500), IDP_API_FAILED,
/// AUTH_INSUFFICIENT_ROLE.
#[utoipa::path(
    get,
    path = "/idp/users",
    tag = "Identity provider",
    params(ListQuery),
    responses(
        (status = 200, body = IdpUserList),
        (status = "5XX", body = Problem, description = "IDP_NOT_CONFIGURED, IDP_API_FAILED")
    )
)]
pub async fn list_idp_users(
    state: web::Data<AppState>,
    principal: Principal,
    query: web::Query<ListQuery>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    require_some_site_admin(&state, &principal).await?;
    let users = service::list(&state, now, query.limit.unwrap_or(20), query.offset.unwrap_or(0)).await?;
    Ok(HttpResponse::Ok().json(users))
}

/// Show an identity-provider user
///
/// Admin role on at least one site, or a system admin. Errors: IDP_NOT_CONFIGURED (500), IDP_USER_NOT_FOUND,
/// IDP_INVALID_IDENTIFIER, IDP_API_FAILED, AUTH_INSUFFICIENT_ROLE.
#[utoipa::path(get, path = "/idp/users/{id}", tag = "Identity provider", params(("id" = String, Path, pattern = r"^[A-Za-z0-9_-]{1,128}$", description = "The provider's user id: 1 to 128 letters, digits, `_` or `-`")),
    responses((status = 200, body = IdpUser), (status = "5XX", body = Problem)))]
pub async fn get_idp_user(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    require_some_site_admin(&state, &principal).await?;
    Ok(HttpResponse::Ok().json(service::get(&state, now, &id).await?))
}

/// Change an identity-provider user's CMS role
///
/// Admin role on at least one site, or a system admin. Errors: IDP_INVALID_ROLE, IDP_NOT_CONFIGURED (500),
/// IDP_USER_NOT_FOUND, IDP_INVALID_IDENTIFIER, IDP_API_FAILED, AUTH_INSUFFICIENT_ROLE.
#[utoipa::path(
    put,
    path = "/idp/users/{id}/role",
    tag = "Identity provider",
    params(("id" = String, Path, pattern = r"^[A-Za-z0-9_-]{1,128}$", description = "The provider's user id: 1 to 128 letters, digits, `_` or `-`")),
    request_body = SetRole,
    responses(
        (status = 200, body = IdpUser),
        (status = 422, body = Problem, description = "IDP_INVALID_ROLE"),
        (status = "5XX", body = Problem)
    )
)]
pub async fn set_idp_user_role(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<String>,
    body: crate::body::Json<SetRole>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    require_some_site_admin(&state, &principal).await?;
    Ok(HttpResponse::Ok().json(service::set_role(&state, now, &id, &body.role).await?))
}
