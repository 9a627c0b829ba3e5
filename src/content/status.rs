//! The editorial status lifecycle shared by every content kind: the type of
//! the `status` columns, so it lives with the entities.

pub use plinth_entities::values::ContentStatus;

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
