//! `/idp/users*`: the identity provider's users, as site admins manage them, with
//! Plinth's moderation state beside each.

pub use crate::state::identity_provider::{ClerkCompatible, IdentityProvider, ProviderUser};

use actix_web::web::{self};
use actix_web::HttpResponse;
use plinth_entities::{site_member, user_moderation};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::auth::{Capability, KeyCapability, Principal, Role};
use crate::error::{ApiError, ApiResult, ErrorCode, Problem};
use crate::moderation::{effective, ModerationStatus};
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_idp_users, get_idp_user, set_idp_user_role]);
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct IdpUser {
    pub id: String,
    pub email: Option<String>,
    pub name: Option<String>,
    pub image_url: Option<String>,
    pub role: Option<String>,
    /// Epoch seconds.
    pub created_at: i64,
    pub updated_at: i64,
    pub last_sign_in_at: Option<i64>,
    /// `active`, `suspended` or `banned`.
    pub moderation_status: ModerationStatus,
    pub moderation_reason: Option<String>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct IdpUserList {
    pub data: Vec<IdpUser>,
    pub total_count: u64,
}

#[derive(Clone, Debug, Deserialize, IntoParams)]
pub struct ListQuery {
    /// 1 to 100, default 20.
    pub limit: Option<u64>,
    pub offset: Option<u64>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct SetRole {
    /// One of read, author, reviewer, editor, admin, owner.
    pub role: String,
}

fn provider(state: &AppState) -> ApiResult<&dyn IdentityProvider> {
    state.idp.as_deref().ok_or_else(|| {
        ApiError::new(
            ErrorCode::IdpNotConfigured,
            "no identity-provider API is configured (PLINTH_IDP_API_URL, PLINTH_IDP_SECRET_KEY)",
        )
    })
}

/// Site admins anywhere (members with admin or owner, Admin keys) and system admins.
async fn require_some_site_admin(state: &AppState, principal: &Principal) -> ApiResult<()> {
    let allowed = if principal.is_system_admin() {
        true
    } else if let Some(key) = principal.api_key() {
        key.permission.has(KeyCapability::ManageIdpUsers)
    } else if let Some(user) = principal.user() {
        site_member::Entity::find()
            .filter(site_member::Column::IdpUserId.eq(user.idp_user_id.as_str()))
            .filter(site_member::Column::Role.is_in(Capability::AdministerSite.roles().map(Role::as_str)))
            .one(&state.db)
            .await?
            .is_some()
    } else {
        false
    };
    if allowed {
        Ok(())
    } else {
        Err(ApiError::new(ErrorCode::AuthInsufficientRole, "managing users needs the admin role on at least one site"))
    }
}

/// Joins the moderation state of every listed user in one query.
async fn with_moderation(state: &AppState, users: Vec<ProviderUser>) -> ApiResult<Vec<IdpUser>> {
    let ids: Vec<String> = users.iter().map(|u| u.id.clone()).collect();
    let rows =
        user_moderation::Entity::find().filter(user_moderation::Column::IdpUserId.is_in(ids)).all(&state.db).await?;
    let now = state.clock.now();
    Ok(users
        .into_iter()
        .map(|u| {
            let row = rows.iter().find(|r| r.idp_user_id == u.id);
            let status = effective(row, now);
            IdpUser {
                moderation_reason: row.filter(|_| status != ModerationStatus::Active).and_then(|r| r.reason.clone()),
                moderation_status: status,
                id: u.id,
                email: u.email,
                name: u.name,
                image_url: u.image_url,
                role: u.role,
                created_at: u.created_at,
                updated_at: u.updated_at,
                last_sign_in_at: u.last_sign_in_at,
            }
        })
        .collect())
}

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
    require_some_site_admin(&state, &principal).await?;
    let idp = provider(&state)?;
    let limit = query.limit.unwrap_or(20).clamp(1, 100);
    let (users, total_count) = idp.list_users(limit, query.offset.unwrap_or(0)).await?;
    let data = with_moderation(&state, users).await?;
    Ok(HttpResponse::Ok().json(IdpUserList { data, total_count }))
}

#[utoipa::path(get, path = "/idp/users/{id}", tag = "Identity provider", params(("id" = String, Path)),
    responses((status = 200, body = IdpUser), (status = "5XX", body = Problem)))]
pub async fn get_idp_user(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<String>,
) -> ApiResult<HttpResponse> {
    require_some_site_admin(&state, &principal).await?;
    crate::state::identity_provider::check_identifier(&id)?;
    let user = provider(&state)?.get_user(&id).await?;
    let mut listed = with_moderation(&state, vec![user]).await?;
    Ok(HttpResponse::Ok().json(listed.remove(0)))
}

#[utoipa::path(
    put,
    path = "/idp/users/{id}/role",
    tag = "Identity provider",
    params(("id" = String, Path)),
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
    body: web::Json<SetRole>,
) -> ApiResult<HttpResponse> {
    require_some_site_admin(&state, &principal).await?;
    crate::state::identity_provider::check_identifier(&id)?;
    let raw = body.into_inner().role;
    let role = Role::parse(&raw).ok_or_else(|| {
        ApiError::new(
            ErrorCode::IdpInvalidRole,
            format!("'{raw}' is not a role; use read, author, reviewer, editor, admin or owner"),
        )
    })?;
    let user = provider(&state)?.set_role(&id, role.as_str()).await?;
    let mut listed = with_moderation(&state, vec![user]).await?;
    Ok(HttpResponse::Ok().json(listed.remove(0)))
}
