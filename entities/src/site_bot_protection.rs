use sea_orm::entity::prelude::*;

/// How a site's forms check for bots.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "site_bot_protection")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub site_id: Uuid,
    /// altcha, remote
    pub mode: String,
    /// Hex HMAC key that signs the site's ALTCHA challenges.
    pub altcha_key: String,
    pub verify_url: Option<String>,
    pub remote_secret: Option<String>,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
