use sea_orm::entity::prelude::*;

/// An HTTP endpoint that receives a site's events.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "webhooks")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub site_id: Uuid,
    pub url: String,
    /// `whsec_<base64>`; the base64 part is the HMAC key.
    pub secret: String,
    pub description: String,
    /// Event names subscribed to; an empty array means all events.
    pub events: Json,
    pub is_active: bool,
    pub debounce_seconds: i32,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
