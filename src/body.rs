//! Request bodies read by hand where the size limit depends on the request
//! (a site's setting) or must be tighter than the JSON default (anonymous
//! endpoints): the body streams in and is refused the moment it exceeds the
//! limit, before anything is parsed.

use actix_web::web;
use futures_util::StreamExt;
use serde::de::DeserializeOwned;

use crate::error::{ApiError, ApiResult, ErrorCode};

/// Reads at most `limit` bytes of JSON into `T`; past it, 413 PAYLOAD_TOO_LARGE
/// with `too_large` as the detail.
pub async fn read_json_capped<T: DeserializeOwned>(
    mut payload: web::Payload,
    limit: usize,
    too_large: &str,
) -> ApiResult<T> {
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| ApiError::bad_request(format!("reading the body failed: {e}")))?;
        if body.len() + chunk.len() > limit {
            return Err(ApiError::new(ErrorCode::PayloadTooLarge, too_large));
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|e| crate::error::json_body_error(&e))
}
