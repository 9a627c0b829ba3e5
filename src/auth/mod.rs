//! The caller of a request (an API key or a bearer token, resolved against the
//! state's key store, token verifier and account gate) and the permission checks
//! families make on it. The permission table itself is `crate::permissions`.

mod grant;
mod principal;

pub use grant::{Granted, SiteGrant, SitesGrant, Visibility};

pub use crate::permissions::{Capability, KeyCapability, KeyGrants, KeyPermission, Role, RoleGrants};
pub use principal::{client_address, rate_limit_headers, Credential, Principal, UsedKey, UserIdentity, API_KEY_HEADER};
