//! The editorial status lifecycle shared by every content kind.

use serde::Serialize;
use utoipa::ToSchema;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, ToSchema)]
pub enum ContentStatus {
    Draft,
    InReview,
    Published,
    Scheduled,
    Archived,
}

crate::lenient_enum!(ContentStatus {
    ContentStatus::Draft => ["Draft"],
    ContentStatus::InReview => ["InReview"],
    ContentStatus::Published => ["Published"],
    ContentStatus::Scheduled => ["Scheduled"],
    ContentStatus::Archived => ["Archived"],
});

impl ContentStatus {
    pub const ALL: [ContentStatus; 5] = [
        ContentStatus::Draft,
        ContentStatus::InReview,
        ContentStatus::Published,
        ContentStatus::Scheduled,
        ContentStatus::Archived,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ContentStatus::Draft => "Draft",
            ContentStatus::InReview => "InReview",
            ContentStatus::Published => "Published",
            ContentStatus::Scheduled => "Scheduled",
            ContentStatus::Archived => "Archived",
        }
    }

    pub fn parse(raw: &str) -> Option<ContentStatus> {
        ContentStatus::ALL.into_iter().find(|s| s.as_str() == raw)
    }

    /// Publishing moves: they need an editor (or review, under the workflow).
    pub fn is_publishing(self) -> bool {
        matches!(self, ContentStatus::Published | ContentStatus::Scheduled)
    }

    /// The moves the lifecycle allows. Staying put is always allowed. Archived
    /// content returns through Draft; published content is withdrawn to Draft
    /// or Archived, not sent back to review.
    pub fn can_move_to(self, to: ContentStatus) -> bool {
        use ContentStatus::*;
        self == to
            || match self {
                Draft => true,
                InReview => matches!(to, Draft | Published | Scheduled | Archived),
                Published => matches!(to, Draft | Archived),
                Scheduled => matches!(to, Draft | Published | Archived),
                Archived => to == Draft,
            }
    }
}

#[cfg(test)]
mod tests {
    use super::ContentStatus::*;

    #[test]
    fn lifecycle_moves() {
        assert!(Draft.can_move_to(InReview) && InReview.can_move_to(Published) && Published.can_move_to(Archived));
        assert!(Archived.can_move_to(Draft) && !Archived.can_move_to(Published));
        assert!(!Published.can_move_to(InReview) && !Published.can_move_to(Scheduled));
        assert!(Scheduled.can_move_to(Published) && Published.can_move_to(Published));
    }
}
