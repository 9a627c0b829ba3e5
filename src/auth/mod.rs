//! Credentials, principals, roles and permission checks.

mod gate;
pub mod jwt;
pub mod keys;
mod principal;
pub mod roles;

pub use gate::AccountGate;

pub use principal::{rate_limit_headers, Credential, Principal, UserIdentity, API_KEY_HEADER};
pub use roles::{Capability, KeyCapability, KeyPermission, Role};
