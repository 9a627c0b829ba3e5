//! Storing keys: shared by the endpoint, the CLI and the start-up bootstrap.

use chrono::{DateTime, Utc};
use plinth_entities::api_key;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseConnection, DbErr, EntityTrait,
    PaginatorTrait, QueryFilter,
};
use uuid::Uuid;

use crate::auth::KeyPermission;
use crate::config::Config;
use crate::state::keys::{display_prefix, generate_secret, hash_secret};

pub struct NewKey {
    pub name: String,
    pub permission: KeyPermission,
    pub site_id: Option<Uuid>,
    pub rate_limit_per_second: Option<i32>,
    pub rate_limit_per_minute: Option<i32>,
    pub rate_limit_per_hour: Option<i32>,
    pub rate_limit_per_day: Option<i32>,
    pub created_by: String,
}

impl NewKey {
    pub fn unlimited(name: &str, permission: KeyPermission, site_id: Option<Uuid>, created_by: &str) -> Self {
        Self {
            name: name.to_string(),
            permission,
            site_id,
            rate_limit_per_second: None,
            rate_limit_per_minute: None,
            rate_limit_per_hour: None,
            rate_limit_per_day: None,
            created_by: created_by.to_string(),
        }
    }
}

/// Stores a key and returns it with its secret. `secret` is generated unless given.
pub async fn insert_key<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    key: NewKey,
    secret: Option<String>,
) -> Result<(api_key::Model, String), DbErr> {
    let secret = secret.unwrap_or_else(generate_secret);
    let model = api_key::ActiveModel {
        id: Set(Uuid::new_v4()),
        name: Set(key.name),
        key_hash: Set(hash_secret(&secret)),
        key_prefix: Set(display_prefix(&secret)),
        permission: Set(key.permission.as_str().to_string()),
        site_id: Set(key.site_id),
        rate_limit_per_second: Set(key.rate_limit_per_second),
        rate_limit_per_minute: Set(key.rate_limit_per_minute),
        rate_limit_per_hour: Set(key.rate_limit_per_hour),
        rate_limit_per_day: Set(key.rate_limit_per_day),
        created_by: Set(Some(key.created_by)),
        created_at: Set(now),
        revoked_at: Set(None),
        last_used_at: Set(None),
        usage_count: Set(0),
    }
    .insert(db)
    .await?;
    Ok((model, secret))
}

/// Start-up: with `PLINTH_BOOTSTRAP_API_KEY`, a live Master key with exactly that
/// secret exists afterwards (idempotent). Without it, and with no key at all, a
/// Master key is generated and its secret returned to be printed once.
pub async fn bootstrap(db: &DatabaseConnection, now: DateTime<Utc>, config: &Config) -> Result<Option<String>, DbErr> {
    if let Some(secret) = &config.bootstrap_api_key {
        let existing = api_key::Entity::find().filter(api_key::Column::KeyHash.eq(hash_secret(secret))).one(db).await?;
        match existing {
            Some(key)
                if key.revoked_at.is_none()
                    && key.permission == KeyPermission::Master.as_str()
                    && key.site_id.is_none() => {}
            Some(key) => {
                let mut row: api_key::ActiveModel = key.into();
                row.revoked_at = Set(None);
                row.permission = Set(KeyPermission::Master.as_str().to_string());
                row.site_id = Set(None);
                row.update(db).await?;
            }
            None => {
                insert_key(
                    db,
                    now,
                    NewKey::unlimited("bootstrap", KeyPermission::Master, None, "bootstrap"),
                    Some(secret.clone()),
                )
                .await?;
            }
        }
        return Ok(None);
    }
    if api_key::Entity::find().count(db).await? > 0 {
        return Ok(None);
    }
    let (_, secret) =
        insert_key(db, now, NewKey::unlimited("first admin", KeyPermission::Master, None, "bootstrap"), None).await?;
    Ok(Some(secret))
}
