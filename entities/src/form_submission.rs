use sea_orm::entity::prelude::*;

/// One submission of a form, named to its visitor by `reference_code`.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "form_submissions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub form_id: Uuid,
    pub site_id: Uuid,
    pub reference_code: String,
    /// new, in_review, resolved, archived
    pub status: crate::values::SubmissionStatus,
    /// The submitted values by field label.
    pub data: Json,
    pub consent_given: bool,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub deleted_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
