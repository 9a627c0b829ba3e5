//! The account gate: suspended and banned users are refused on every bearer
//! request; a lapsed suspension is lifted on the user's next request.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use dashmap::DashMap;
use plinth_entities::user_moderation;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, EntityTrait};

use super::model::{effective, ModerationStatus};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;

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

    fn forget_all(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.known.clear();
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
            if row.status == ModerationStatus::Active {
                return Ok(false);
            }
            let mut lifted: user_moderation::ActiveModel = row.into();
            lifted.status = Set(ModerationStatus::Active);
            lifted.expires_at = Set(None);
            lifted.updated_by = Set(plinth_entities::actor::Actor::System);
            lifted.updated_at = Set(now);
            lifted.update(&state.db).await?;
            Ok(true)
        }
    }
}
