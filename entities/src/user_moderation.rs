use sea_orm::entity::prelude::*;

/// A user's moderation state; users without a row are active.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "user_moderation")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub idp_user_id: String,
    /// Suspended or banned (active once a suspension was lifted).
    pub status: crate::values::ModerationStatus,
    pub reason: Option<String>,
    /// Suspensions only.
    pub expires_at: Option<DateTimeUtc>,
    pub updated_by: crate::actor::Actor,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
