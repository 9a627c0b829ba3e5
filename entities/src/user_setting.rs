use sea_orm::entity::prelude::*;

/// A user's settings records, one JSON object per column; `{}` reads as the defaults.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "user_settings")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub idp_user_id: String,
    pub preferences: Json,
    pub help_state: Json,
    pub onboarding: Json,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
