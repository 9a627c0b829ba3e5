//! Private documents: making one private (its bytes encrypted in storage) and
//! public again, checking passwords (with a per-document lock after 3
//! failures and a per-client limit), access tokens and unlocking.

use std::net::IpAddr;

use base64::engine::general_purpose::{STANDARD as B64, URL_SAFE_NO_PAD};
use base64::Engine;
use chrono::{DateTime, Duration, Utc};
use plinth_entities::document;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, ExprTrait, QueryFilter};
use serde_json::json;
use uuid::Uuid;

use super::crypto::{self, CryptoError, Key};
use super::model::{AccessToken, MakePrivate};
use super::service::{response, save};
use super::stream;
use crate::audit::{Action, Actor};
use crate::db::Touched;
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::events::EventAction;
use crate::state::AppState;

/// Wrong passwords before a document locks.
pub const MAX_ATTEMPTS: i32 = 3;
pub const TOKEN_LIFETIME_SECS: i64 = 3600;
const TOKEN_PREFIX: &str = "pdt_";

fn crypto_error(code: ErrorCode, e: CryptoError) -> ApiError {
    tracing::error!(error = %e, "document cryptography failed");
    ApiError::new(code, "the document could not be processed")
}

/// Runs the key derivation on the blocking pool, never on a request thread.
async fn derive(password: String, salt: Vec<u8>, params: String) -> ApiResult<Key> {
    tokio::task::spawn_blocking(move || crypto::derive(&password, &salt, &params))
        .await
        .map_err(|e| ApiError::internal(format!("key derivation stopped: {e}")))?
        .map_err(|e| crypto_error(ErrorCode::DocumentEncryptionFailed, e))
}

fn recovery(state: &AppState) -> Option<Key> {
    state.config.document_encryption_key.as_deref().map(crypto::recovery_key)
}

pub async fn make_private(
    state: &AppState,
    actor: &Actor,
    doc: document::Model,
    body: MakePrivate,
) -> ApiResult<super::model::DocumentResponse> {
    let Some(plain_key) = doc.storage_key.clone() else {
        return Err(ApiError::new(
            ErrorCode::DocumentNotUploadable,
            "only uploaded documents can be protected; this one is a link",
        ));
    };
    if doc.is_private {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            "the document is private already; make it public first to change its password",
        ));
    }
    let now = state.clock.now();
    if let Some(expires) = body.expires_at {
        if expires <= now || expires > now + Duration::days(365) {
            return Err(ApiError::new(
                ErrorCode::DocumentInvalidTtl,
                "expires_at must be in the future and at most one year ahead",
            ));
        }
    }
    let length = body.password.chars().count();
    if !(8..=1024).contains(&length) {
        return Err(ApiError::validation(vec![FieldError::new(
            "password",
            ErrorCode::ValidationOutOfRange,
            "must be 8 to 1024 characters",
        )]));
    }
    let salt: [u8; 16] = rand::random();
    let params = crypto::kdf_params();
    let password_key = derive(body.password, salt.to_vec(), params.clone()).await?;
    let data_key = crypto::random_key();
    let context = doc.id.as_bytes().to_vec();
    let fail = |e| crypto_error(ErrorCode::DocumentEncryptionFailed, e);
    let sealed = crypto::seal(&password_key, &data_key, &context).map_err(fail)?;
    let recovery_sealed = recovery(state).map(|k| crypto::seal(&k, &data_key, &context)).transpose().map_err(fail)?;
    let key_id = Uuid::new_v4().simple().to_string();
    let encrypted_key = format!("documents/{}/{key_id}.enc", doc.id);
    stream::encrypt_object(state, &plain_key, &encrypted_key, &data_key).await?;
    let before = json!(response(state, &doc, None));
    let mut row: document::ActiveModel = doc.into();
    row.is_private = Set(true);
    row.storage_key = Set(Some(encrypted_key.clone()));
    row.key_id = Set(Some(key_id));
    row.kdf_salt = Set(Some(B64.encode(salt)));
    row.kdf_params = Set(Some(params));
    row.sealed_key = Set(Some(sealed));
    row.recovery_sealed_key = Set(recovery_sealed);
    row.expires_at = Set(body.expires_at);
    row.failed_attempts = Set(0);
    row.locked_at = Set(None);
    row.updated_at = Set(now);
    let stored = match save(state, actor, Action::Update, &before, row, Some(EventAction::Updated)).await {
        Ok(stored) => stored,
        Err(e) => {
            let _ = state.storage.delete(&encrypted_key).await;
            return Err(e);
        }
    };
    // The plaintext is gone from storage once the ciphertext is the record's.
    if let Err(e) = state.storage.delete(&plain_key).await {
        tracing::error!(error = %e, "could not remove a private document's plaintext");
    }
    Ok(response(state, &stored, None))
}

/// The data key from the password, or from the operator's recovery key when
/// no password is given.
async fn data_key_for_owner(state: &AppState, doc: &document::Model, password: Option<String>) -> ApiResult<Key> {
    let context = doc.id.as_bytes();
    match password.filter(|p| !p.is_empty()) {
        Some(password) => match open_with_password(doc, password).await? {
            Some(key) => Ok(key),
            None => Err(ApiError::new(ErrorCode::DocumentPasswordIncorrect, "the password is wrong")),
        },
        None => {
            let (Some(recovery), Some(sealed)) = (recovery(state), doc.recovery_sealed_key.as_deref()) else {
                return Err(ApiError::new(
                    ErrorCode::DocumentPasswordRequired,
                    "send the password (no server-side recovery key covers this document)",
                ));
            };
            crypto::open_key(&recovery, sealed, context)
                .map_err(|e| crypto_error(ErrorCode::DocumentDecryptionFailed, e))
        }
    }
}

/// The data key, or `None` for a wrong password.
async fn open_with_password(doc: &document::Model, password: String) -> ApiResult<Option<Key>> {
    let (Some(salt), Some(params), Some(sealed)) = (&doc.kdf_salt, &doc.kdf_params, &doc.sealed_key) else {
        return Err(ApiError::new(ErrorCode::DocumentDecryptionFailed, "the document's key material is missing"));
    };
    let salt = B64.decode(salt).map_err(|_| ApiError::new(ErrorCode::DocumentDecryptionFailed, "unreadable salt"))?;
    let password_key = derive(password, salt, params.clone()).await?;
    match crypto::open_key(&password_key, sealed, doc.id.as_bytes()) {
        Ok(key) => Ok(Some(key)),
        Err(CryptoError::WrongKey) => Ok(None),
        Err(e) => Err(crypto_error(ErrorCode::DocumentDecryptionFailed, e)),
    }
}

pub async fn make_public(
    state: &AppState,
    actor: &Actor,
    doc: document::Model,
    password: Option<String>,
) -> ApiResult<super::model::DocumentResponse> {
    let Some(encrypted_key) = doc.storage_key.clone().filter(|_| doc.is_private) else {
        return Err(ApiError::new(ErrorCode::Conflict, "the document is not private"));
    };
    let data_key = data_key_for_owner(state, &doc, password).await?;
    let plain_key = format!("documents/{}/{}", doc.id, Uuid::new_v4().simple());
    stream::decrypt_object(state, &doc, &plain_key, &data_key).await?;
    let before = json!(response(state, &doc, None));
    let mut row: document::ActiveModel = doc.into();
    row.is_private = Set(false);
    row.storage_key = Set(Some(plain_key.clone()));
    for column in
        [&mut row.key_id, &mut row.kdf_salt, &mut row.kdf_params, &mut row.sealed_key, &mut row.recovery_sealed_key]
    {
        *column = Set(None);
    }
    row.expires_at = Set(None);
    row.failed_attempts = Set(0);
    row.locked_at = Set(None);
    row.updated_at = Set(state.clock.now());
    let stored = match save(state, actor, Action::Update, &before, row, Some(EventAction::Updated)).await {
        Ok(stored) => stored,
        Err(e) => {
            let _ = state.storage.delete(&plain_key).await;
            return Err(e);
        }
    };
    let _ = state.storage.delete(&encrypted_key).await;
    Ok(response(state, &stored, None))
}

/// The states a private document can be in before a password is even tried.
pub fn ensure_open(doc: &document::Model, now: DateTime<Utc>) -> ApiResult<()> {
    if doc.expires_at.is_some_and(|at| at <= now) {
        return Err(ApiError::new(ErrorCode::DocumentExpired, "the access window of this document has ended"));
    }
    if doc.locked_at.is_some() {
        return Err(ApiError::new(
            ErrorCode::DocumentLocked,
            "locked after 3 wrong passwords; a site admin can unlock it",
        ));
    }
    Ok(())
}

pub async fn verify_access(
    state: &AppState,
    doc: document::Model,
    client: IpAddr,
    password: Option<String>,
) -> ApiResult<AccessToken> {
    if !doc.is_private {
        return Err(ApiError::bad_request("the document is public: download it without a token"));
    }
    let now = state.clock.now();
    ensure_open(&doc, now)?;
    if let Some(wait) = state.rate_limits.document_attempts.blocked_for(client) {
        return Err(ApiError::new(
            ErrorCode::DocumentAccessRateLimited,
            "too many wrong passwords from this address; wait and try again",
        )
        .with_header(actix_web::http::header::RETRY_AFTER, wait.into()));
    }
    let Some(password) = password.filter(|p| !p.is_empty()) else {
        return Err(ApiError::new(ErrorCode::DocumentPasswordRequired, "send the document's password"));
    };
    match open_with_password(&doc, password).await? {
        Some(data_key) => {
            if doc.failed_attempts > 0 {
                let reset = document::Entity::update_many()
                    .col_expr(document::Column::FailedAttempts, Expr::value(0))
                    .filter(document::Column::Id.eq(doc.id))
                    .filter(document::Column::LockedAt.is_null());
                let touched = [Touched::Content(doc.site_id)];
                state.db.write(&touched, async |txn| reset.exec(txn).await).await?;
            }
            issue_token(state, &doc, &data_key, now).await
        }
        None => {
            state.rate_limits.document_attempts.record_failure(client);
            record_failure(state, &doc, now).await
        }
    }
}

/// Counts a wrong password in one statement, so parallel guesses each get
/// their own count; the third locks the document.
async fn record_failure(state: &AppState, doc: &document::Model, now: DateTime<Utc>) -> ApiResult<AccessToken> {
    let counted = document::Entity::update_many()
        .col_expr(document::Column::FailedAttempts, Expr::col(document::Column::FailedAttempts).add(1))
        .col_expr(
            document::Column::LockedAt,
            Expr::case(Expr::col(document::Column::FailedAttempts).add(1).gte(MAX_ATTEMPTS), Expr::value(now))
                .finally(Expr::col(document::Column::LockedAt))
                .into(),
        )
        .filter(document::Column::Id.eq(doc.id))
        .filter(document::Column::LockedAt.is_null());
    // The document's answers show the count and the lock.
    let touched = [Touched::Content(doc.site_id)];
    let counted = state.db.write(&touched, async |txn| counted.exec_with_returning(txn).await).await?;
    match counted.first() {
        Some(d) if d.locked_at.is_none() => Err(ApiError::new(
            ErrorCode::DocumentPasswordIncorrect,
            format!("the password is wrong ({} of {MAX_ATTEMPTS} attempts used)", d.failed_attempts),
        )),
        _ => {
            Err(ApiError::new(ErrorCode::DocumentLocked, "locked after 3 wrong passwords; a site admin can unlock it"))
        }
    }
}

pub async fn unlock(
    state: &AppState,
    actor: &Actor,
    doc: document::Model,
) -> ApiResult<super::model::DocumentResponse> {
    if doc.locked_at.is_none() {
        return Err(ApiError::new(ErrorCode::DocumentNotLocked, "the document is not locked"));
    }
    let before = json!(response(state, &doc, None));
    let mut row: document::ActiveModel = doc.into();
    row.locked_at = Set(None);
    row.failed_attempts = Set(0);
    row.updated_at = Set(state.clock.now());
    let stored = save(state, actor, Action::Update, &before, row, None).await?;
    Ok(response(state, &stored, None))
}

/// The key tokens are sealed with, shared by every instance.
async fn token_key(state: &AppState) -> ApiResult<Key> {
    crate::secrets::get_or_create(state, "document_access_tokens").await
}

/// A token seals (expiry ‖ key id ‖ data key) under the server's token key,
/// bound to the document: the download can decrypt without the password, and
/// a token is worthless for any other document or after the key changes.
async fn issue_token(
    state: &AppState,
    doc: &document::Model,
    data_key: &Key,
    now: DateTime<Utc>,
) -> ApiResult<AccessToken> {
    let expires_at = now + Duration::seconds(TOKEN_LIFETIME_SECS);
    let mut plain = expires_at.timestamp().to_be_bytes().to_vec();
    plain.extend_from_slice(doc.key_id.as_deref().unwrap_or_default().as_bytes());
    plain.extend_from_slice(data_key);
    let sealed = crypto::seal(&token_key(state).await?, &plain, doc.id.as_bytes())
        .map_err(|e| crypto_error(ErrorCode::DocumentEncryptionFailed, e))?;
    let bytes = B64.decode(sealed).map_err(|_| ApiError::internal("token encoding"))?;
    Ok(AccessToken { access_token: format!("{TOKEN_PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes)), expires_at })
}

/// The data key a valid, unexpired token of this document carries.
pub async fn check_token(state: &AppState, doc: &document::Model, token: &str) -> ApiResult<Key> {
    let invalid = || ApiError::new(ErrorCode::DocumentPasswordRequired, "the access token is invalid or has expired");
    let raw = token.strip_prefix(TOKEN_PREFIX).and_then(|t| URL_SAFE_NO_PAD.decode(t).ok()).ok_or_else(invalid)?;
    let plain = crypto::open(&token_key(state).await?, &B64.encode(raw), doc.id.as_bytes()).map_err(|_| invalid())?;
    let key_id = doc.key_id.as_deref().unwrap_or_default().as_bytes();
    if plain.len() != 8 + key_id.len() + 32 || &plain[8..8 + key_id.len()] != key_id {
        return Err(invalid());
    }
    let expires = i64::from_be_bytes(plain[..8].try_into().map_err(|_| invalid())?);
    if expires <= state.clock.now().timestamp() {
        return Err(invalid());
    }
    Key::try_from(&plain[8 + key_id.len()..]).map_err(|_| invalid())
}
