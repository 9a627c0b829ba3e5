//! User moderation by system admins: suspend (for a time), ban, unsuspend, and
//! delete a banned user. Suspended and banned users are refused on every call.
//!
//! The state is read from the database on each bearer-token request (one
//! primary-key lookup) rather than cached in memory, so a ban takes effect at
//! once on every instance of a multi-process deployment.

use actix_web::web::{self};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use actix_web::HttpResponse;
use chrono::{DateTime, Duration, Utc};
use dashmap::DashMap;
use plinth_entities::{content, user_moderation};
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::audit::{self, Action, AuditEntry};
use crate::auth::Principal;
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError, Problem};
use crate::routes::Routes;
use crate::state::AppState;

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [suspend_user, ban_user, unsuspend_user, delete_user]);
}

/// Longest suspension: one year.
const MAX_SUSPENSION_HOURS: i64 = 24 * 366;
const REASON_MAX: usize = 2_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ModerationStatus {
    Active,
    Suspended,
    Banned,
    Deleted,
}

impl ModerationStatus {
    fn as_str(self) -> &'static str {
        match self {
            ModerationStatus::Active => "active",
            ModerationStatus::Suspended => "suspended",
            ModerationStatus::Banned => "banned",
            ModerationStatus::Deleted => "deleted",
        }
    }

    fn parse(raw: &str) -> Self {
        match raw {
            "suspended" => ModerationStatus::Suspended,
            "banned" => ModerationStatus::Banned,
            _ => ModerationStatus::Active,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct ModerationResult {
    pub idp_user_id: String,
    pub status: ModerationStatus,
    pub reason: Option<String>,
    pub expires_at: Option<DateTime<Utc>>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct SuspendUser {
    pub reason: String,
    /// 1 to 8784 (a year).
    pub duration_hours: i64,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct BanUser {
    pub reason: String,
}

/// The moderation state in effect at `now`: an expired suspension is active.
pub(crate) fn effective(row: Option<&user_moderation::Model>, now: DateTime<Utc>) -> ModerationStatus {
    match row {
        None => ModerationStatus::Active,
        Some(r) => match ModerationStatus::parse(&r.status) {
            ModerationStatus::Suspended if r.expires_at.is_some_and(|at| at <= now) => ModerationStatus::Active,
            status => status,
        },
    }
}

/// The account gate of `auth`: suspended and banned users are refused on every
/// bearer request. Moderation records are kept in memory, so a request reads the
/// database only for a user not seen for [`ModerationGate::KEEP_FOR`]: the
/// moderation endpoints drop a user's entry at once on this instance, and other
/// instances see a change within that time.
#[derive(Default)]
pub struct ModerationGate {
    known: DashMap<String, (Instant, Option<user_moderation::Model>)>,
    /// Bumped by every `forget`: a record read before a change is not kept after it.
    generation: AtomicU64,
}

impl ModerationGate {
    const KEEP_FOR: std::time::Duration = std::time::Duration::from_secs(30);
    const MAX_ENTRIES: usize = 100_000;

    async fn record(&self, state: &AppState, idp_user_id: &str) -> ApiResult<Option<user_moderation::Model>> {
        if let Some(entry) = self.known.get(idp_user_id) {
            if entry.0.elapsed() < Self::KEEP_FOR {
                return Ok(entry.1.clone());
            }
        }
        let generation = self.generation.load(Ordering::Acquire);
        let row = user_moderation::Entity::find_by_id(idp_user_id.to_string()).one(&state.db).await?;
        if self.known.len() >= Self::MAX_ENTRIES {
            self.known.retain(|_, (at, _)| at.elapsed() < Self::KEEP_FOR);
        }
        // A moderation change that committed while we read may not be in `row`:
        // keep it only if no `forget` ran meanwhile (checked again after the
        // insert, so a `forget` between check and insert still removes it).
        if self.generation.load(Ordering::Acquire) == generation {
            self.known.insert(idp_user_id.to_string(), (Instant::now(), row.clone()));
            if self.generation.load(Ordering::Acquire) != generation {
                self.known.remove(idp_user_id);
            }
        }
        Ok(row)
    }
}

impl crate::state::AccountGate for ModerationGate {
    fn may_act<'a>(
        &'a self,
        state: &'a AppState,
        idp_user_id: &'a str,
    ) -> futures_util::future::BoxFuture<'a, ApiResult<()>> {
        Box::pin(async move {
            let row = self.record(state, idp_user_id).await?;
            let lifted = ensure_may_act(state, row).await?;
            if lifted {
                self.forget(idp_user_id);
            }
            Ok(())
        })
    }

    fn forget(&self, idp_user_id: &str) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.known.remove(idp_user_id);
    }
}

/// Refuses a suspended or banned user. A lapsed suspension is lifted here, on the
/// user's next request (then answers `true`).
async fn ensure_may_act(state: &AppState, row: Option<user_moderation::Model>) -> ApiResult<bool> {
    let Some(row) = row else {
        return Ok(false);
    };
    let now = state.clock.now();
    match effective(Some(&row), now) {
        ModerationStatus::Banned => Err(ApiError::new(ErrorCode::AccountBanned, "this account is banned")),
        ModerationStatus::Suspended => Err(ApiError::new(
            ErrorCode::AccountSuspended,
            match row.expires_at {
                Some(at) => format!("this account is suspended until {}", at.to_rfc3339()),
                None => "this account is suspended".to_string(),
            },
        )),
        ModerationStatus::Active | ModerationStatus::Deleted => {
            if row.status == ModerationStatus::Active.as_str() {
                return Ok(false);
            }
            let mut lifted: user_moderation::ActiveModel = row.into();
            lifted.status = Set(ModerationStatus::Active.as_str().into());
            lifted.expires_at = Set(None);
            lifted.updated_by = Set("system".into());
            lifted.updated_at = Set(now);
            lifted.update(&state.db).await?;
            Ok(true)
        }
    }
}

fn require_system_admin(principal: &Principal) -> ApiResult<()> {
    if principal.is_system_admin() {
        Ok(())
    } else {
        Err(ApiError::new(ErrorCode::AuthInsufficientRole, "user moderation needs a system admin or a Master key"))
    }
}

fn reason(raw: &str) -> ApiResult<String> {
    let trimmed = raw.trim();
    if trimmed.is_empty() || trimmed.len() > REASON_MAX {
        return Err(ApiError::validation(vec![FieldError::new(
            "reason",
            ErrorCode::ValidationError,
            format!("must be 1 to {REASON_MAX} characters"),
        )]));
    }
    Ok(trimmed.to_string())
}

/// Writes the new state with its audit entry, in one transaction.
async fn set_state(
    state: &AppState,
    principal: &Principal,
    user: &str,
    allowed_from: &[ModerationStatus],
    to: ModerationStatus,
    reason: Option<String>,
    expires_at: Option<DateTime<Utc>>,
) -> ApiResult<ModerationResult> {
    let now = state.clock.now();
    let txn = crate::db::begin_write(&state.db).await?;
    let current = user_moderation::Entity::find_by_id(user.to_string()).one(&txn).await?;
    let from = effective(current.as_ref(), now);
    if !allowed_from.contains(&from) {
        return Err(ApiError::bad_request(format!("a {} user cannot be made {}", from.as_str(), to.as_str())));
    }
    let before = ModerationResult {
        idp_user_id: user.to_string(),
        status: from,
        reason: current.as_ref().and_then(|c| c.reason.clone()),
        expires_at: current.as_ref().and_then(|c| c.expires_at),
    };
    let row = user_moderation::ActiveModel {
        idp_user_id: Set(user.to_string()),
        status: Set(to.as_str().into()),
        reason: Set(reason.clone()),
        expires_at: Set(expires_at),
        updated_by: Set(principal.actor_id()),
        updated_at: Set(now),
    };
    if current.is_some() {
        row.update(&txn).await?;
    } else {
        row.insert(&txn).await?;
    }
    let result = ModerationResult { idp_user_id: user.to_string(), status: to, reason, expires_at };
    audit_moderation(&txn, now, principal, user, &before, &result).await?;
    txn.commit().await?;
    state.account_gate.forget(user);
    Ok(result)
}

async fn audit_moderation<C: ConnectionTrait>(
    txn: &C,
    at: DateTime<Utc>,
    principal: &Principal,
    user: &str,
    before: &ModerationResult,
    after: &ModerationResult,
) -> ApiResult<()> {
    let actor = principal.actor_id();
    let entry = AuditEntry {
        actor: &actor,
        action: Action::Update,
        entity_type: "user_moderation",
        entity_id: user.into(),
        site_id: None,
    };
    audit::record(txn, at, entry, before, after).await?;
    Ok(())
}

#[utoipa::path(
    post,
    path = "/admin/users/{idp_user_id}/suspend",
    tag = "Moderation",
    params(("idp_user_id" = String, Path)),
    request_body = SuspendUser,
    responses(
        (status = 200, body = ModerationResult),
        (status = 400, body = Problem, description = "The user is banned")
    )
)]
pub async fn suspend_user(
    state: web::Data<AppState>,
    principal: Principal,
    user: web::Path<String>,
    body: web::Json<SuspendUser>,
) -> ApiResult<HttpResponse> {
    require_system_admin(&principal)?;
    let body = body.into_inner();
    let reason = reason(&body.reason)?;
    if !(1..=MAX_SUSPENSION_HOURS).contains(&body.duration_hours) {
        return Err(ApiError::validation(vec![FieldError::new(
            "duration_hours",
            ErrorCode::ValidationOutOfRange,
            format!("must be 1 to {MAX_SUSPENSION_HOURS}"),
        )]));
    }
    let expires_at = state.clock.now() + Duration::hours(body.duration_hours);
    let allowed = [ModerationStatus::Active, ModerationStatus::Suspended];
    let result =
        set_state(&state, &principal, &user, &allowed, ModerationStatus::Suspended, Some(reason), Some(expires_at))
            .await?;
    Ok(HttpResponse::Ok().json(result))
}

#[utoipa::path(
    post,
    path = "/admin/users/{idp_user_id}/ban",
    tag = "Moderation",
    params(("idp_user_id" = String, Path)),
    request_body = BanUser,
    responses((status = 200, body = ModerationResult))
)]
pub async fn ban_user(
    state: web::Data<AppState>,
    principal: Principal,
    user: web::Path<String>,
    body: web::Json<BanUser>,
) -> ApiResult<HttpResponse> {
    require_system_admin(&principal)?;
    let reason = reason(&body.reason)?;
    let allowed = [ModerationStatus::Active, ModerationStatus::Suspended];
    let result = set_state(&state, &principal, &user, &allowed, ModerationStatus::Banned, Some(reason), None).await?;
    Ok(HttpResponse::Ok().json(result))
}

#[utoipa::path(
    post,
    path = "/admin/users/{idp_user_id}/unsuspend",
    tag = "Moderation",
    params(("idp_user_id" = String, Path)),
    responses(
        (status = 200, body = ModerationResult),
        (status = 400, body = Problem, description = "Banned users stay banned")
    )
)]
pub async fn unsuspend_user(
    state: web::Data<AppState>,
    principal: Principal,
    user: web::Path<String>,
) -> ApiResult<HttpResponse> {
    require_system_admin(&principal)?;
    let allowed = [ModerationStatus::Active, ModerationStatus::Suspended];
    let result = set_state(&state, &principal, &user, &allowed, ModerationStatus::Active, None, None).await?;
    Ok(HttpResponse::Ok().json(result))
}

/// Irreversible: the provider account, memberships, settings, onboarding and the
/// moderation record go; content the user wrote stays, no longer attributed to them.
#[utoipa::path(
    delete,
    path = "/admin/users/{idp_user_id}",
    tag = "Moderation",
    params(("idp_user_id" = String, Path)),
    responses(
        (status = 200, body = ModerationResult, description = "status deleted"),
        (status = 400, body = Problem, description = "Only banned users can be deleted")
    )
)]
pub async fn delete_user(
    state: web::Data<AppState>,
    principal: Principal,
    user: web::Path<String>,
) -> ApiResult<HttpResponse> {
    require_system_admin(&principal)?;
    let user = user.into_inner();
    let now = state.clock.now();
    let only_banned = |from: ModerationStatus| {
        if from == ModerationStatus::Banned {
            Ok(())
        } else {
            Err(ApiError::bad_request(format!("only banned users can be deleted; this user is {}", from.as_str())))
        }
    };
    only_banned(effective(user_moderation::Entity::find_by_id(user.clone()).one(&state.db).await?.as_ref(), now))?;
    // The provider account goes first (no transaction is held during the call):
    // if it fails nothing changed here, and a retry finds it already gone.
    if let Some(idp) = state.idp.as_deref() {
        idp.delete_user(&user).await?;
    }
    let txn = crate::db::begin_write(&state.db).await?;
    let current = user_moderation::Entity::find_by_id(user.clone()).one(&txn).await?;
    let from = effective(current.as_ref(), now);
    only_banned(from)?;
    let sites = crate::account::remove_user_data(&txn, &user).await?;
    content::Entity::update_many()
        .col_expr(content::Column::CreatedBy, Expr::value(Option::<String>::None))
        .filter(content::Column::CreatedBy.eq(format!("user:{user}")))
        .exec(&txn)
        .await?;
    user_moderation::Entity::delete_by_id(user.clone()).exec(&txn).await?;
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
    audit_moderation(&txn, now, &principal, &user, &before, &result).await?;
    txn.commit().await?;
    state.account_gate.forget(&user);
    for site_id in sites {
        state.invalidate_site(site_id);
    }
    Ok(HttpResponse::Ok().json(result))
}
