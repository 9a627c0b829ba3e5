use sea_orm::entity::prelude::*;

/// One request made with an API key: the route it matched, its answer and how
/// long it took. The newest few per key are kept (see `plinth_actors::key_usage`).
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "api_key_requests")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub api_key_id: Uuid,
    /// The route template (`/api/v1/sites/{site_id}/blogs`), never the raw
    /// path or query, which may carry what a caller sent.
    pub endpoint: String,
    pub method: String,
    pub status_code: i32,
    pub response_time_ms: f64,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
