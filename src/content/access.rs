//! Who may do what to content: the resource permissions of the role table (`permissions.rs`) applied to
//! an item that may appear on several sites, and the editorial workflow rules.

use uuid::Uuid;

use super::KindRules;
use super::{ContentKind, ContentStatus};
use crate::auth::{Capability, Principal, Role};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::permissions::RoleGrants;
use crate::state::AppState;

/// The caller's role on every one of `site_ids`: the lowest of them, so a change
/// to an item shared by two sites needs rights on both. Fails with the deny code
/// of the first site the caller cannot act on.
pub async fn role_on_all(state: &AppState, principal: &Principal, site_ids: &[Uuid]) -> ApiResult<Role> {
    let mut lowest = Role::Owner;
    for site_id in site_ids {
        lowest = lowest.min(principal.site_role(state, *site_id).await?);
    }
    Ok(lowest)
}

/// Read access to an existing item: the caller's highest role among the item's
/// sites it can see, where the kind's module is on for at least one of those.
/// No access to any site: the first deny code; modules off: MODULE_NOT_ENABLED.
pub async fn role_on_any(
    state: &AppState,
    principal: &Principal,
    kind: ContentKind,
    site_ids: &[Uuid],
) -> ApiResult<Role> {
    let mut best: Option<Role> = None;
    let mut first_error = None;
    let mut module_on = false;
    for site_id in site_ids {
        match principal.site_role(state, *site_id).await {
            Ok(role) => {
                best = best.max(Some(role));
                module_on |= kind.module_enabled(&state.site_state(*site_id).await?.settings);
            }
            Err(e) => first_error = first_error.or(Some(e)),
        }
    }
    let role =
        best.ok_or_else(|| first_error.unwrap_or_else(|| ApiError::new(ErrorCode::AuthSiteAccessDenied, "no access")))?;
    if !module_on {
        return Err(ApiError::new(
            ErrorCode::ModuleNotEnabled,
            format!("the {} module is not enabled for this item's sites", kind.module_name()),
        ));
    }
    Ok(role)
}

/// Module gate: the kind's module must be on for every site.
pub async fn require_module(state: &AppState, kind: ContentKind, site_ids: &[Uuid]) -> ApiResult<()> {
    for site_id in site_ids {
        let site = state.site_state(*site_id).await?;
        if !kind.module_enabled(&site.settings) {
            return Err(ApiError::new(
                ErrorCode::ModuleNotEnabled,
                format!("the {} module is not enabled for site {site_id}", kind.module_name()),
            ));
        }
    }
    Ok(())
}

/// Authors change and delete only their own items, and never published ones;
/// editors and above change anything.
pub fn require_may_edit(role: Role, is_own: bool, status: ContentStatus, kind: ContentKind) -> ApiResult<()> {
    role.ensure(Capability::CreateContent, &format!("changing a {}", kind.as_str()))?;
    if role.has(Capability::EditAnyContent) {
        return Ok(());
    }
    if !is_own {
        return Err(ApiError::new(
            ErrorCode::AuthInsufficientRole,
            format!("authors may only change their own {}s", kind.as_str()),
        ));
    }
    if matches!(status, ContentStatus::Published | ContentStatus::Scheduled) {
        return Err(ApiError::new(ErrorCode::AuthInsufficientRole, "changing published content needs the editor role"));
    }
    Ok(())
}

/// Checks a status move: the lifecycle first, then who may make it.
pub fn check_status_move(role: Role, workflow_enabled: bool, from: ContentStatus, to: ContentStatus) -> ApiResult<()> {
    if from == to {
        return Ok(());
    }
    if !from.can_move_to(to) {
        return Err(ApiError::new(
            ErrorCode::ContentInvalidStatus,
            format!("content cannot move from {} to {}", from.as_str(), to.as_str()),
        ));
    }
    // A role that reviews but may not edit everything moves only what is in review.
    let reviewer_only = role.has(Capability::ReviewContent) && !role.has(Capability::EditAnyContent);
    if reviewer_only && from != ContentStatus::InReview {
        return Err(ApiError::new(
            ErrorCode::WorkflowInvalidStatus,
            "reviewers may only move content that is in review",
        ));
    }
    if to.is_publishing() {
        if workflow_enabled && from != ContentStatus::InReview {
            return Err(ApiError::new(
                ErrorCode::WorkflowReviewRequired,
                "the editorial workflow is on: submit the content for review (status InReview) first",
            ));
        }
        let needed = if workflow_enabled { Role::Reviewer } else { Role::Editor };
        if role < needed {
            return Err(ApiError::new(
                ErrorCode::WorkflowNoPermission,
                format!("publishing needs the {} role; you act as {}", needed.as_str(), role.as_str()),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ContentStatus::*;

    fn code(r: ApiResult<()>) -> Option<&'static str> {
        r.err().map(|e| e.code().as_str())
    }

    #[test]
    fn status_moves_by_role_and_workflow() {
        assert_eq!(code(check_status_move(Role::Author, false, Draft, InReview)), None);
        assert_eq!(code(check_status_move(Role::Author, false, Draft, Published)), Some("WORKFLOW_NO_PERMISSION"));
        assert_eq!(code(check_status_move(Role::Editor, false, Draft, Published)), None);
        assert_eq!(code(check_status_move(Role::Editor, true, Draft, Published)), Some("WORKFLOW_REVIEW_REQUIRED"));
        assert_eq!(code(check_status_move(Role::Reviewer, true, InReview, Published)), None);
        assert_eq!(code(check_status_move(Role::Reviewer, true, Draft, Archived)), Some("WORKFLOW_INVALID_STATUS"));
        assert_eq!(code(check_status_move(Role::Owner, false, Archived, Published)), Some("CONTENT_INVALID_STATUS"));
    }

    #[test]
    fn authors_edit_only_their_unpublished_items() {
        assert!(require_may_edit(Role::Author, true, Draft, ContentKind::Blog).is_ok());
        assert!(require_may_edit(Role::Author, false, Draft, ContentKind::Blog).is_err());
        assert!(require_may_edit(Role::Author, true, Published, ContentKind::Blog).is_err());
        assert!(require_may_edit(Role::Editor, false, Published, ContentKind::Blog).is_ok());
        assert!(require_may_edit(Role::Read, true, Draft, ContentKind::Blog).is_err());
    }
}
