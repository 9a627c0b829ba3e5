use sea_orm::entity::prelude::*;

/// One message to one webhook, attempted until it succeeds or is dead. Its id is
/// the `webhook-id` header of every attempt.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "webhook_deliveries")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub webhook_id: Uuid,
    pub site_id: Uuid,
    /// The event name, or `batch` for a debounced batch.
    pub event: String,
    /// The exact body sent on every attempt.
    pub payload: String,
    pub status: crate::values::DeliveryStatus,
    pub attempts: i32,
    /// While an attempt is in flight: its due time is the claim's end.
    pub next_attempt_at: Option<DateTimeUtc>,
    /// The instance sending it now; cleared when the attempt is recorded.
    pub claimed_by: Option<Uuid>,
    pub last_status_code: Option<i32>,
    pub last_error: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
