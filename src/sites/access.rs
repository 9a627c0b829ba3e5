//! Who may create a site: a check on the caller alone, made before the site
//! service runs (also by the import of an export).

use super::service::SiteCreator;
use crate::auth::{KeyCapability, KeyGrants, Principal};
use crate::error::{ApiError, ApiResult, ErrorCode};

/// Who may create sites: any JWT user; API keys only unscoped and Admin or above.
pub fn check_may_create(principal: &Principal) -> ApiResult<()> {
    if let Some(key) = principal.api_key() {
        if key.site_id.is_some() {
            return Err(ApiError::new(ErrorCode::SiteCreateScopedKey, "a site-scoped API key cannot create sites"));
        }
        if !key.permission.has(KeyCapability::CreateSites) {
            return Err(ApiError::new(ErrorCode::SiteCreateRequiresAdmin, "creating sites needs an Admin API key"));
        }
    }
    Ok(())
}

/// The caller as the creator of a new site, once [`check_may_create`] lets it.
pub fn creator(principal: &Principal) -> ApiResult<SiteCreator> {
    check_may_create(principal)?;
    Ok(SiteCreator { actor: principal.actor(), owner: principal.user().map(|user| user.idp_user_id.clone()) })
}
