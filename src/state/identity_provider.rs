//! The identity provider's user-management API behind one trait, with one
//! implementation for Clerk-compatible APIs (`PLINTH_IDP_API_URL`,
//! `PLINTH_IDP_SECRET_KEY`).

use std::time::Duration;

use futures_util::future::BoxFuture;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::config::IdpConfig;
use crate::error::{ApiError, ApiResult, ErrorCode};

/// One call to the provider's user API, answer included.
const API_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest answer read (a page of users is a few hundred KiB).
const MAX_ANSWER_BYTES: usize = 8 * 1024 * 1024;
/// Ids asked of the provider at once (Clerk's largest page).
pub const USERS_PER_LOOKUP: usize = 100;

/// A user as the provider describes it; timestamps in epoch seconds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderUser {
    pub id: String,
    pub email: Option<String>,
    pub name: Option<String>,
    pub image_url: Option<String>,
    /// The CMS role kept in the provider's public metadata.
    pub role: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    pub last_sign_in_at: Option<i64>,
}

pub trait IdentityProvider: Send + Sync {
    /// A page of users and the total count.
    fn list_users(&self, limit: u64, offset: u64) -> BoxFuture<'_, ApiResult<(Vec<ProviderUser>, u64)>>;
    fn get_user<'a>(&'a self, id: &'a str) -> BoxFuture<'a, ApiResult<ProviderUser>>;
    /// The users among `ids` the provider knows, in one request per
    /// [`USERS_PER_LOOKUP`] ids; ids a provider could not have issued are skipped.
    fn users_by_id<'a>(&'a self, ids: &'a [String]) -> BoxFuture<'a, ApiResult<Vec<ProviderUser>>>;
    fn set_role<'a>(&'a self, id: &'a str, role: &'a str) -> BoxFuture<'a, ApiResult<ProviderUser>>;
    /// Deleting a user the provider no longer knows succeeds.
    fn delete_user<'a>(&'a self, id: &'a str) -> BoxFuture<'a, ApiResult<()>>;
}

pub struct ClerkCompatible {
    base: String,
    secret: String,
    http: reqwest::Client,
}

impl ClerkCompatible {
    /// `None` unless both the API URL and the secret key are configured.
    pub fn from_config(config: &IdpConfig) -> Option<Self> {
        let base = config.api_url.as_deref().filter(|u| !u.is_empty())?.trim_end_matches('/').to_string();
        let secret = config.secret_key.clone().filter(|s| !s.is_empty())?;
        let http = crate::outbound::operator_client(API_TIMEOUT);
        Some(Self { base, secret, http })
    }

    async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> ApiResult<Option<Value>> {
        let mut request = self.http.request(method, format!("{}{path}", self.base)).bearer_auth(&self.secret);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response =
            request.send().await.map_err(|e| failed(format!("the identity provider is unreachable: {e}")))?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !status.is_success() {
            return Err(failed(format!("the identity provider answered {status}")));
        }
        let deadline = tokio::time::Instant::now() + API_TIMEOUT;
        let bytes = crate::outbound::read_capped(response, MAX_ANSWER_BYTES, deadline)
            .await
            .whole(MAX_ANSWER_BYTES)
            .map_err(|e| failed(format!("the identity provider's answer is unreadable: {e}")))?;
        let value = serde_json::from_slice(&bytes)
            .map_err(|e| failed(format!("the identity provider's answer is unreadable: {e}")))?;
        Ok(Some(value))
    }
}

fn failed(detail: String) -> ApiError {
    ApiError::new(ErrorCode::IdpApiFailed, detail)
}

fn not_found(id: &str) -> ApiError {
    ApiError::new(ErrorCode::IdpUserNotFound, format!("the identity provider has no user {id}"))
}

/// Path segments are sent verbatim, so ids are restricted to what providers issue.
pub fn check_identifier(id: &str) -> ApiResult<()> {
    if !id.is_empty() && id.len() <= 128 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        Ok(())
    } else {
        Err(ApiError::new(ErrorCode::IdpInvalidIdentifier, "a user id is 1 to 128 letters, digits, '_' or '-'"))
    }
}

#[derive(Deserialize)]
struct ClerkUser {
    id: String,
    #[serde(default)]
    email_addresses: Vec<ClerkEmail>,
    primary_email_address_id: Option<String>,
    first_name: Option<String>,
    last_name: Option<String>,
    image_url: Option<String>,
    #[serde(default)]
    public_metadata: Value,
    /// Milliseconds.
    created_at: i64,
    updated_at: i64,
    last_sign_in_at: Option<i64>,
}

#[derive(Deserialize)]
struct ClerkEmail {
    id: String,
    email_address: String,
}

impl From<ClerkUser> for ProviderUser {
    fn from(u: ClerkUser) -> Self {
        let email = u
            .email_addresses
            .iter()
            .find(|e| Some(&e.id) == u.primary_email_address_id.as_ref())
            .or(u.email_addresses.first())
            .map(|e| e.email_address.clone());
        let name = [u.first_name, u.last_name].into_iter().flatten().collect::<Vec<_>>().join(" ");
        ProviderUser {
            id: u.id,
            email,
            name: (!name.is_empty()).then_some(name),
            image_url: u.image_url,
            role: u.public_metadata.get("role").and_then(Value::as_str).map(str::to_string),
            created_at: u.created_at / 1000,
            updated_at: u.updated_at / 1000,
            last_sign_in_at: u.last_sign_in_at.map(|ms| ms / 1000),
        }
    }
}

fn parse_user(value: Value) -> ApiResult<ProviderUser> {
    serde_json::from_value::<ClerkUser>(value)
        .map(ProviderUser::from)
        .map_err(|e| failed(format!("the identity provider's user record is unreadable: {e}")))
}

impl IdentityProvider for ClerkCompatible {
    fn list_users(&self, limit: u64, offset: u64) -> BoxFuture<'_, ApiResult<(Vec<ProviderUser>, u64)>> {
        Box::pin(async move {
            let page = self
                .send(reqwest::Method::GET, &format!("/users?limit={limit}&offset={offset}&order_by=-created_at"), None)
                .await?
                .ok_or_else(|| failed("the identity provider has no user list".into()))?;
            let users = page
                .as_array()
                .ok_or_else(|| failed("the identity provider's user list is not an array".into()))?
                .iter()
                .cloned()
                .map(parse_user)
                .collect::<ApiResult<Vec<_>>>()?;
            let count = self.send(reqwest::Method::GET, "/users/count", None).await?.unwrap_or_default();
            let total = count["total_count"].as_u64().unwrap_or(users.len() as u64);
            Ok((users, total))
        })
    }

    fn get_user<'a>(&'a self, id: &'a str) -> BoxFuture<'a, ApiResult<ProviderUser>> {
        Box::pin(async move {
            let found = self.send(reqwest::Method::GET, &format!("/users/{id}"), None).await?;
            parse_user(found.ok_or_else(|| not_found(id))?)
        })
    }

    fn users_by_id<'a>(&'a self, ids: &'a [String]) -> BoxFuture<'a, ApiResult<Vec<ProviderUser>>> {
        Box::pin(async move {
            // Only ids made of what `check_identifier` allows go into the query
            // string, so none needs escaping.
            let askable: Vec<&str> = ids.iter().map(String::as_str).filter(|id| check_identifier(id).is_ok()).collect();
            let mut found = Vec::with_capacity(askable.len());
            for chunk in askable.chunks(USERS_PER_LOOKUP) {
                let filter: String = chunk.iter().map(|id| format!("&user_id={id}")).collect();
                let page = self
                    .send(reqwest::Method::GET, &format!("/users?limit={}{filter}", chunk.len()), None)
                    .await?
                    .ok_or_else(|| failed("the identity provider has no user list".into()))?;
                let users = page
                    .as_array()
                    .ok_or_else(|| failed("the identity provider's user list is not an array".into()))?;
                for user in users {
                    found.push(parse_user(user.clone())?);
                }
            }
            Ok(found)
        })
    }

    fn set_role<'a>(&'a self, id: &'a str, role: &'a str) -> BoxFuture<'a, ApiResult<ProviderUser>> {
        Box::pin(async move {
            let body = json!({"public_metadata": {"role": role}});
            let updated = self.send(reqwest::Method::PATCH, &format!("/users/{id}/metadata"), Some(body)).await?;
            parse_user(updated.ok_or_else(|| not_found(id))?)
        })
    }

    fn delete_user<'a>(&'a self, id: &'a str) -> BoxFuture<'a, ApiResult<()>> {
        Box::pin(async move {
            self.send(reqwest::Method::DELETE, &format!("/users/{id}"), None).await?;
            Ok(())
        })
    }
}
