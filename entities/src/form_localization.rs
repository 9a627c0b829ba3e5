use sea_orm::entity::prelude::*;

/// A form's name, description and consent text in one locale.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "form_localizations")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub form_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub locale_id: Uuid,
    pub name: String,
    pub description: Option<String>,
    pub consent_text: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
