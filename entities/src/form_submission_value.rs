use sea_orm::entity::prelude::*;

/// A submitted value of a `queryable` form, indexed for field-value search.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "form_submission_values")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub submission_id: Uuid,
    pub form_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub field_label: String,
    /// Lowercased, at most 200 characters.
    #[sea_orm(primary_key, auto_increment = false)]
    pub value: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
