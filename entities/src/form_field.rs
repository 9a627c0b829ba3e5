use sea_orm::entity::prelude::*;

/// One field of a form; `label` is the key of the submitted value.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "form_fields")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub form_id: Uuid,
    pub label: String,
    pub field_type: crate::values::FieldType,
    pub required: bool,
    /// JSON array of option strings (select, radio, checkbox groups).
    pub options: Option<Json>,
    pub min_length: Option<i32>,
    pub max_length: Option<i32>,
    pub pattern: Option<String>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub placeholder: Option<String>,
    pub help_text: Option<String>,
    pub display_order: i32,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
