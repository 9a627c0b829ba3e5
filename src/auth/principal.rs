//! The authenticated caller, extracted from `X-API-Key` or `Authorization: Bearer`.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;

use actix_web::dev::Payload;
use actix_web::http::header::{HeaderName, HeaderValue, AUTHORIZATION, RETRY_AFTER};
use actix_web::{web, FromRequest, HttpMessage, HttpRequest};
use chrono::{DateTime, Utc};
use futures_util::future::LocalBoxFuture;
use plinth_actors::{KeyDecision, RateLimitStatus};
use plinth_entities::actor::Actor;
use plinth_entities::site_member;
use sea_orm::sea_query::{Expr, ExprTrait, Query};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

use super::grant::{SiteGrant, SitesGrant, Visibility};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::permissions::KeyGrants;
use crate::permissions::{Capability, KeyPermission, Role};
use crate::state::keys::ApiKeyRecord;
use crate::state::AppState;

/// A `HeaderName`, not a string: a lookup by string parses the name every time.
pub const API_KEY_HEADER: HeaderName = HeaderName::from_static("x-api-key");

#[derive(Clone, Debug)]
pub struct UserIdentity {
    pub idp_user_id: String,
    pub email: Option<String>,
    pub name: Option<String>,
    pub picture: Option<String>,
    /// When the identity provider signed the user in (the token's `iat`).
    pub signed_in_at: Option<DateTime<Utc>>,
    /// When this token stops being accepted (`exp`).
    pub session_expires_at: Option<DateTime<Utc>>,
}

#[derive(Clone, Debug)]
pub enum Credential {
    ApiKey(Arc<ApiKeyRecord>),
    User(UserIdentity),
}

#[derive(Clone, Debug)]
pub struct Principal {
    pub credential: Credential,
    system_admin: bool,
}

/// What a check on "any of these sites" answers when it was given none.
fn no_site_given() -> ApiError {
    ApiError::new(ErrorCode::AuthSiteAccessDenied, "no access")
}

impl Principal {
    pub fn api_key(&self) -> Option<&ApiKeyRecord> {
        match &self.credential {
            Credential::ApiKey(key) => Some(key),
            Credential::User(_) => None,
        }
    }

    pub fn user(&self) -> Option<&UserIdentity> {
        match &self.credential {
            Credential::User(user) => Some(user),
            Credential::ApiKey(_) => None,
        }
    }

    /// For JWT-only endpoints: the user, or `code` for key callers.
    pub fn require_user(&self, code: ErrorCode) -> ApiResult<&UserIdentity> {
        self.user().ok_or_else(|| {
            ApiError::new(code, "this endpoint needs an identity-provider (JWT) sign-in, not an API key")
        })
    }

    /// A Master key or a configured system admin.
    pub fn is_system_admin(&self) -> bool {
        self.system_admin
    }

    /// Who this caller is in the audit trail and as an owner of what it made.
    pub fn actor(&self) -> Actor {
        match &self.credential {
            Credential::ApiKey(key) => Actor::ApiKey(key.id),
            Credential::User(user) => Actor::User(user.idp_user_id.clone()),
        }
    }

    /// Who the request's writes wait for their turn as (`db::write_turns`):
    /// a scoped key's site, else the caller.
    fn note_tenant(&self) {
        match &self.credential {
            Credential::ApiKey(key) => {
                if let Some(site) = key.site_id {
                    crate::tenant::note_site(site);
                }
                crate::tenant::note_caller(key.id.simple().encode_lower(&mut Uuid::encode_buffer()));
            }
            Credential::User(user) => crate::tenant::note_caller(&user.idp_user_id),
        }
    }

    /// The role this caller acts with on `site_id`, or why it has none there.
    async fn site_role(&self, state: &AppState, site_id: Uuid) -> ApiResult<Role> {
        // What this request reads or writes is the site's: its cached responses
        // follow the site's generation.
        crate::state::responses::note_site(site_id);
        if self.system_admin {
            return Ok(Role::Owner);
        }
        match &self.credential {
            Credential::ApiKey(key) => match key.site_id {
                Some(scope) if scope != site_id => {
                    Err(ApiError::new(ErrorCode::AuthApiKeySiteDenied, "this API key is scoped to another site"))
                }
                _ => Ok(key.permission.site_role()),
            },
            Credential::User(user) => {
                let not_member = || ApiError::new(ErrorCode::AuthSiteAccessDenied, "you are not a member of this site");
                // A live site's members are in its cached state, dropped by every
                // member change on this instance.
                if let Ok(site) = state.site_state(site_id).await {
                    return site.members.get(&user.idp_user_id).copied().ok_or_else(not_member);
                }
                // A deleted site (its owner may restore it) or an unknown one.
                let membership = site_member::Entity::find()
                    .filter(site_member::Column::SiteId.eq(site_id))
                    .filter(site_member::Column::IdpUserId.eq(user.idp_user_id.as_str()))
                    .one(&state.db)
                    .await?;
                membership.map(|m| m.role).ok_or_else(not_member)
            }
        }
    }

    /// The caller's standing on `site_id`, whatever its role (the service's
    /// own rules decide what it may do), or why it has none there.
    pub async fn standing(&self, state: &AppState, site_id: Uuid) -> ApiResult<SiteGrant> {
        let role = self.site_role(state, site_id).await?;
        Ok(SiteGrant::new(site_id, role, self.actor()))
    }

    /// Fails with the spec's code unless the caller has `capability` on `site_id`.
    pub async fn require(&self, state: &AppState, site_id: Uuid, capability: Capability) -> ApiResult<SiteGrant> {
        let grant = self.standing(state, site_id).await?;
        grant.ensure(capability, "this")?;
        Ok(grant)
    }

    /// The caller's standing on every one of `site_ids` (the lowest role), or
    /// the deny code of the first site it cannot act on.
    pub async fn standing_on_all(&self, state: &AppState, site_ids: &[Uuid]) -> ApiResult<SitesGrant> {
        let mut lowest = Role::Owner;
        for site_id in site_ids {
            lowest = std::cmp::min(lowest, self.site_role(state, *site_id).await?);
        }
        Ok(SitesGrant::new(site_ids.to_vec(), lowest, self.actor()))
    }

    /// Fails with the first refusal, site by site in order, unless the caller
    /// has `capability` on every one of `site_ids`; its standing on all of them
    /// (the lowest role) otherwise.
    pub async fn require_on_all(
        &self,
        state: &AppState,
        site_ids: &[Uuid],
        capability: Capability,
    ) -> ApiResult<SitesGrant> {
        let mut lowest = Role::Owner;
        for site_id in site_ids {
            lowest = std::cmp::min(lowest, self.require(state, *site_id, capability).await?.role());
        }
        Ok(SitesGrant::new(site_ids.to_vec(), lowest, self.actor()))
    }

    /// The caller's grant on the first of `site_ids` where it has
    /// `capability` (reading something that lives on several sites), or the
    /// first refusal when it has it on none of them.
    pub async fn require_on_any(
        &self,
        state: &AppState,
        site_ids: &[Uuid],
        capability: Capability,
    ) -> ApiResult<SiteGrant> {
        let mut first_error = None;
        for site_id in site_ids {
            match self.require(state, *site_id, capability).await {
                Ok(grant) => return Ok(grant),
                Err(e) => first_error = first_error.or(Some(e)),
            }
        }
        Err(first_error.unwrap_or_else(no_site_given))
    }

    /// The caller's standing among `site_ids` where it has one: those sites and
    /// its highest role there (for reading something that lives on several
    /// sites); the first deny code when it has none.
    pub async fn standing_on_any(&self, state: &AppState, site_ids: &[Uuid]) -> ApiResult<SitesGrant> {
        let mut best: Option<Role> = None;
        let mut granted = Vec::with_capacity(site_ids.len());
        let mut first_error = None;
        for site_id in site_ids {
            match self.site_role(state, *site_id).await {
                Ok(role) => {
                    best = std::cmp::max(best, Some(role));
                    granted.push(*site_id);
                }
                Err(e) => first_error = first_error.or(Some(e)),
            }
        }
        let role = best.ok_or_else(|| first_error.unwrap_or_else(no_site_given))?;
        Ok(SitesGrant::new(granted, role, self.actor()))
    }

    /// Sites this caller may see, for lists across sites.
    pub fn visibility(&self) -> Visibility {
        Visibility::new(self.visible_sites(), self.actor())
    }

    /// Sites this caller may see, as a condition on site ids: `None` means all
    /// of them. A user's memberships stay a subquery (`ix_site_members_user`),
    /// never one bound value per membership.
    fn visible_sites(&self) -> Option<sea_orm::sea_query::SimpleExpr> {
        if self.system_admin {
            return None;
        }
        match &self.credential {
            Credential::ApiKey(key) => key.site_id.map(|id| Expr::col(plinth_entities::site::Column::Id).eq(id)),
            Credential::User(user) => {
                let memberships = Query::select()
                    .column(site_member::Column::SiteId)
                    .from(site_member::Entity)
                    .and_where(site_member::Column::IdpUserId.eq(user.idp_user_id.as_str()))
                    .to_owned();
                Some(plinth_entities::site::Column::Id.in_subquery(memberships))
            }
        }
    }
}

/// Why this request's credentials were refused, kept for a second extraction.
#[derive(Clone)]
struct FailedAuthentication(ApiError);

impl FromRequest for Principal {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            if let Some(known) = req.extensions().get::<Principal>() {
                return Ok(known.clone());
            }
            // Authentication runs once per request (a failure counts once
            // towards the address's lockout), whoever asks first.
            if let Some(FailedAuthentication(error)) = req.extensions().get::<FailedAuthentication>() {
                return Err(error.clone());
            }
            let state = req
                .app_data::<web::Data<AppState>>()
                .ok_or_else(|| ApiError::internal("application state missing"))?
                .clone();
            match authenticate(&req, &state).await {
                Ok(principal) => {
                    principal.note_tenant();
                    req.extensions_mut().insert(principal.clone());
                    Ok(principal)
                }
                Err(error) => {
                    req.extensions_mut().insert(FailedAuthentication(error.clone()));
                    Err(error)
                }
            }
        })
    }
}

/// The client of `req`: the TCP peer, or the address a trusted reverse proxy
/// forwarded for (`trusted_proxies`; see `crate::client_ip`). Every per-address
/// limit and the analytics visitor hash read it.
pub fn client_address(req: &HttpRequest) -> IpAddr {
    let peer = req.peer_addr().map_or(IpAddr::V4(Ipv4Addr::LOCALHOST), |a| a.ip());
    match req.app_data::<web::Data<AppState>>() {
        Some(state) => crate::client_ip::resolve(peer, req.headers(), &state.config.trusted_proxies),
        None => peer.to_canonical(),
    }
}

fn retry_after(secs: u64) -> (HeaderName, HeaderValue) {
    (RETRY_AFTER, HeaderValue::from(secs))
}

async fn authenticate(req: &HttpRequest, state: &AppState) -> ApiResult<Principal> {
    let headers = req.headers();
    let api_key = headers.get(&API_KEY_HEADER).map(|v| v.to_str().unwrap_or_default().trim());
    let authorization = headers.get(AUTHORIZATION).map(|v| v.to_str().unwrap_or_default().trim());
    if api_key.is_none() && authorization.is_none() {
        return Err(ApiError::new(
            ErrorCode::AuthMissingCredentials,
            "send an X-API-Key header or an Authorization: Bearer token",
        ));
    }

    // The failed-authentication lockout, designed so it cannot be turned into a
    // denial of service. It used to refuse every request from an address in
    // cool-down, valid credentials included; behind a NAT or a reverse proxy
    // many clients share an address, so 21 wrong keys from anyone locked every
    // integration out for 5 minutes. Now:
    //
    // - every credential is checked first, and a valid one is always accepted,
    //   even from an address in cool-down. Keys carry 256 random bits and tokens
    //   are signed, so no rate of guessing finds one: the lockout was never what
    //   protects them (a hand-chosen PLINTH_BOOTSTRAP_API_KEY must be as long);
    // - each failure (unknown or revoked key, bad token) counts against the
    //   client's address (`client_address`: behind trusted proxies, the address
    //   they forwarded for). Past `rate_limits.auth_failures_per_minute` (20) in
    //   a minute the address cools down for `rate_limits.auth_cooldown_secs`
    //   (300 s);
    // - during the cool-down, failures from that address are answered
    //   429 AUTH_RATE_LIMITED with Retry-After instead of 401 (without
    //   extending it): a client retrying a wrong or revoked credential is told
    //   to back off, and the address is logged once as it starts cooling down.
    // A key wins when both are sent.
    let result = match api_key {
        Some(secret) => authenticate_key(req, state, secret).await,
        None => authenticate_bearer(state, authorization.unwrap_or_default()).await,
    };
    let Err(error) = result else { return result };
    if !matches!(
        error.code(),
        ErrorCode::AuthApiKeyInvalid
            | ErrorCode::AuthTokenInvalid
            | ErrorCode::AuthTokenAudience
            | ErrorCode::AuthTokenIssuer
    ) {
        return Err(error);
    }
    // With PLINTH_REDIS_URL the failures are counted across instances.
    if let Some(secs) = state.rate_limits.record_auth_failure(client_address(req)).await {
        let (name, value) = retry_after(secs);
        return Err(ApiError::new(
            ErrorCode::AuthRateLimited,
            format!("too many failed authentications from this address; try again in {secs} s"),
        )
        .with_header(name, value));
    }
    Err(error)
}

/// Marks a request made with an authenticated API key: its answer is kept
/// among the key's newest requests once it is known (`system::metrics`).
#[derive(Clone, Copy, Debug)]
pub struct UsedKey(pub Uuid);

async fn authenticate_key(req: &HttpRequest, state: &AppState, secret: &str) -> ApiResult<Principal> {
    let now = state.clock.now();
    let key = state.keys.authenticate(&state.db, secret, now).await?.ok_or_else(|| {
        ApiError::new(ErrorCode::AuthApiKeyInvalid, "the API key is unknown, revoked, blocked or expired")
    })?;

    match state.rate_limits.check_key(key.id, key.limits).await {
        KeyDecision::Unlimited => {}
        KeyDecision::Allowed(status) => {
            req.extensions_mut().insert(status);
        }
        KeyDecision::Denied(status) => return Err(rate_limited(&status)),
        KeyDecision::Unavailable => return Err(limits_unavailable()),
    }
    state.key_usage.record(key.id, now);
    req.extensions_mut().insert(UsedKey(key.id));
    Ok(Principal { system_admin: key.permission == KeyPermission::Master, credential: Credential::ApiKey(key) })
}

/// A key hammering past its limit is answered at the rate it hammers: the
/// problem body is rendered once per window (`per-second`, …) and kept; only
/// `Retry-After` and the `RateLimit` fields are written per answer.
fn rate_limited(status: &RateLimitStatus) -> ApiError {
    static RENDERED: std::sync::LazyLock<dashmap::DashMap<&'static str, ApiError>> =
        std::sync::LazyLock::new(dashmap::DashMap::new);
    let render = || {
        let detail = format!("the API key's {} limit is used up; retry after Retry-After seconds", status.tightest);
        ApiError::new(ErrorCode::RateLimitExceeded, detail).prerendered()
    };
    // Read-locked once rendered: every 429 of every key reads the same few.
    let rendered = match RENDERED.get(status.tightest) {
        Some(rendered) => rendered.clone(),
        None => RENDERED.entry(status.tightest).or_insert_with(render).clone(),
    };
    rendered.with_headers(
        std::iter::once(retry_after(status.retry_after_secs.unwrap_or(1))).chain(rate_limit_headers(status)),
    )
}

/// Limits are shared through Redis, Redis does not answer, and
/// `redis.fail_open = false`: a limited key is refused rather than counted per
/// instance (keys without limits are unaffected).
fn limits_unavailable() -> ApiError {
    let (name, value) = retry_after(1);
    ApiError::new(
        ErrorCode::ServiceUnavailable,
        "the API key's rate limits cannot be checked right now (shared limit store unreachable); retry shortly",
    )
    .with_header(name, value)
}

/// `RateLimit-Policy` and `RateLimit` (IETF httpapi rate-limit headers draft).
/// Every answer to a limited key carries them, so they are built without a
/// list or a second copy of the `RateLimit` text.
pub fn rate_limit_headers(status: &RateLimitStatus) -> impl Iterator<Item = (HeaderName, HeaderValue)> {
    let policy = HeaderValue::from_str(status.policy_header()).ok();
    let limit = HeaderValue::try_from(status.limit_header()).ok();
    let named = |name: &'static str, value: Option<HeaderValue>| value.map(|v| (HeaderName::from_static(name), v));
    named("ratelimit-policy", policy).into_iter().chain(named("ratelimit", limit))
}

async fn authenticate_bearer(state: &AppState, authorization: &str) -> ApiResult<Principal> {
    let token = authorization
        .strip_prefix("Bearer ")
        .or_else(|| authorization.strip_prefix("bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            ApiError::new(ErrorCode::AuthTokenInvalid, "the Authorization header must be 'Bearer <token>'")
        })?;
    // What Strapi and Directus users try first: a bad credential, not a
    // server fault (it used to answer 500 AUTH_IDP_NOT_CONFIGURED).
    if token.starts_with(crate::state::keys::KEY_PREFIX) {
        return Err(ApiError::new(
            ErrorCode::AuthTokenInvalid,
            "an API key goes in the X-API-Key header, not in Authorization: Bearer (send X-API-Key: plk_…)",
        ));
    }
    let verifier = state.jwt.as_ref().ok_or_else(|| {
        ApiError::new(
            ErrorCode::AuthIdpNotConfigured,
            "bearer tokens are not accepted: no identity provider is configured",
        )
    })?;
    let claims = verifier.verify(token, state.clock.now()).await?;
    state.account_gate.may_act(state, &claims.sub).await?;
    let system_admin = state.config.system_admins.iter().any(|id| id == &claims.sub);
    Ok(Principal {
        system_admin,
        credential: Credential::User(UserIdentity {
            idp_user_id: claims.sub,
            email: claims.email,
            name: claims.name,
            picture: claims.picture,
            signed_in_at: claims.iat.and_then(|t| DateTime::from_timestamp(t, 0)),
            session_expires_at: DateTime::from_timestamp(claims.exp, 0),
        }),
    })
}
