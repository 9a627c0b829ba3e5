//! Who may read an audit trail: the caller needs the capability on one of the
//! sites the entries are listed under; entries on no site (global locales,
//! accounts) are for system admins.

use plinth_entities::{audit_log, audit_log_site};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

use super::service;
use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;

/// The caller needs `capability` on one of the sites the entries are listed
/// under; entries on no site (global locales, accounts) are for system admins.
pub async fn authorize(
    state: &AppState,
    principal: &Principal,
    entries: &[audit_log::Model],
    capability: Capability,
) -> ApiResult<()> {
    if principal.is_system_admin() {
        return Ok(());
    }
    let ids: Vec<Uuid> = entries.iter().map(|e| e.id).collect();
    let mut sites: Vec<Uuid> = audit_log_site::Entity::find()
        .filter(audit_log_site::Column::AuditId.is_in(ids))
        .all(&state.db)
        .await?
        .into_iter()
        .map(|r| r.site_id)
        .chain(entries.iter().filter_map(|e| e.site_id))
        .collect();
    sites.sort();
    sites.dedup();
    let mut refusal = ApiError::new(ErrorCode::Forbidden, "this audit trail is not on any site; system admins only");
    for site in sites {
        match principal.require(state, site, capability).await {
            Ok(_) => return Ok(()),
            Err(e) => refusal = e,
        }
    }
    Err(refusal)
}

/// Every entry of one item, oldest first, once the caller may see them
/// (content: who may read it; anything else: site admins).
pub async fn item_entries(
    state: &AppState,
    principal: &Principal,
    entity_type: &str,
    entity_id: &str,
) -> ApiResult<Vec<audit_log::Model>> {
    let entries = service::item_entries(state, entity_type, entity_id).await?;
    authorize(state, principal, &entries, service::needed_capability(entity_type)).await?;
    Ok(entries)
}
