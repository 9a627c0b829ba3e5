use sea_orm::entity::prelude::*;

/// A field's visible texts in one locale.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "form_field_localizations")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub form_field_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub locale_id: Uuid,
    pub display_label: Option<String>,
    pub placeholder: Option<String>,
    pub help_text: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
