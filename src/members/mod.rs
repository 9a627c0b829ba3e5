//! Site members: list, add, change role, remove, transfer ownership,
//! and the caller's own memberships. Only an owner gives or takes the admin and
//! owner roles; the owner is never removed or demoted except by a transfer.

use actix_web::web::{self};
use actix_web::HttpResponse;
use chrono::{DateTime, Utc};
use plinth_entities::{site, site_member};
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::audit::{self, Action, AuditEntry};
use crate::auth::{Capability, Principal, Role};
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, Problem};
use crate::routes::Routes;
use crate::state::AppState;
use crate::values::required_text;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [my_memberships, list_members, add_member, transfer_ownership, update_member, remove_member]);
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MemberResponse {
    pub id: Uuid,
    pub site_id: Uuid,
    pub idp_user_id: String,
    /// read, author, reviewer, editor, admin or owner
    pub role: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&site_member::Model> for MemberResponse {
    fn from(m: &site_member::Model) -> Self {
        Self {
            id: m.id,
            site_id: m.site_id,
            idp_user_id: m.idp_user_id.clone(),
            role: m.role.clone(),
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

/// One site the caller belongs to.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Membership {
    pub site_id: Uuid,
    pub site_name: String,
    pub site_slug: String,
    pub role: String,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct AddMember {
    pub idp_user_id: String,
    pub role: Role,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct UpdateMember {
    pub role: Role,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct TransferOwnership {
    /// A member of the site who becomes its owner; the current owner becomes an admin.
    #[serde(alias = "new_owner_idp_user_id")]
    pub idp_user_id: String,
}

fn entry<'a>(actor: &'a str, action: Action, member: &site_member::Model) -> AuditEntry<'a> {
    AuditEntry { actor, action, entity_type: "member", entity_id: member.id.to_string(), site_id: Some(member.site_id) }
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

async fn find_member(state: &AppState, site_id: Uuid, id: Uuid) -> ApiResult<site_member::Model> {
    site_member::Entity::find_by_id(id)
        .filter(site_member::Column::SiteId.eq(site_id))
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found("member", id))
}

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
    Ok(HttpResponse::Ok().json(memberships_of(&state, &user.idp_user_id).await?))
}

/// The live sites a user is a member of, with the role there.
pub async fn memberships_of(state: &AppState, idp_user_id: &str) -> ApiResult<Vec<Membership>> {
    let rows = site_member::Entity::find()
        .filter(site_member::Column::IdpUserId.eq(idp_user_id))
        .find_also_related(site::Entity)
        .all(&state.db)
        .await?;
    Ok(rows
        .into_iter()
        .filter_map(|(m, s)| {
            s.filter(|s| s.deleted_at.is_none()).map(|s| Membership {
                site_id: s.id,
                site_name: s.name,
                site_slug: s.slug,
                role: m.role,
            })
        })
        .collect())
}

#[utoipa::path(get, path = "/sites/{site_id}/members", tag = "Members", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<MemberResponse>)))]
pub async fn list_members(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::AdministerSite).await?;
    state.site_state(site_id).await?;
    let members = site_member::Entity::find()
        .filter(site_member::Column::SiteId.eq(site_id))
        .order_by_asc(site_member::Column::CreatedAt)
        .all(&state.db)
        .await?;
    Ok(HttpResponse::Ok().json(members.iter().map(MemberResponse::from).collect::<Vec<_>>()))
}

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
    body: web::Json<AddMember>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    let caller = principal.require(&state, site_id, Capability::AdministerSite).await?;
    state.site_state(site_id).await?;
    let body = body.into_inner();
    let user_id = required_text("idp_user_id", &body.idp_user_id, 200).map_err(|e| ApiError::validation(vec![e]))?;
    // Permission before the business rule: an admin asking for owner hears that
    // only an owner may, not that a site has one owner.
    require_owner_for(body.role, caller)?;
    if body.role == Role::Owner {
        return Err(ApiError::bad_request("a site has one owner: use transfer-ownership"));
    }
    let now = state.clock.now();
    let txn = crate::db::begin_write(&state.db).await?;
    let created = site_member::ActiveModel {
        id: Set(Uuid::new_v4()),
        site_id: Set(site_id),
        idp_user_id: Set(user_id),
        role: Set(body.role.as_str().to_string()),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&txn)
    .await
    .map_err(on_constraint(Constraint::Unique, || {
        ApiError::new(ErrorCode::MemberAlreadyExists, "the user is already a member of this site")
    }))?;
    let response = MemberResponse::from(&created);
    audit::record(&txn, now, entry(&principal.actor_id(), Action::Create, &created), &(), &response).await?;
    txn.commit().await?;
    state.invalidate_site(site_id);
    Ok(HttpResponse::Created().json(response))
}

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
    body: web::Json<UpdateMember>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let (site_id, id) = path.into_inner();
    let caller = principal.require(&state, site_id, Capability::AdministerSite).await?;
    let current = find_member(&state, site_id, id).await?;
    let role = body.into_inner().role;
    let current_role = Role::parse(&current.role).unwrap_or(Role::Read);
    require_owner_for(role, caller)?;
    require_owner_for(current_role, caller)?;
    if current_role == Role::Owner {
        return Err(ApiError::new(
            ErrorCode::MemberCannotRemoveOwner,
            "the owner keeps that role until ownership is transferred",
        ));
    }
    if role == Role::Owner {
        return Err(ApiError::bad_request("a site has one owner: use transfer-ownership"));
    }
    let before = MemberResponse::from(&current);
    let mut row: site_member::ActiveModel = current.into();
    row.role = Set(role.as_str().to_string());
    row.updated_at = Set(now);
    let txn = crate::db::begin_write(&state.db).await?;
    let updated = row.update(&txn).await?;
    let after = MemberResponse::from(&updated);
    audit::record(&txn, now, entry(&principal.actor_id(), Action::Update, &updated), &before, &after).await?;
    txn.commit().await?;
    state.invalidate_site(site_id);
    Ok(HttpResponse::Ok().json(after))
}

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
    let current = find_member(&state, site_id, id).await?;
    let leaving = principal.user().is_some_and(|u| u.idp_user_id == current.idp_user_id);
    let current_role = Role::parse(&current.role).unwrap_or(Role::Read);
    if current_role == Role::Owner {
        let code = if leaving { ErrorCode::SiteOwnerCannotLeave } else { ErrorCode::MemberCannotRemoveOwner };
        return Err(ApiError::new(code, "transfer ownership to another member first"));
    }
    // Anyone may leave a site; removing others needs admin, and admins only by an owner.
    if !leaving {
        let caller = principal.require(&state, site_id, Capability::AdministerSite).await?;
        require_owner_for(current_role, caller)?;
    }
    let txn = crate::db::begin_write(&state.db).await?;
    site_member::Entity::delete_by_id(current.id).exec(&txn).await?;
    audit::record(
        &txn,
        state.clock.now(),
        entry(&principal.actor_id(), Action::Delete, &current),
        &MemberResponse::from(&current),
        &(),
    )
    .await?;
    txn.commit().await?;
    state.invalidate_site(site_id);
    Ok(HttpResponse::NoContent().finish())
}

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
    body: web::Json<TransferOwnership>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::OwnSite).await?;
    let target_id = body.into_inner().idp_user_id;
    let members = site_member::Entity::find().filter(site_member::Column::SiteId.eq(site_id)).all(&state.db).await?;
    let target = members
        .iter()
        .find(|m| m.idp_user_id == target_id)
        .cloned()
        .ok_or_else(|| ApiError::not_found("member", &target_id))?;
    let previous = members.iter().find(|m| m.role == Role::Owner.as_str()).cloned();
    if previous.as_ref().is_some_and(|p| p.id == target.id) {
        return Err(ApiError::bad_request("that member already owns the site"));
    }
    let now = state.clock.now();
    let txn = crate::db::begin_write(&state.db).await?;
    let mut changed = Vec::new();
    if let Some(previous) = previous {
        let mut row: site_member::ActiveModel = previous.clone().into();
        row.role = Set(Role::Admin.as_str().to_string());
        row.updated_at = Set(now);
        changed.push(row.update(&txn).await?);
    }
    let mut row: site_member::ActiveModel = target.into();
    row.role = Set(Role::Owner.as_str().to_string());
    row.updated_at = Set(now);
    changed.insert(0, row.update(&txn).await?);
    for member in &changed {
        audit::record(
            &txn,
            now,
            entry(&principal.actor_id(), Action::Update, member),
            &json!({}),
            &MemberResponse::from(member),
        )
        .await?;
    }
    txn.commit().await?;
    state.invalidate_site(site_id);
    Ok(HttpResponse::Ok().json(changed.iter().map(MemberResponse::from).collect::<Vec<_>>()))
}
