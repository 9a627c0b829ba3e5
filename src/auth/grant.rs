//! What a handler hands a service once the caller is checked: the answer to
//! "who may do this", as a value. Only [`Principal`](super::Principal) makes
//! them (through the permission table), so a service that takes one cannot be
//! reached without the check, and services never see the principal itself (a
//! source rule).

use sea_orm::sea_query::SimpleExpr;
use uuid::Uuid;

use crate::audit::Actor;
use crate::error::ApiResult;
use crate::permissions::{Capability, Role, RoleGrants};

/// The caller's standing on one site: the role it acts with there and who it
/// is. Made by `Principal::require` (a capability checked) or
/// `Principal::standing` (any role; the service's own rules decide, such as
/// ownership).
#[derive(Clone, Debug)]
pub struct SiteGrant {
    site_id: Uuid,
    role: Role,
    actor: Actor,
}

impl SiteGrant {
    pub(super) fn new(site_id: Uuid, role: Role, actor: Actor) -> Self {
        Self { site_id, role, actor }
    }

    pub fn site_id(&self) -> Uuid {
        self.site_id
    }

    pub fn role(&self) -> Role {
        self.role
    }

    /// Who acts, for the audit trail and as the owner of what it makes.
    pub fn actor(&self) -> &Actor {
        &self.actor
    }

    /// Whether the role has `capability` (the permission table decides).
    pub fn has(&self, capability: Capability) -> bool {
        self.role.has(capability)
    }

    /// AUTH_INSUFFICIENT_ROLE unless the role has `capability`; `what` names
    /// the attempted action.
    pub fn ensure(&self, capability: Capability, what: &str) -> ApiResult<()> {
        self.role.ensure(capability, what)
    }
}

/// A row of one site with the caller's standing on that site: what a family's
/// authorizer answers once it found the row by id and checked the caller.
#[derive(Clone, Debug)]
pub struct Granted<T> {
    row: T,
    site: SiteGrant,
}

impl<T> Granted<T> {
    /// `site` must be the caller's standing on the row's own site.
    pub fn new(row: T, site: SiteGrant) -> Self {
        Self { row, site }
    }

    pub fn row(&self) -> &T {
        &self.row
    }

    /// The caller's standing on the row's site.
    pub fn site(&self) -> &SiteGrant {
        &self.site
    }

    pub fn into_parts(self) -> (T, SiteGrant) {
        (self.row, self.site)
    }
}

/// The caller's standing on every site of something that lives on several
/// (a content item): the lowest of its roles there, so a change to an item
/// shared by two sites needs rights on both.
#[derive(Clone, Debug)]
pub struct SitesGrant {
    site_ids: Vec<Uuid>,
    role: Role,
    actor: Actor,
}

impl SitesGrant {
    pub(super) fn new(site_ids: Vec<Uuid>, role: Role, actor: Actor) -> Self {
        Self { site_ids, role, actor }
    }

    pub fn site_ids(&self) -> &[Uuid] {
        &self.site_ids
    }

    /// The lowest role among the sites (the highest where only reading is checked).
    pub fn role(&self) -> Role {
        self.role
    }

    pub fn actor(&self) -> &Actor {
        &self.actor
    }

    pub fn has(&self, capability: Capability) -> bool {
        self.role.has(capability)
    }

    pub fn ensure(&self, capability: Capability, what: &str) -> ApiResult<()> {
        self.role.ensure(capability, what)
    }
}

/// A standing on one site is a standing on all of them, when there is one.
impl From<SiteGrant> for SitesGrant {
    fn from(site: SiteGrant) -> Self {
        Self { site_ids: vec![site.site_id], role: site.role, actor: site.actor }
    }
}

/// Which sites a caller may list things of, for reads across sites.
#[derive(Clone, Debug)]
pub struct Visibility {
    condition: Option<SimpleExpr>,
    actor: Actor,
}

impl Visibility {
    pub(super) fn new(condition: Option<SimpleExpr>, actor: Actor) -> Self {
        Self { condition, actor }
    }

    /// A condition on `sites.id`; `None` means every site. A user's
    /// memberships stay a subquery (`ix_site_members_user`).
    pub fn sites_condition(&self) -> Option<SimpleExpr> {
        self.condition.clone()
    }

    pub fn actor(&self) -> &Actor {
        &self.actor
    }
}
