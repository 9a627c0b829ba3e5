use sea_orm::entity::prelude::*;

/// One status change of a submission (the first row records its arrival).
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "form_submission_history")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub submission_id: Uuid,
    pub from_status: Option<crate::values::SubmissionStatus>,
    pub to_status: crate::values::SubmissionStatus,
    pub actor: Option<crate::actor::Actor>,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
