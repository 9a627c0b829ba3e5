//! Loading media records: a file with its sites (checked against the
//! caller's rights by `media::access`), and records as the API shows them,
//! with sites and variants fetched in one query each (never one per file).

use std::collections::HashMap;

use plinth_entities::{media_file, media_site, media_variant};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

use super::model::MediaResponse;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// A file with the sites it belongs to.
pub struct Media {
    pub file: media_file::Model,
    pub site_ids: Vec<Uuid>,
}

/// The file `id` (in the trash too when `with_trashed`) with its sites;
/// nothing of the caller checked (`media::access` does, for the handlers).
pub async fn load(state: &AppState, id: Uuid, with_trashed: bool) -> ApiResult<Media> {
    let mut select = media_file::Entity::find_by_id(id);
    if !with_trashed {
        select = select.filter(media_file::Column::IsDeleted.eq(false));
    }
    let file = select.one(&state.db).await?.ok_or_else(|| ApiError::not_found("media", id))?;
    let site_ids = sites_of(&state.db, &[id]).await?.remove(&id).unwrap_or_default();
    Ok(Media { file, site_ids })
}

pub async fn sites_of(db: &impl ConnectionTrait, ids: &[Uuid]) -> ApiResult<HashMap<Uuid, Vec<Uuid>>> {
    let mut map: HashMap<Uuid, Vec<Uuid>> = HashMap::new();
    if ids.is_empty() {
        return Ok(map);
    }
    for link in media_site::Entity::find().filter(media_site::Column::MediaId.is_in(ids.to_vec())).all(db).await? {
        map.entry(link.media_id).or_default().push(link.site_id);
    }
    Ok(map)
}

/// Records as the API shows them: sites and variants in one query each.
pub async fn responses(state: &AppState, files: Vec<media_file::Model>) -> ApiResult<Vec<MediaResponse>> {
    let ids: Vec<Uuid> = files.iter().map(|f| f.id).collect();
    let mut sites = sites_of(&state.db, &ids).await?;
    let mut variants: HashMap<Uuid, Vec<media_variant::Model>> = HashMap::new();
    if !ids.is_empty() {
        for v in media_variant::Entity::find().filter(media_variant::Column::MediaId.is_in(ids)).all(&state.db).await? {
            variants.entry(v.media_id).or_default().push(v);
        }
    }
    let base = state.config.public_url();
    Ok(files
        .iter()
        .map(|f| {
            let site_ids = sites.remove(&f.id).unwrap_or_default();
            MediaResponse::new(
                f,
                site_ids,
                variants.get(&f.id).map_or(&[], Vec::as_slice),
                &base,
                state.storage.provider,
            )
        })
        .collect())
}

pub async fn response(state: &AppState, file: media_file::Model) -> ApiResult<MediaResponse> {
    let id = file.id;
    responses(state, vec![file]).await?.pop().ok_or_else(|| ApiError::not_found("media", id))
}

pub async fn response_in(
    state: &AppState,
    db: &impl ConnectionTrait,
    file: media_file::Model,
    site_ids: Vec<Uuid>,
) -> ApiResult<MediaResponse> {
    let variants = media_variant::Entity::find().filter(media_variant::Column::MediaId.eq(file.id)).all(db).await?;
    Ok(MediaResponse::new(&file, site_ids, &variants, &state.config.public_url(), state.storage.provider))
}
