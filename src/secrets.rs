//! Secrets the server makes for itself (token keys), kept in the database so
//! every instance uses the same one: the first instance to ask makes it.

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use plinth_entities::server_secret;
use sea_orm::{ActiveValue::Set, ConnectionTrait, EntityTrait};

use crate::error::{ApiError, ApiResult};

pub async fn get_or_create(db: &impl ConnectionTrait, name: &str) -> ApiResult<[u8; 32]> {
    let fresh: [u8; 32] = rand::random();
    server_secret::Entity::insert(server_secret::ActiveModel { name: Set(name.into()), value: Set(B64.encode(fresh)) })
        .on_conflict_do_nothing_on([server_secret::Column::Name])
        .exec(db)
        .await?;
    let stored = server_secret::Entity::find_by_id(name.to_string())
        .one(db)
        .await?
        .ok_or_else(|| ApiError::internal(format!("the secret {name} is missing")))?;
    B64.decode(&stored.value)
        .ok()
        .and_then(|b| <[u8; 32]>::try_from(b.as_slice()).ok())
        .ok_or_else(|| ApiError::internal(format!("the secret {name} is unreadable")))
}
