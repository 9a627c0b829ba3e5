use sea_orm::entity::prelude::*;

/// An ALTCHA solution already used, kept until its challenge expires.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "altcha_spent")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub replay_key: String,
    pub expires_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
