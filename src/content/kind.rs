//! The kinds of content the engine serves. Everything kind-specific that the
//! shared code needs to know is answered here.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::ErrorCode;
use crate::sites::SiteSettings;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContentKind {
    Blog,
    Page,
}

impl ContentKind {
    pub const ALL: [ContentKind; 2] = [ContentKind::Blog, ContentKind::Page];

    /// The entity type (trash, audit, errors) and the event prefix (`blog.created`).
    pub fn as_str(self) -> &'static str {
        match self {
            ContentKind::Blog => "blog",
            ContentKind::Page => "page",
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
        }
    }

    pub fn module_name(self) -> &'static str {
        match self {
            ContentKind::Blog => "blog",
            ContentKind::Page => "pages",
        }
    }

    /// The code for a bulk `UpdateStatus` without a status.
    pub fn bulk_status_required(self) -> ErrorCode {
        match self {
            ContentKind::Blog => ErrorCode::BlogBulkStatusRequired,
            ContentKind::Page => ErrorCode::PageBulkStatusRequired,
        }
    }
}
