//! Each site's bot protection: ALTCHA proof-of-work signed with the site's own
//! key (the default), or a remote verifier (Turnstile, hCaptcha, reCAPTCHA and
//! the like: the token is POSTed form-encoded as `secret` and `response`, and
//! the JSON answer's boolean `success` decides). Every doubt fails closed.

use std::time::Duration;

use chrono::{DateTime, Utc};
use plinth_entities::{altcha_spent, site_bot_protection};
use sea_orm::sea_query::OnConflict;
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

use super::altcha::{self, Challenge, Solution};
use super::model::{BotMode, BotProtection, BotProtectionResponse, BotProtectionUpdate};
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError};
use crate::outbound::{self, BodyEnd, Refusal};
use crate::state::AppState;

/// How long a challenge may be solved and submitted.
pub const CHALLENGE_TTL_SECS: i64 = 600;
/// The widget searches 0..=maxnumber: about 0.1-0.5 s in a browser.
pub const CHALLENGE_MAXNUMBER: u64 = 100_000;
/// The longest token accepted (ALTCHA payloads are ~300 bytes; remote tokens ~2 KiB).
const MAX_TOKEN_BYTES: usize = 8 * 1024;

/// A remote verifier's whole call, answer included.
const VERIFY_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest verifier answer read: theirs are a few hundred bytes of JSON.
const VERIFY_ANSWER_CAP: usize = 4 * 1024;

fn new_key() -> String {
    let mut key = [0u8; 32];
    rand::RngCore::fill_bytes(&mut rand::rng(), &mut key);
    hex::encode(key)
}

/// The site's settings; a site that never configured any gets ALTCHA with a
/// fresh key (created once, whoever asks first).
pub async fn settings(state: &AppState, site_id: Uuid) -> ApiResult<site_bot_protection::Model> {
    if let Some(found) = site_bot_protection::Entity::find_by_id(site_id).one(&state.db).await? {
        return Ok(found);
    }
    let row = site_bot_protection::ActiveModel {
        site_id: Set(site_id),
        mode: Set(BotMode::Altcha.as_str().into()),
        altcha_key: Set(new_key()),
        verify_url: Set(None),
        remote_secret: Set(None),
        updated_at: Set(state.clock.now()),
    };
    site_bot_protection::Entity::insert(row)
        .on_conflict(OnConflict::column(site_bot_protection::Column::SiteId).do_nothing().to_owned())
        .exec_without_returning(&state.db)
        .await?;
    site_bot_protection::Entity::find_by_id(site_id)
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::internal("bot protection settings vanished"))
}

pub fn mode_of(row: &site_bot_protection::Model) -> BotMode {
    if row.mode == BotMode::Remote.as_str() {
        BotMode::Remote
    } else {
        BotMode::Altcha
    }
}

pub fn response(row: &site_bot_protection::Model) -> BotProtectionResponse {
    BotProtectionResponse {
        site_id: row.site_id,
        mode: mode_of(row),
        verify_url: row.verify_url.clone(),
        secret_set: row.remote_secret.is_some(),
        updated_at: row.updated_at,
    }
}

/// Applies `body`; a remote verifier's URL passes the SSRF guard first.
pub async fn update(state: &AppState, site_id: Uuid, body: BotProtectionUpdate) -> ApiResult<BotProtectionResponse> {
    let current = settings(state, site_id).await?;
    let mode = body.mode.unwrap_or(mode_of(&current));
    let verify_url = match body.verify_url {
        Some(Some(url)) => Some(checked_url(state, &url).await?),
        Some(None) => None,
        None => current.verify_url.clone(),
    };
    let secret = match body.secret {
        Some(s) => s.filter(|s| !s.is_empty()),
        None => current.remote_secret.clone(),
    };
    if mode == BotMode::Remote && verify_url.is_none() {
        return Err(ApiError::validation(vec![FieldError::new(
            "verify_url",
            ErrorCode::ValidationRequiredField,
            "remote mode needs a verify_url",
        )]));
    }
    let mut row: site_bot_protection::ActiveModel = current.into();
    row.mode = Set(mode.as_str().into());
    row.verify_url = Set(verify_url);
    row.remote_secret = Set(secret);
    if body.regenerate_key {
        row.altcha_key = Set(new_key());
    }
    row.updated_at = Set(state.clock.now());
    let touched = [crate::db::Touched::Content(site_id)];
    let saved = state.db.write(&touched, async |txn| sea_orm::ActiveModelTrait::update(row, txn).await).await?;
    Ok(response(&saved))
}

async fn checked_url(state: &AppState, raw: &str) -> ApiResult<String> {
    match state.outbound.check(raw).await {
        Ok(url) => Ok(url.to_string()),
        Err(Refusal::Invalid(why) | Refusal::Private(why)) => {
            Err(ApiError::validation(vec![FieldError::new("verify_url", ErrorCode::ValidationInvalidFormat, why)]))
        }
    }
}

fn key_bytes(row: &site_bot_protection::Model) -> ApiResult<Vec<u8>> {
    hex::decode(&row.altcha_key).map_err(|_| ApiError::internal("stored ALTCHA key is not hex"))
}

/// A fresh challenge, or 409 when the site verifies remotely.
pub async fn challenge(state: &AppState, site_id: Uuid) -> ApiResult<Challenge> {
    let row = settings(state, site_id).await?;
    if mode_of(&row) != BotMode::Altcha {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            "this site's forms are protected by a remote verifier, not ALTCHA",
        ));
    }
    Ok(altcha::Challenge::issue(
        &key_bytes(&row)?,
        state.clock.now(),
        chrono::Duration::seconds(CHALLENGE_TTL_SECS),
        CHALLENGE_MAXNUMBER,
    ))
}

/// A token that passed and must be spent with the submission.
pub enum Passed {
    /// Nothing to check (`none`, or `optional` without a token).
    Unchecked,
    /// An ALTCHA solution: [`spend`] it in the submission's transaction.
    Altcha(Solution),
    /// The remote verifier said yes (it keeps its own replay state).
    Remote,
}

/// Verifies `token` as the form's protection level and the site's mode ask.
pub async fn verify(state: &AppState, site_id: Uuid, level: BotProtection, token: Option<&str>) -> ApiResult<Passed> {
    let token = token.map(str::trim).filter(|t| !t.is_empty());
    let token = match (level, token) {
        (BotProtection::None, _) | (BotProtection::Optional, None) => return Ok(Passed::Unchecked),
        (BotProtection::Mandatory, None) => {
            return Err(ApiError::new(ErrorCode::BotProtectionMissing, "this form needs a bot_protection_token"))
        }
        (_, Some(token)) => token,
    };
    let invalid = |why: &str| ApiError::new(ErrorCode::BotProtectionInvalid, format!("the bot protection token {why}"));
    if token.len() > MAX_TOKEN_BYTES {
        return Err(invalid("is too long"));
    }
    let row = settings(state, site_id).await?;
    match mode_of(&row) {
        BotMode::Altcha => altcha::verify(token, &key_bytes(&row)?, state.clock.now())
            .map(Passed::Altcha)
            .map_err(|refusal| invalid(&format!("was refused: {refusal}"))),
        BotMode::Remote => {
            let (Some(url), Some(secret)) = (row.verify_url.as_deref(), row.remote_secret.as_deref()) else {
                return Err(ApiError::new(
                    ErrorCode::BotProtectionNotConfigured,
                    "remote bot protection has no verify_url or secret configured",
                ));
            };
            if remote_says_yes(state, url, secret, token).await? {
                Ok(Passed::Remote)
            } else {
                Err(invalid("was refused by the verifier"))
            }
        }
    }
}

async fn remote_says_yes(state: &AppState, url: &str, secret: &str, token: &str) -> ApiResult<bool> {
    let unavailable = |why: String| ApiError::new(ErrorCode::BotProtectionProviderError, why);
    let refused = || unavailable("the verifier's address is not allowed".into());
    let deadline = tokio::time::Instant::now() + VERIFY_TIMEOUT;
    let request = state.outbound.request(reqwest::Method::POST, url).await.map_err(|_| refused())?;
    let answer = request
        .timeout(VERIFY_TIMEOUT)
        .header("user-agent", concat!("Plinth-Forms/", env!("CARGO_PKG_VERSION")))
        .form(&[("secret", secret), ("response", token)])
        .send()
        .await
        .map_err(|e| match outbound::refusal_of(&e) {
            Some(_) => refused(),
            None => unavailable(format!("the verifier could not be reached: {}", outbound::describe(&e))),
        })?;
    if !answer.status().is_success() {
        return Err(unavailable(format!("the verifier answered {}", answer.status().as_u16())));
    }
    let body = outbound::read_capped(answer, VERIFY_ANSWER_CAP, deadline).await;
    match body.end {
        BodyEnd::Complete => {}
        BodyEnd::CapReached => {
            return Err(unavailable(format!("the verifier's answer is over {VERIFY_ANSWER_CAP} bytes")))
        }
        BodyEnd::TimedOut | BodyEnd::Failed => {
            return Err(unavailable("the verifier's answer did not arrive whole".into()))
        }
    }
    let body: serde_json::Value =
        serde_json::from_slice(&body.bytes).map_err(|_| unavailable("the verifier's answer is not JSON".into()))?;
    body.get("success")
        .and_then(serde_json::Value::as_bool)
        .ok_or_else(|| unavailable("the verifier's answer has no boolean success".into()))
}

/// Marks an ALTCHA solution spent, inside the submission's transaction: a
/// second use breaks the primary key (on every instance, across restarts).
pub async fn spend<C: ConnectionTrait>(db: &C, solution: &Solution) -> ApiResult<()> {
    let row = altcha_spent::ActiveModel {
        replay_key: Set(solution.replay_key.clone()),
        expires_at: Set(solution.expires_at),
    };
    altcha_spent::Entity::insert(row)
        .exec_without_returning(db)
        .await
        .map_err(on_constraint(Constraint::Unique, || {
            ApiError::new(ErrorCode::BotProtectionInvalid, "the bot protection token was already used")
        }))?;
    Ok(())
}

/// Forgets spent solutions whose challenges expired (they no longer verify).
pub async fn sweep_spent(state: &AppState, now: DateTime<Utc>) -> ApiResult<u64> {
    let done =
        altcha_spent::Entity::delete_many().filter(altcha_spent::Column::ExpiresAt.lt(now)).exec(&state.db).await?;
    Ok(done.rows_affected)
}
