//! Who may touch a media file: the caller's rights on the file's sites. Reads
//! need them on one of the sites, changes on all of them, so a file shared by
//! two sites is not changed by a member of only one.

use uuid::Uuid;

use super::records::{self, Media};
use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;

/// The file `id` (in the trash too when `with_trashed`), once the caller has
/// `capability` on every one of its sites (writes) or on one of them (reads).
pub async fn find(
    state: &AppState,
    principal: &Principal,
    id: Uuid,
    capability: Capability,
    with_trashed: bool,
) -> ApiResult<Media> {
    let media = records::load(state, id, with_trashed).await?;
    authorize(state, principal, &media.site_ids, capability).await?;
    Ok(media)
}

/// The live file `id` (not in the trash), as [`find`] answers it.
pub async fn live(state: &AppState, principal: &Principal, id: Uuid, capability: Capability) -> ApiResult<Media> {
    find(state, principal, id, capability, false).await
}

/// Reads need `capability` on one of the sites; changes on all of them, so a
/// file shared by two sites is not changed by a member of only one.
pub async fn authorize(
    state: &AppState,
    principal: &Principal,
    site_ids: &[Uuid],
    capability: Capability,
) -> ApiResult<()> {
    if site_ids.is_empty() {
        return Err(no_site());
    }
    if capability == Capability::Read {
        principal.require_on_any(state, site_ids, capability).await?;
    } else {
        principal.require_on_all(state, site_ids, capability).await?;
    }
    Ok(())
}

/// A file on no site: nobody's rights reach it.
pub fn no_site() -> ApiError {
    ApiError::new(ErrorCode::AuthSiteAccessDenied, "the file belongs to no site")
}
