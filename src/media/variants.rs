//! Renders an image's variants on the MediaPool and stores them under the
//! file's content-addressed directory: for uploads, and for imported sites.

use bytes::Bytes;
use plinth_actors::media_pool::{ImageJob, ImageOutcome};
use plinth_entities::media_variant;
use sea_orm::ActiveValue::Set;
use uuid::Uuid;

use plinth_actors::media_pool::{ImageError, PoolError};

use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;

/// What the pool made of an image, its variants already stored.
pub struct Rendered {
    pub variants: Vec<media_variant::ActiveModel>,
    pub width: u32,
    pub height: u32,
    pub thumbhash: String,
    pub dominant_color: String,
    /// The original without its metadata, when its type is one we clean.
    pub clean_original: Option<Vec<u8>>,
}

pub async fn render(
    state: &AppState,
    media_id: Uuid,
    checksum: &str,
    bytes: Bytes,
    mime_type: &str,
) -> ApiResult<Rendered> {
    let dir = format!("media/{checksum}");
    let job = ImageJob::Library { bytes, mime_type: mime_type.to_string(), focal: None };
    let ImageOutcome::Library { image, clean_original } =
        state.actors.media_pool.run(crate::tenant::current(), job).await.map_err(pool_error)?
    else {
        return Err(ApiError::internal("the MediaPool answered another job"));
    };
    let now = state.clock.now();
    let mut variants = Vec::with_capacity(image.variants.len());
    for variant in image.variants {
        let key = variant_key(&dir, variant.name, variant.mime_type, None);
        let size = variant.bytes.len() as i64;
        state.storage.put(&key, variant.bytes).await.map_err(storage_failed)?;
        variants.push(media_variant::ActiveModel {
            id: Set(Uuid::new_v4()),
            media_id: Set(media_id),
            variant_name: Set(variant.name.to_string()),
            width: Set(variant.width as i32),
            height: Set(variant.height as i32),
            file_size: Set(size),
            mime_type: Set(variant.mime_type.to_string()),
            storage_key: Set(key),
            created_at: Set(now),
        });
    }
    Ok(Rendered {
        variants,
        width: image.width,
        height: image.height,
        thumbhash: image.thumbhash,
        dominant_color: image.dominant_color,
        clean_original,
    })
}

pub fn storage_failed(e: object_store::Error) -> ApiError {
    tracing::error!(error = %e, "storing media failed");
    ApiError::new(ErrorCode::StorageError, "the file could not be stored")
}

/// `media/<sha>/large.jpg`; a thumbnail cropped around a focal point other
/// than the centre gets its own name, so every URL keeps naming the same bytes.
pub fn variant_key(dir: &str, name: &str, mime_type: &str, focal: Option<(f64, f64)>) -> String {
    let ext = if mime_type == "image/png" { "png" } else { "jpg" };
    match focal {
        Some((x, y)) => {
            format!("{dir}/{name}-{:03}-{:03}.{ext}", (x * 1000.0).round() as u32, (y * 1000.0).round() as u32)
        }
        None => format!("{dir}/{name}.{ext}"),
    }
}

pub fn pool_error(e: PoolError) -> ApiError {
    match e {
        PoolError::Busy(_) => ApiError::new(
            ErrorCode::ServiceUnavailable,
            "every image worker is busy; try again shortly",
        )
        .with_header(actix_web::http::header::RETRY_AFTER, actix_web::http::header::HeaderValue::from_static("2")),
        PoolError::Image(e @ ImageError::TooManyPixels { .. }) => {
            ApiError::new(ErrorCode::MediaUploadTooLarge, e.to_string())
        }
        PoolError::Image(e @ ImageError::Undecodable(_)) => {
            ApiError::new(ErrorCode::MediaUploadInvalidType, e.to_string())
        }
        PoolError::Image(e @ (ImageError::Encode(_) | ImageError::Panicked(_))) => ApiError::internal(e),
        PoolError::Stopped => ApiError::new(ErrorCode::ServiceUnavailable, "the image workers are stopping"),
    }
}
