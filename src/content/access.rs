//! Who may do what to content: the resource permissions of the role table (`permissions.rs`) applied to
//! an item that may appear on several sites, and the editorial workflow rules.

use plinth_entities::{content, content_site};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

use super::model::ContentResponse;
use super::relations::{self, Relations};
use super::KindRules;
use super::{ContentKind, ContentStatus};
use crate::audit::Actor;
use crate::auth::{Capability, Principal, Role, SiteGrant, SitesGrant};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::permissions::RoleGrants;
use crate::state::AppState;

/// A live item of one kind that the caller was checked for: the row, its
/// relations, and the caller's standing on its sites. The content engine's
/// item operations take one; only the authorizers below make them.
pub struct ItemAccess {
    pub item: content::Model,
    pub relations: Relations,
    pub grant: SitesGrant,
}

impl ItemAccess {
    pub fn kind(&self) -> ContentKind {
        self.item.kind
    }

    pub fn id(&self) -> Uuid {
        self.item.id
    }

    pub fn actor(&self) -> &Actor {
        self.grant.actor()
    }

    pub fn role(&self) -> Role {
        self.grant.role()
    }

    /// Whether the caller made the item (authors change only their own).
    pub fn is_own(&self) -> bool {
        self.item.created_by.as_ref() == Some(self.grant.actor())
    }

    /// The item as answered.
    pub fn response(&self) -> ContentResponse {
        relations::response(&self.item, self.relations.clone())
    }
}

/// The live item `id` of `kind`, or 404.
pub(super) async fn load_live<C: ConnectionTrait>(db: &C, kind: ContentKind, id: Uuid) -> ApiResult<content::Model> {
    content::Entity::find_by_id(id)
        .filter(content::Column::Kind.eq(kind.as_str()))
        .filter(content::Column::IsDeleted.eq(false))
        .one(db)
        .await?
        .ok_or_else(|| ApiError::not_found(kind.as_str(), id))
}

/// The live item `id` of `kind` (404 otherwise) and its relations, before
/// anyone is checked on them.
async fn live_item(
    state: &AppState,
    kind: ContentKind,
    id: Uuid,
    with_taxonomy: bool,
) -> ApiResult<(content::Model, Relations)> {
    let item = load_live(&state.db, kind, id).await?;
    let relations = relations::load(&state.db, &[id], with_taxonomy).await?.remove(&id).unwrap_or_default();
    Ok((item, relations))
}

/// Read access to a site's list of `kind`: the Read role and the module on.
pub async fn site_read(
    state: &AppState,
    principal: &Principal,
    kind: ContentKind,
    site_id: Uuid,
) -> ApiResult<SiteGrant> {
    let site = principal.require(state, site_id, Capability::Read).await?;
    require_module(state, kind, &[site_id]).await?;
    Ok(site)
}

/// The caller's standing on every site a new item is to appear on (the
/// creation checks what it may do there).
pub async fn new_item(state: &AppState, principal: &Principal, site_ids: &[Uuid]) -> ApiResult<SitesGrant> {
    principal.standing_on_all(state, site_ids).await
}

/// Read access to an existing item: the caller's highest role among the item's
/// sites it can see, where the kind's module is on for at least one of those.
/// No access to any site: the first deny code; modules off: MODULE_NOT_ENABLED.
pub async fn readable(state: &AppState, principal: &Principal, kind: ContentKind, id: Uuid) -> ApiResult<ItemAccess> {
    readable_with(state, principal, kind, id, true).await
}

/// [`readable`], with the item's taxonomy loaded or not.
pub async fn readable_with(
    state: &AppState,
    principal: &Principal,
    kind: ContentKind,
    id: Uuid,
    with_taxonomy: bool,
) -> ApiResult<ItemAccess> {
    let (item, relations) = live_item(state, kind, id, with_taxonomy).await?;
    let grant = principal.standing_on_any(state, &relations.site_ids).await?;
    let mut module_on = false;
    for site_id in grant.site_ids() {
        module_on |= kind.module_enabled(&state.site_state(*site_id).await?.settings);
    }
    if !module_on {
        return Err(ApiError::new(
            ErrorCode::ModuleNotEnabled,
            format!("the {} module is not enabled for this item's sites", kind.module_name()),
        ));
    }
    Ok(ItemAccess { item, relations, grant })
}

/// The live item of `kind` at `route` on the site (pages' public paths), for
/// a caller who may read it.
pub async fn readable_at_route(
    state: &AppState,
    principal: &Principal,
    kind: ContentKind,
    site_id: Uuid,
    route: &str,
) -> ApiResult<ItemAccess> {
    let found = content_site::Entity::find()
        .filter(content_site::Column::SiteId.eq(site_id))
        .filter(content_site::Column::Kind.eq(kind.as_str()))
        .filter(content_site::Column::Route.eq(route))
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found(kind.as_str(), route))?;
    readable(state, principal, kind, found.content_id).await
}

/// The item of `kind` with this slug on any site the caller can read. Slugs are
/// unique per site only, so the first readable one by id answers; when none is,
/// the first refusal does.
pub async fn readable_by_slug(
    state: &AppState,
    principal: &Principal,
    kind: ContentKind,
    slug: &str,
) -> ApiResult<ItemAccess> {
    let candidates: Vec<Uuid> = content_site::Entity::find()
        .filter(content_site::Column::Kind.eq(kind.as_str()))
        .filter(content_site::Column::Slug.eq(slug))
        .order_by_asc(content_site::Column::ContentId)
        .all(&state.db)
        .await?
        .into_iter()
        .map(|row| row.content_id)
        .collect();
    let mut first_error = None;
    for id in candidates {
        match readable(state, principal, kind, id).await {
            Ok(item) => return Ok(item),
            Err(e) => first_error = first_error.or(Some(e)),
        }
    }
    Err(first_error.unwrap_or_else(|| ApiError::not_found(kind.as_str(), slug)))
}

/// An existing item, its relations and the caller's role on all its sites
/// (the lowest), with the module checked: read through the pool, before any
/// write transaction. What the caller may then do is the operation's rule.
pub async fn on_all_sites(
    state: &AppState,
    principal: &Principal,
    kind: ContentKind,
    id: Uuid,
    with_taxonomy: bool,
) -> ApiResult<ItemAccess> {
    let (item, relations) = live_item(state, kind, id, with_taxonomy).await?;
    let grant = principal.standing_on_all(state, &relations.site_ids).await?;
    require_module(state, kind, &relations.site_ids).await?;
    Ok(ItemAccess { item, relations, grant })
}

/// [`on_all_sites`] for a change of the item's own fields: authors change only
/// their own unpublished items, editors and above anything.
pub async fn editable(
    state: &AppState,
    principal: &Principal,
    kind: ContentKind,
    id: Uuid,
    with_taxonomy: bool,
) -> ApiResult<ItemAccess> {
    let access = on_all_sites(state, principal, kind, id, with_taxonomy).await?;
    require_may_edit(access.role(), access.is_own(), access.item.status, kind)?;
    Ok(access)
}

/// An item about to be updated with a body naming `new_site_ids` (or keeping
/// its sites): the caller's standing on every site it is on or moves to,
/// checked before the body is, so a caller refused on its sites hears 403,
/// never an error that depends on the item's current fields.
pub async fn for_update(
    state: &AppState,
    principal: &Principal,
    kind: ContentKind,
    id: Uuid,
    new_site_ids: Option<&[Uuid]>,
) -> ApiResult<ItemAccess> {
    let (item, relations) = live_item(state, kind, id, true).await?;
    let grant = principal.standing_on_all(state, &touched_sites(&relations, new_site_ids)).await?;
    Ok(ItemAccess { item, relations, grant })
}

/// The sites an update touches: those the item is on, then the new ones.
pub fn touched_sites(current: &Relations, new_site_ids: Option<&[Uuid]>) -> Vec<Uuid> {
    let mut touched = current.site_ids.clone();
    touched.extend(new_site_ids.unwrap_or_default().iter().filter(|s| !current.site_ids.contains(s)));
    touched
}

/// The grant's role, once it is known to cover every one of `site_ids` (an
/// operation given a grant for other sites is a bug, not a refusal).
pub fn role_covering(grant: &SitesGrant, site_ids: &[Uuid]) -> ApiResult<Role> {
    match site_ids.iter().find(|site| !grant.site_ids().contains(site)) {
        Some(site) => Err(ApiError::internal(format!("the caller was not checked on site {site}"))),
        None => Ok(grant.role()),
    }
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
