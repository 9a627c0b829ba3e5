//! The account gate: whether an identity-provider user may act now. `auth` asks it
//! on every bearer request; the moderation family answers (suspensions, bans), so
//! authentication does not depend on a feature.

use futures_util::future::BoxFuture;

use super::AppState;
use crate::error::ApiResult;

pub trait AccountGate: Send + Sync {
    /// `Ok` when `idp_user_id` may act; else the refusal (ACCOUNT_SUSPENDED,
    /// ACCOUNT_BANNED).
    fn may_act<'a>(&'a self, state: &'a AppState, idp_user_id: &'a str) -> BoxFuture<'a, ApiResult<()>>;

    /// Drops what is remembered of `idp_user_id`, after their moderation changed.
    fn forget(&self, idp_user_id: &str);

    /// Drops everything remembered (notifications from other instances may have
    /// been missed).
    fn forget_all(&self);
}
