//! Member rules and writes: a site has one owner, who keeps that role until
//! ownership is transferred; every write records its audit entry in the same
//! transaction and drops the site's cached state.

use chrono::{DateTime, Utc};
use plinth_entities::{site, site_member};
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::{json, Value};
use uuid::Uuid;

use std::collections::HashMap;
use std::time::Duration;

use super::model::{ListedMember, MemberResponse, Membership};
use crate::audit::{self, Action, Actor};
use crate::auth::Role;
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode};
use crate::site_rows::{self, SiteRow};
use crate::state::identity_provider::ProviderUser;
use crate::state::AppState;

impl SiteRow for site_member::Model {
    type Table = site_member::Entity;
    const KIND: &'static str = "member";

    fn id(&self) -> Uuid {
        self.id
    }

    fn site_id(&self) -> Uuid {
        self.site_id
    }
}

fn one_owner() -> ApiError {
    ApiError::bad_request("a site has one owner: use transfer-ownership")
}

pub async fn find_member(state: &AppState, site_id: Uuid, id: Uuid) -> ApiResult<site_member::Model> {
    site_member::Entity::find_by_id(id)
        .filter(site_member::Column::SiteId.eq(site_id))
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found("member", id))
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

pub async fn list(state: &AppState, site_id: Uuid) -> ApiResult<Vec<ListedMember>> {
    state.site_state(site_id).await?;
    let members = site_member::Entity::find()
        .filter(site_member::Column::SiteId.eq(site_id))
        .order_by_asc(site_member::Column::CreatedAt)
        .order_by_asc(site_member::Column::Id)
        .all(&state.db)
        .await?;
    let ids: Vec<String> = members.iter().map(|m| m.idp_user_id.clone()).collect();
    let mut profiles: HashMap<String, ProviderUser> =
        provider_profiles(state, &ids).await.into_iter().map(|user| (user.id.clone(), user)).collect();
    Ok(members
        .iter()
        .map(|m| {
            let profile = profiles.remove(&m.idp_user_id);
            let (name, email, image_url) = profile.map_or((None, None, None), |p| (p.name, p.email, p.image_url));
            ListedMember { member: MemberResponse::from(m), name, email, image_url }
        })
        .collect())
}

/// How long the member list waits for the identity provider's profiles.
const PROFILE_WAIT: Duration = Duration::from_secs(3);

/// The provider's profiles of `ids`, asked in one request per hundred; none
/// without a provider API, or when it fails or is slow: names are a
/// courtesy, the membership list must not depend on another service.
async fn provider_profiles(state: &AppState, ids: &[String]) -> Vec<ProviderUser> {
    let Some(provider) = state.idp.as_ref().filter(|_| !ids.is_empty()) else {
        return Vec::new();
    };
    match tokio::time::timeout(PROFILE_WAIT, provider.users_by_id(ids)).await {
        Ok(Ok(users)) => users,
        Ok(Err(e)) => {
            tracing::warn!(code = e.code().as_str(), "member profiles unavailable from the identity provider");
            Vec::new()
        }
        Err(_) => {
            tracing::warn!("member profiles: the identity provider did not answer within {PROFILE_WAIT:?}");
            Vec::new()
        }
    }
}

/// Adds a member with any role but owner (a site has one, changed by a transfer).
pub async fn add(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    site_id: Uuid,
    idp_user_id: String,
    role: Role,
) -> ApiResult<MemberResponse> {
    if role == Role::Owner {
        return Err(one_owner());
    }
    let row = site_member::ActiveModel {
        id: Set(Uuid::new_v4()),
        site_id: Set(site_id),
        idp_user_id: Set(idp_user_id),
        role: Set(role),
        created_at: Set(now),
        updated_at: Set(now),
    };
    let already = on_constraint(Constraint::Unique, || {
        ApiError::new(ErrorCode::MemberAlreadyExists, "the user is already a member of this site")
    });
    let created = site_rows::audited_write(&state.db, now, actor, Action::Create, Value::Null)
        .run(row, |m| MemberResponse::from(m), already)
        .await?;
    Ok(created)
}

/// Gives the member another role; the owner's role changes only by a transfer.
pub async fn change_role(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    current: site_member::Model,
    role: Role,
) -> ApiResult<MemberResponse> {
    if current.role == Role::Owner {
        return Err(ApiError::new(
            ErrorCode::MemberCannotRemoveOwner,
            "the owner keeps that role until ownership is transferred",
        ));
    }
    if role == Role::Owner {
        return Err(one_owner());
    }
    let before = json!(MemberResponse::from(&current));
    let mut row: site_member::ActiveModel = current.into();
    row.role = Set(role);
    row.updated_at = Set(now);
    let updated = site_rows::audited_write(&state.db, now, actor, Action::Update, before)
        .run(row, |m| MemberResponse::from(m), ApiError::from)
        .await?;
    Ok(updated)
}

/// The owner is neither removed nor leaves until ownership is transferred.
pub fn ensure_removable(member: &site_member::Model, leaving: bool) -> ApiResult<()> {
    if member.role == Role::Owner {
        let code = if leaving { ErrorCode::SiteOwnerCannotLeave } else { ErrorCode::MemberCannotRemoveOwner };
        return Err(ApiError::new(code, "transfer ownership to another member first"));
    }
    Ok(())
}

pub async fn remove(state: &AppState, actor: &Actor, now: DateTime<Utc>, current: site_member::Model) -> ApiResult<()> {
    site_rows::audited_write(&state.db, now, actor, Action::Delete, json!(MemberResponse::from(&current)))
        .remove(current)
        .await?;
    Ok(())
}

/// Makes the member `idp_user_id` the owner and the previous owner an admin.
/// Answers the new owner and then the previous one.
pub async fn transfer_ownership(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    site_id: Uuid,
    idp_user_id: &str,
) -> ApiResult<Vec<MemberResponse>> {
    let members = site_member::Entity::find().filter(site_member::Column::SiteId.eq(site_id)).all(&state.db).await?;
    let target = members
        .iter()
        .find(|m| m.idp_user_id == idp_user_id)
        .cloned()
        .ok_or_else(|| ApiError::not_found("member", idp_user_id))?;
    let previous = members.iter().find(|m| m.role == Role::Owner).cloned();
    if previous.as_ref().is_some_and(|p| p.id == target.id) {
        return Err(ApiError::bad_request("that member already owns the site"));
    }
    audit::write(&state.db, async |txn| {
        let mut changed = Vec::new();
        if let Some(previous) = previous {
            let mut row: site_member::ActiveModel = previous.clone().into();
            row.role = Set(Role::Admin);
            row.updated_at = Set(now);
            changed.push(row.update(txn).await?);
        }
        let mut row: site_member::ActiveModel = target.into();
        row.role = Set(Role::Owner);
        row.updated_at = Set(now);
        changed.insert(0, row.update(txn).await?);
        for member in &changed {
            let entry = member.audit_entry(actor, Action::Update);
            audit::record(txn, now, entry, &json!({}), &MemberResponse::from(member)).await?;
        }
        Ok(changed.iter().map(MemberResponse::from).collect())
    })
    .await
}
