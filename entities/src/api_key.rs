use sea_orm::entity::prelude::*;

/// An API key. Only the SHA-256 of the secret is stored; the secret is shown once.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "api_keys")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub name: String,
    /// Hex SHA-256 of the full secret.
    #[sea_orm(unique)]
    pub key_hash: String,
    /// The first characters of the secret, so people can tell keys apart.
    pub key_prefix: String,
    pub permission: crate::values::KeyPermission,
    pub site_id: Option<Uuid>,
    pub rate_limit_per_second: Option<i32>,
    pub rate_limit_per_minute: Option<i32>,
    pub rate_limit_per_hour: Option<i32>,
    pub rate_limit_per_day: Option<i32>,
    /// Who created the key (`api_key:<id>`, `user:<idp id>` or `cli`).
    pub created_by: Option<String>,
    pub created_at: DateTimeUtc,
    pub revoked_at: Option<DateTimeUtc>,
    pub last_used_at: Option<DateTimeUtc>,
    pub usage_count: i64,
    pub description: Option<String>,
    /// From this moment the key no longer authenticates.
    pub expires_at: Option<DateTimeUtc>,
    /// Set while the key is blocked (it then gets 401 until unblocked).
    pub blocked_at: Option<DateTimeUtc>,
    pub blocked_reason: Option<String>,
    /// When its settings last changed; null for a key unchanged since made.
    pub updated_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
