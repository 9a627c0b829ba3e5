//! The kinds of content the engine serves. Everything kind-specific that the
//! shared code needs to know is answered here.

use crate::error::ErrorCode;
use crate::events::Subject;
use crate::state::SiteSettings;

pub use plinth_entities::kinds::ContentKind;

/// What the engine needs to know of each kind beyond its name (the name and
/// the list of kinds are the entity's, stored in the `kind` columns).
pub trait KindRules {
    fn event_subject(self) -> Option<Subject>;
    fn published_by_default(self) -> bool;
    fn default_per_page(self) -> u64;
    fn module_enabled(self, settings: &SiteSettings) -> bool;
    fn module_name(self) -> &'static str;
    fn bulk_status_required(self) -> ErrorCode;
}

impl KindRules for ContentKind {
    /// What this kind's events are about (`cv.created`); `None` for kinds the
    /// spec defines no events for.
    fn event_subject(self) -> Option<Subject> {
        match self {
            ContentKind::Blog => Some(Subject::Blog),
            ContentKind::Page => Some(Subject::Page),
            ContentKind::Legal => Some(Subject::Legal),
            ContentKind::CvEntry => Some(Subject::Cv),
            ContentKind::Project => Some(Subject::Project),
            ContentKind::Skill => None,
        }
    }

    /// Items of this kind are visible without a publishing step: they are
    /// created Published unless a status is given.
    fn published_by_default(self) -> bool {
        self == ContentKind::Skill
    }

    /// `per_page` of this kind's list when none is given.
    fn default_per_page(self) -> u64 {
        match self {
            ContentKind::Skill => 25,
            _ => crate::pagination::DEFAULT_PER_PAGE,
        }
    }

    /// Whether the site's module for this kind is on.
    fn module_enabled(self, settings: &SiteSettings) -> bool {
        match self {
            ContentKind::Blog => settings.module_blog_enabled,
            ContentKind::Page => settings.module_pages_enabled,
            ContentKind::Project | ContentKind::CvEntry | ContentKind::Skill => settings.module_portfolio_enabled,
            ContentKind::Legal => settings.module_legal_enabled,
        }
    }

    fn module_name(self) -> &'static str {
        match self {
            ContentKind::Blog => "blog",
            ContentKind::Page => "pages",
            ContentKind::Project | ContentKind::CvEntry | ContentKind::Skill => "portfolio",
            ContentKind::Legal => "legal",
        }
    }

    /// The code for a bulk `UpdateStatus` without a status.
    fn bulk_status_required(self) -> ErrorCode {
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
