//! Secrets the server makes for itself (token keys), kept in the database so
//! every instance uses the same one: the first instance to ask makes it. Each
//! is read once per process, then from memory (token checks are hot: a write
//! per check would queue every download behind SQLite's write lock).

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use plinth_entities::server_secret;
use sea_orm::{ActiveValue::Set, ConnectionTrait, EntityTrait};

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

pub async fn get_or_create(state: &AppState, name: &str) -> ApiResult<[u8; 32]> {
    if let Some(secret) = state.secrets.get(name) {
        return Ok(*secret);
    }
    let secret = match read(&state.db, name).await? {
        Some(secret) => secret,
        None => create(&state.db, name).await?,
    };
    state.secrets.insert(name.to_string(), secret);
    Ok(secret)
}

async fn read(db: &impl ConnectionTrait, name: &str) -> ApiResult<Option<[u8; 32]>> {
    let stored = server_secret::Entity::find_by_id(name.to_string()).one(db).await?;
    stored
        .map(|s| {
            B64.decode(&s.value)
                .ok()
                .and_then(|b| <[u8; 32]>::try_from(b.as_slice()).ok())
                .ok_or_else(|| ApiError::internal(format!("the secret {name} is unreadable")))
        })
        .transpose()
}

/// Makes the secret unless another instance just did; answers the stored one.
async fn create(db: &impl ConnectionTrait, name: &str) -> ApiResult<[u8; 32]> {
    let fresh: [u8; 32] = rand::random();
    server_secret::Entity::insert(server_secret::ActiveModel { name: Set(name.into()), value: Set(B64.encode(fresh)) })
        .on_conflict_do_nothing_on([server_secret::Column::Name])
        .exec(db)
        .await?;
    read(db, name).await?.ok_or_else(|| ApiError::internal(format!("the secret {name} is missing")))
}
