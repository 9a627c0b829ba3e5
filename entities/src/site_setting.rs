use sea_orm::entity::prelude::*;

/// The settings a site has explicitly stored. Effective settings are these merged
/// over the defaults, so a default changed in code reaches every site that never
/// overrode it.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "site_settings")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub site_id: Uuid,
    /// A JSON object holding only the overridden fields.
    pub overrides: Json,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
