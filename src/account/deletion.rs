//! `DELETE /auth/account`: a user leaves Plinth. Their memberships, settings and
//! onboarding progress go; content they wrote stays with the sites that hold it.

use actix_web::{web, HttpResponse};
use plinth_entities::{site, site_member, site_onboarding_step, user_setting};
use sea_orm::{ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter};
use serde_json::{json, Value};

use uuid::Uuid;

use crate::audit::{self, Action, AuditEntry};
use crate::auth::{Principal, Role};
use crate::error::{ApiError, ApiResult, ErrorCode, Problem};
use crate::state::AppState;

/// Removes what Plinth keeps per user (memberships, settings, onboarding
/// progress) inside the caller's transaction. Shared by account deletion and
/// the moderation delete.
/// Returns the sites the user was a member of: their cached state holds the
/// memberships, so the caller drops it after the commit.
pub(crate) async fn remove_user_data<C: ConnectionTrait>(txn: &C, user: &str) -> Result<Vec<Uuid>, DbErr> {
    let sites = site_member::Entity::find()
        .filter(site_member::Column::IdpUserId.eq(user))
        .all(txn)
        .await?
        .into_iter()
        .map(|m| m.site_id)
        .collect();
    site_member::Entity::delete_many().filter(site_member::Column::IdpUserId.eq(user)).exec(txn).await?;
    site_onboarding_step::Entity::delete_many()
        .filter(site_onboarding_step::Column::IdpUserId.eq(user))
        .exec(txn)
        .await?;
    user_setting::Entity::delete_by_id(user.to_string()).exec(txn).await?;
    Ok(sites)
}

#[utoipa::path(
    delete,
    path = "/auth/account",
    tag = "Account",
    responses(
        (status = 204, description = "Memberships, preferences, help state and onboarding removed"),
        (status = 409, body = Problem, description = "AUTH_ACCOUNT_SOLE_OWNER: transfer ownership or delete those sites first")
    ),
    security(("bearer" = []))
)]
pub async fn delete_account(state: web::Data<AppState>, principal: Principal) -> ApiResult<HttpResponse> {
    let user = principal.require_user(ErrorCode::Forbidden)?.idp_user_id.clone();
    let txn = crate::db::begin_write(&state.db).await?;
    let memberships = site_member::Entity::find().filter(site_member::Column::IdpUserId.eq(&user)).all(&txn).await?;
    let owned: Vec<_> = memberships.iter().filter(|m| m.role == Role::Owner.as_str()).map(|m| m.site_id).collect();
    // A site (also one in the trash, which may yet be restored) must keep an owner.
    let co_owned: Vec<_> = site_member::Entity::find()
        .filter(site_member::Column::SiteId.is_in(owned.clone()))
        .filter(site_member::Column::Role.eq(Role::Owner.as_str()))
        .filter(site_member::Column::IdpUserId.ne(&user))
        .all(&txn)
        .await?
        .into_iter()
        .map(|m| m.site_id)
        .collect();
    let sole: Vec<_> = owned.iter().filter(|id| !co_owned.contains(id)).copied().collect();
    if !sole.is_empty() {
        let slugs: Vec<String> = site::Entity::find()
            .filter(site::Column::Id.is_in(sole))
            .all(&txn)
            .await?
            .into_iter()
            .map(|s| s.slug)
            .collect();
        return Err(ApiError::new(
            ErrorCode::AuthAccountSoleOwner,
            format!("you are the only owner of {}; transfer ownership or delete the site first", slugs.join(", ")),
        ));
    }
    let sites = remove_user_data(&txn, &user).await?;
    let entry = AuditEntry {
        actor: &user,
        action: Action::Delete,
        entity_type: "account",
        entity_id: user.clone(),
        site_id: None,
    };
    let before = json!({"idp_user_id": user, "memberships": memberships.len()});
    audit::record(&txn, state.clock.now(), entry, &before, &Value::Null).await?;
    txn.commit().await?;
    for site_id in sites {
        state.invalidate_site(site_id);
    }
    Ok(HttpResponse::NoContent().finish())
}
