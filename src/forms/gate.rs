//! The forms module gate: every forms endpoint answers 404 while a site has
//! `module_forms_enabled` off.

use uuid::Uuid;

use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;

/// 404 unless the site has the forms module on (the spec answers 404, not
/// MODULE_NOT_ENABLED, for this module).
pub async fn require_module(state: &AppState, site_id: Uuid) -> ApiResult<()> {
    if state.site_state(site_id).await?.settings.module_forms_enabled {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::ResourceNotFound,
            "the forms module is not enabled for this site (module_forms_enabled)",
        ))
    }
}
