//! What kind of thing a row is: a content item's kind, an audit entry's action,
//! a notification's kind. Stored as the API and the audit trail spell them;
//! a stored value nobody knows fails the row's read.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

/// The kinds of content the engine serves (what each needs of the engine is
/// answered by `content::kind` in the service).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum, Serialize, Deserialize, utoipa::ToSchema,
)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
#[serde(rename_all = "snake_case")]
pub enum ContentKind {
    #[sea_orm(string_value = "blog")]
    Blog,
    #[sea_orm(string_value = "page")]
    Page,
    #[sea_orm(string_value = "project")]
    Project,
    #[sea_orm(string_value = "cv_entry")]
    CvEntry,
    #[sea_orm(string_value = "legal")]
    Legal,
    #[sea_orm(string_value = "skill")]
    Skill,
}

impl ContentKind {
    pub const ALL: [ContentKind; 6] = [
        ContentKind::Blog,
        ContentKind::Page,
        ContentKind::Project,
        ContentKind::CvEntry,
        ContentKind::Legal,
        ContentKind::Skill,
    ];

    /// The entity type (stored kind, trash `entity_type`, audit, errors).
    pub fn as_str(self) -> &'static str {
        match self {
            ContentKind::Blog => "blog",
            ContentKind::Page => "page",
            ContentKind::Project => "project",
            ContentKind::CvEntry => "cv_entry",
            ContentKind::Legal => "legal",
            ContentKind::Skill => "skill",
        }
    }

    pub fn parse(raw: &str) -> Option<ContentKind> {
        ContentKind::ALL.into_iter().find(|k| k.as_str() == raw)
    }
}

/// What an audit entry records was done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum, Serialize, utoipa::ToSchema)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
#[serde(rename_all = "lowercase")]
pub enum AuditAction {
    #[sea_orm(string_value = "create")]
    Create,
    #[sea_orm(string_value = "update")]
    Update,
    #[sea_orm(string_value = "delete")]
    Delete,
    #[sea_orm(string_value = "restore")]
    Restore,
    #[sea_orm(string_value = "revoke")]
    Revoke,
    #[sea_orm(string_value = "purge")]
    Purge,
}

impl AuditAction {
    pub const ALL: [AuditAction; 6] = [
        AuditAction::Create,
        AuditAction::Update,
        AuditAction::Delete,
        AuditAction::Restore,
        AuditAction::Revoke,
        AuditAction::Purge,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AuditAction::Create => "create",
            AuditAction::Update => "update",
            AuditAction::Delete => "delete",
            AuditAction::Restore => "restore",
            AuditAction::Revoke => "revoke",
            AuditAction::Purge => "purge",
        }
    }

    pub fn parse(raw: &str) -> Option<AuditAction> {
        AuditAction::ALL.into_iter().find(|a| a.as_str() == raw)
    }
}

/// What a notification tells its reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum, Serialize, utoipa::ToSchema)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
#[serde(rename_all = "snake_case")]
pub enum NotificationKind {
    /// An item of the reader's site waits for review.
    #[sea_orm(string_value = "review_requested")]
    ReviewRequested,
}

impl NotificationKind {
    pub fn as_str(self) -> &'static str {
        match self {
            NotificationKind::ReviewRequested => "review_requested",
        }
    }
}

#[cfg(test)]
mod tests {
    use sea_orm::{ActiveEnum, Iterable};

    use super::*;

    /// The stored value, the wire name and `as_str` are one spelling.
    #[test]
    fn every_kind_and_action_is_listed_and_spelled_once() {
        for kind in ContentKind::ALL {
            assert_eq!(kind.to_value(), kind.as_str());
            assert_eq!(ContentKind::parse(kind.as_str()), Some(kind));
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
        assert_eq!(ContentKind::iter().count(), ContentKind::ALL.len());
        for action in AuditAction::ALL {
            assert_eq!(action.to_value(), action.as_str());
            assert_eq!(AuditAction::parse(action.as_str()), Some(action));
        }
        assert_eq!(AuditAction::iter().count(), AuditAction::ALL.len());
    }
}
