//! Roles, API key permissions and what each role may do: the one permission table
//! of the service. Every check in the code asks [`Capability::min_role`].

use crate::error::{ApiError, ApiResult, ErrorCode};

/// A member's role on a site, lowest first (stored typed in `site_members.role`).
pub use plinth_entities::values::Role;

/// An API key's permission level, lowest first (stored typed in `api_keys.permission`).
pub use plinth_entities::values::KeyPermission;

/// Something a caller may be allowed to do on a site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capability {
    /// Read site data and content.
    Read,
    /// Create content; change and delete one's own.
    CreateContent,
    /// Review content submitted for review.
    ReviewContent,
    /// Change or delete anyone's content, publish.
    EditAnyContent,
    /// Settings, locales, members, webhooks, API keys, trash, export.
    AdministerSite,
    /// Delete, restore and reset the site; transfer ownership.
    OwnSite,
    /// Forms (scope `form`): create; change and delete one's own.
    ManageOwnForms,
    /// Forms: change and delete anyone's (`form:*:any`).
    ManageAnyForm,
    /// Form templates (scope `form_template`): every action.
    ManageFormTemplates,
    /// Submissions (scope `form_submission`) of forms one created: read, change, delete.
    HandleOwnFormSubmissions,
    /// Submissions of any form: read.
    ReadAnySubmissions,
    /// Submissions of any form: change status, notes, delete.
    HandleAnySubmissions,
}

/// What a role may do, from the permission table (`Role` itself is a stored
/// value, defined with the entities).
pub trait RoleGrants: Copy {
    /// Whether this role has `capability` (the permission table decides).
    fn has(self, capability: Capability) -> bool;

    /// Refuses with AUTH_INSUFFICIENT_ROLE unless this role has `capability`;
    /// `what` names the attempted action in the problem's detail.
    fn ensure(self, capability: Capability, what: &str) -> ApiResult<()>;
}

impl RoleGrants for Role {
    fn has(self, capability: Capability) -> bool {
        self >= capability.min_role()
    }

    fn ensure(self, capability: Capability, what: &str) -> ApiResult<()> {
        let needed = capability.min_role();
        if !self.has(capability) {
            return Err(ApiError::new(
                ErrorCode::AuthInsufficientRole,
                format!("{what} needs the {} role or higher; you act as {}", needed.as_str(), self.as_str()),
            ));
        }
        Ok(())
    }
}

impl Capability {
    /// The roles that have the capability, lowest first.
    pub fn roles(self) -> impl Iterator<Item = Role> {
        Role::ALL.into_iter().filter(move |r| r.has(self))
    }

    /// The permission table: the lowest role that has the capability.
    pub fn min_role(self) -> Role {
        match self {
            Capability::Read => Role::Read,
            Capability::CreateContent => Role::Author,
            Capability::ReviewContent => Role::Reviewer,
            Capability::EditAnyContent => Role::Editor,
            Capability::AdministerSite => Role::Admin,
            Capability::OwnSite => Role::Owner,
            Capability::ManageOwnForms => Role::Author,
            Capability::ManageAnyForm => Role::Editor,
            Capability::ManageFormTemplates => Role::Editor,
            Capability::HandleOwnFormSubmissions => Role::Author,
            Capability::ReadAnySubmissions => Role::Reviewer,
            Capability::HandleAnySubmissions => Role::Editor,
        }
    }
}

/// What an API key may do beyond acting on the sites in its scope. A key's scope
/// (one site or all) is checked beside this, where it matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyCapability {
    /// Create sites (with an unscoped key).
    CreateSites,
    /// Create, list and revoke API keys.
    ManageKeys,
    /// Manage the global locale list (with an unscoped key).
    ManageGlobalLocales,
    /// Read and change identity-provider users.
    ManageIdpUsers,
}

impl KeyCapability {
    /// The key half of the permission table: the lowest permission with the capability.
    pub fn min_permission(self) -> KeyPermission {
        match self {
            KeyCapability::CreateSites
            | KeyCapability::ManageKeys
            | KeyCapability::ManageGlobalLocales
            | KeyCapability::ManageIdpUsers => KeyPermission::Admin,
        }
    }
}

/// What a key's permission may do, from the permission table (`KeyPermission`
/// itself is a stored value, defined with the entities).
pub trait KeyGrants: Copy {
    /// The role a key acts with on the sites in its scope.
    fn site_role(self) -> Role;

    /// Whether a key with this permission has `capability`.
    fn has(self, capability: KeyCapability) -> bool;

    /// Whether a caller who may give keys up to `ceiling` may give (or manage)
    /// a key with this permission.
    fn within(self, ceiling: KeyPermission) -> bool;
}

impl KeyGrants for KeyPermission {
    fn site_role(self) -> Role {
        match self {
            KeyPermission::Read => Role::Read,
            KeyPermission::Write => Role::Editor,
            KeyPermission::Admin => Role::Admin,
            KeyPermission::Master => Role::Owner,
        }
    }

    fn has(self, capability: KeyCapability) -> bool {
        self >= capability.min_permission()
    }

    fn within(self, ceiling: KeyPermission) -> bool {
        self <= ceiling
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_are_ordered_and_parse_in_any_case() {
        assert!(Role::Read < Role::Author && Role::Reviewer < Role::Editor && Role::Admin < Role::Owner);
        assert_eq!(Role::parse("EDITOR"), Some(Role::Editor));
        assert_eq!(Role::parse("boss"), None);
        assert_eq!(Role::parse("viewer"), Some(Role::Read));
        assert_eq!(KeyPermission::parse("write"), Some(KeyPermission::Write));
    }

    #[test]
    fn key_permissions_map_to_roles() {
        assert_eq!(KeyPermission::Read.site_role(), Role::Read);
        assert_eq!(KeyPermission::Write.site_role(), Role::Editor);
        assert_eq!(KeyPermission::Admin.site_role(), Role::Admin);
        assert!(KeyPermission::Write.site_role() >= Capability::EditAnyContent.min_role());
        assert!(KeyPermission::Write.site_role() < Capability::AdministerSite.min_role());
    }
}
