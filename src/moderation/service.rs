//! Moderation rules and writes: which state may follow which, and each change
//! with its audit entry in one transaction, after which the account gate drops
//! what it remembered of the user.

use chrono::{DateTime, Duration, Utc};
use plinth_entities::{content, user_moderation};
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveEnum, ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};

use super::model::{effective, BanUser, ModerationResult, ModerationStatus, SuspendUser};
use crate::audit::{self, Action, Actor, AuditEntry};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::state::AppState;

/// Longest suspension: one year.
const MAX_SUSPENSION_HOURS: i64 = 24 * 366;
const REASON_MAX: usize = 2_000;
/// Who may be suspended, banned or made active again: not a banned user.
const NOT_BANNED: [ModerationStatus; 2] = [ModerationStatus::Active, ModerationStatus::Suspended];

fn reason(raw: &str) -> ApiResult<String> {
    let trimmed = raw.trim();
    if trimmed.is_empty() || trimmed.chars().count() > REASON_MAX {
        return Err(ApiError::validation(vec![FieldError::new(
            "reason",
            ErrorCode::ValidationError,
            format!("must be 1 to {REASON_MAX} characters"),
        )]));
    }
    Ok(trimmed.to_string())
}

/// Writes the new state of a user who is not banned with its audit entry, in
/// one transaction.
async fn set_state(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    user: &str,
    to: ModerationStatus,
    reason: Option<String>,
    expires_at: Option<DateTime<Utc>>,
) -> ApiResult<ModerationResult> {
    let result = audit::write(&state.db, async |txn| {
        let current = user_moderation::Entity::find_by_id(user.to_string()).one(txn).await?;
        let from = effective(current.as_ref(), now);
        if !NOT_BANNED.contains(&from) {
            return Err(ApiError::bad_request(format!("a {} user cannot be made {}", from.to_value(), to.to_value())));
        }
        let before = ModerationResult {
            idp_user_id: user.to_string(),
            status: from,
            reason: current.as_ref().and_then(|c| c.reason.clone()),
            expires_at: current.as_ref().and_then(|c| c.expires_at),
        };
        let row = user_moderation::ActiveModel {
            idp_user_id: Set(user.to_string()),
            status: Set(to),
            reason: Set(reason.clone()),
            expires_at: Set(expires_at),
            updated_by: Set(actor.clone()),
            updated_at: Set(now),
        };
        if current.is_some() {
            row.update(txn).await?;
        } else {
            row.insert(txn).await?;
        }
        let result = ModerationResult { idp_user_id: user.to_string(), status: to, reason, expires_at };
        audit_moderation(txn, now, actor, user, &before, &result).await?;
        Ok(result)
    })
    .await?;
    state.forget_user(user);
    Ok(result)
}

async fn audit_moderation(
    txn: &crate::db::WriteTxn,
    at: DateTime<Utc>,
    actor: &Actor,
    user: &str,
    before: &ModerationResult,
    after: &ModerationResult,
) -> ApiResult<()> {
    let entry = AuditEntry {
        actor,
        action: Action::Update,
        entity_type: "user_moderation",
        entity_id: user.into(),
        site_id: None,
    };
    audit::record(txn, at, entry, before, after).await?;
    Ok(())
}

/// Suspends the user for `duration_hours` from `now`.
pub async fn suspend(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    user: &str,
    body: SuspendUser,
) -> ApiResult<ModerationResult> {
    let reason = reason(&body.reason)?;
    if !(1..=MAX_SUSPENSION_HOURS).contains(&body.duration_hours) {
        return Err(ApiError::validation(vec![FieldError::new(
            "duration_hours",
            ErrorCode::ValidationOutOfRange,
            format!("must be 1 to {MAX_SUSPENSION_HOURS}"),
        )]));
    }
    let expires_at = now + Duration::hours(body.duration_hours);
    set_state(state, actor, now, user, ModerationStatus::Suspended, Some(reason), Some(expires_at)).await
}

pub async fn ban(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    user: &str,
    body: &BanUser,
) -> ApiResult<ModerationResult> {
    let reason = reason(&body.reason)?;
    set_state(state, actor, now, user, ModerationStatus::Banned, Some(reason), None).await
}

/// Lifts a suspension; banned users stay banned.
pub async fn unsuspend(state: &AppState, actor: &Actor, now: DateTime<Utc>, user: &str) -> ApiResult<ModerationResult> {
    set_state(state, actor, now, user, ModerationStatus::Active, None, None).await
}

/// Deletes a banned user for good: the provider account, memberships, settings,
/// onboarding and the moderation record go; content the user wrote stays, no
/// longer attributed to them.
pub async fn delete_user(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    user: String,
) -> ApiResult<ModerationResult> {
    let only_banned = |from: ModerationStatus| {
        if from == ModerationStatus::Banned {
            Ok(())
        } else {
            Err(ApiError::bad_request(format!("only banned users can be deleted; this user is {}", from.to_value())))
        }
    };
    only_banned(effective(user_moderation::Entity::find_by_id(user.clone()).one(&state.db).await?.as_ref(), now))?;
    // The provider account goes first (no transaction is held during the call):
    // if it fails nothing changed here, and a retry finds it already gone.
    if let Some(idp) = state.idp.as_deref() {
        idp.delete_user(&user).await?;
    }
    let result = audit::write(&state.db, async |txn| {
        let current = user_moderation::Entity::find_by_id(user.clone()).one(txn).await?;
        let from = effective(current.as_ref(), now);
        only_banned(from)?;
        crate::account::remove_user_data(txn, &user).await?;
        content::Entity::update_many()
            .col_expr(content::Column::CreatedBy, Expr::value(Option::<String>::None))
            .filter(content::Column::CreatedBy.eq(Actor::User(user.clone())))
            .exec(txn)
            .await?;
        user_moderation::Entity::delete_by_id(user.clone()).exec(txn).await?;
        let before = ModerationResult {
            idp_user_id: user.clone(),
            status: from,
            reason: current.as_ref().and_then(|c| c.reason.clone()),
            expires_at: None,
        };
        let result = ModerationResult {
            idp_user_id: user.clone(),
            status: ModerationStatus::Deleted,
            reason: before.reason.clone(),
            expires_at: None,
        };
        audit_moderation(txn, now, actor, &user, &before, &result).await?;
        state.forget_user(&user);
        Ok(result)
    })
    .await?;
    Ok(result)
}
