//! The identity provider's users as site admins manage them, each joined with
//! Plinth's moderation state.

use chrono::{DateTime, Utc};
use plinth_entities::{site_member, user_moderation};
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter};

use super::model::{IdpUser, IdpUserList};
use crate::auth::{Capability, Role};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::moderation::{effective, ModerationStatus};
use crate::state::identity_provider::{check_identifier, IdentityProvider, ProviderUser};
use crate::state::AppState;

fn provider(state: &AppState) -> ApiResult<&dyn IdentityProvider> {
    state.idp.as_deref().ok_or_else(|| {
        ApiError::new(
            ErrorCode::IdpNotConfigured,
            "no identity-provider API is configured (PLINTH_IDP_API_URL, PLINTH_IDP_SECRET_KEY)",
        )
    })
}

/// Whether the user is an admin or owner of at least one site.
pub async fn administers_some_site(db: &DatabaseConnection, idp_user_id: &str) -> ApiResult<bool> {
    Ok(site_member::Entity::find()
        .filter(site_member::Column::IdpUserId.eq(idp_user_id))
        .filter(site_member::Column::Role.is_in(Capability::AdministerSite.roles()))
        .one(db)
        .await?
        .is_some())
}

/// Joins the moderation state of every listed user in one query.
async fn with_moderation(
    db: &DatabaseConnection,
    now: DateTime<Utc>,
    users: Vec<ProviderUser>,
) -> ApiResult<Vec<IdpUser>> {
    let ids: Vec<String> = users.iter().map(|u| u.id.clone()).collect();
    let rows = user_moderation::Entity::find().filter(user_moderation::Column::IdpUserId.is_in(ids)).all(db).await?;
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

/// One page of the provider's users; `limit` is clamped to 1 to 100.
pub async fn list(state: &AppState, now: DateTime<Utc>, limit: u64, offset: u64) -> ApiResult<IdpUserList> {
    let idp = provider(state)?;
    let (users, total_count) = idp.list_users(limit.clamp(1, 100), offset).await?;
    let data = with_moderation(&state.db, now, users).await?;
    Ok(IdpUserList { data, total_count })
}

pub async fn get(state: &AppState, now: DateTime<Utc>, id: &str) -> ApiResult<IdpUser> {
    check_identifier(id)?;
    let user = provider(state)?.get_user(id).await?;
    one_with_moderation(&state.db, now, user).await
}

/// Sets the user's role at the provider; `raw_role` must name a role.
pub async fn set_role(state: &AppState, now: DateTime<Utc>, id: &str, raw_role: &str) -> ApiResult<IdpUser> {
    check_identifier(id)?;
    let role = Role::parse(raw_role).ok_or_else(|| {
        ApiError::new(
            ErrorCode::IdpInvalidRole,
            format!("'{raw_role}' is not a role; use read, author, reviewer, editor, admin or owner"),
        )
    })?;
    let user = provider(state)?.set_role(id, role.as_str()).await?;
    one_with_moderation(&state.db, now, user).await
}

async fn one_with_moderation(db: &DatabaseConnection, now: DateTime<Utc>, user: ProviderUser) -> ApiResult<IdpUser> {
    let mut listed = with_moderation(db, now, vec![user]).await?;
    Ok(listed.remove(0))
}
