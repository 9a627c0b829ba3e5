//! The kinds of content the engine serves. Everything kind-specific that the
//! shared code needs to know is answered here.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::ErrorCode;
use crate::state::SiteSettings;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContentKind {
    Blog,
    Page,
    Project,
    CvEntry,
    Legal,
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

    /// The entity type (trash `entity_type`, audit, errors).
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

    /// The prefix of this kind's event names (`cv.created`); `None` for kinds the
    /// spec defines no events for.
    pub fn event_prefix(self) -> Option<&'static str> {
        match self {
            ContentKind::CvEntry => Some("cv"),
            ContentKind::Skill => None,
            other => Some(other.as_str()),
        }
    }

    /// Items of this kind are visible without a publishing step: they are
    /// created Published unless a status is given.
    pub fn published_by_default(self) -> bool {
        self == ContentKind::Skill
    }

    /// `per_page` of this kind's list when none is given.
    pub fn default_per_page(self) -> u64 {
        match self {
            ContentKind::Skill => 25,
            _ => crate::pagination::DEFAULT_PER_PAGE,
        }
    }

    pub fn parse(raw: &str) -> Option<ContentKind> {
        ContentKind::ALL.into_iter().find(|k| k.as_str() == raw)
    }

    /// Whether the site's module for this kind is on.
    pub fn module_enabled(self, settings: &SiteSettings) -> bool {
        match self {
            ContentKind::Blog => settings.module_blog_enabled,
            ContentKind::Page => settings.module_pages_enabled,
            ContentKind::Project | ContentKind::CvEntry | ContentKind::Skill => settings.module_portfolio_enabled,
            ContentKind::Legal => settings.module_legal_enabled,
        }
    }

    pub fn module_name(self) -> &'static str {
        match self {
            ContentKind::Blog => "blog",
            ContentKind::Page => "pages",
            ContentKind::Project | ContentKind::CvEntry | ContentKind::Skill => "portfolio",
            ContentKind::Legal => "legal",
        }
    }

    /// The code for a bulk `UpdateStatus` without a status.
    pub fn bulk_status_required(self) -> ErrorCode {
        match self {
            ContentKind::Blog => ErrorCode::BlogBulkStatusRequired,
            ContentKind::Page => ErrorCode::PageBulkStatusRequired,
            ContentKind::Project => ErrorCode::ProjectBulkStatusRequired,
            ContentKind::CvEntry => ErrorCode::CvBulkStatusRequired,
            // The spec names no code of their own for these.
            ContentKind::Legal | ContentKind::Skill => ErrorCode::BadRequest,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ContentKind::{self, *};

    #[test]
    fn every_kind_is_listed_and_parses_back() {
        // Adding a variant breaks this match until it is sorted here and in ALL.
        let listed = |kind: ContentKind| match kind {
            Blog | Page | Project | CvEntry | Legal | Skill => ContentKind::ALL.contains(&kind),
        };
        for kind in [Blog, Page, Project, CvEntry, Legal, Skill] {
            assert!(listed(kind), "{kind:?} missing from ALL");
            assert_eq!(ContentKind::parse(kind.as_str()), Some(kind));
        }
    }
}
