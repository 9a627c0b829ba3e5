//! Encrypting and decrypting stored documents chunk by chunk, so no file is
//! ever whole in memory: between storage objects, and into a download.

use bytes::{Bytes, BytesMut};
use futures_util::stream::{self, BoxStream, StreamExt};
use plinth_entities::document;

use super::crypto::{self, FileDecryptor, FileEncryptor, Key, CHUNK, HEADER};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;

fn storage_error(e: object_store::Error) -> ApiError {
    tracing::error!(error = %e, "document storage failed");
    ApiError::new(ErrorCode::StorageError, "the document could not be read or stored")
}

/// The object's bytes as a stream.
async fn read(state: &AppState, key: &str) -> ApiResult<BoxStream<'static, object_store::Result<Bytes>>> {
    let found = state.storage.open(key, None).await.map_err(storage_error)?;
    let found = found.ok_or_else(|| ApiError::new(ErrorCode::StorageError, "the document's file is missing"))?;
    Ok(found.into_stream())
}

/// Pulls from `source` until `buffer` holds `n` bytes (or the source ends).
async fn fill(
    source: &mut BoxStream<'static, object_store::Result<Bytes>>,
    buffer: &mut BytesMut,
    n: usize,
) -> ApiResult<()> {
    while buffer.len() < n {
        match source.next().await {
            Some(chunk) => buffer.extend_from_slice(&chunk.map_err(storage_error)?),
            None => break,
        }
    }
    Ok(())
}

/// Writes `from` encrypted under `key` to `to`.
pub async fn encrypt_object(state: &AppState, from: &str, to: &str, key: &Key) -> ApiResult<()> {
    let mut source = read(state, from).await?;
    let (mut encryptor, header) = FileEncryptor::new(key);
    let mut out = state.storage.writer(to).await.map_err(storage_error)?;
    let failed = |e| {
        tracing::error!(error = %e, "encrypting a document failed");
        ApiError::new(ErrorCode::DocumentEncryptionFailed, "the document could not be encrypted")
    };
    let result = async {
        out.write(&header).await.map_err(storage_error)?;
        let mut buffer = BytesMut::new();
        loop {
            // One byte past the chunk tells whether this chunk is the last.
            fill(&mut source, &mut buffer, CHUNK + 1).await?;
            if buffer.len() <= CHUNK {
                out.write(&encryptor.last(&buffer).map_err(failed)?).await.map_err(storage_error)?;
                return Ok(());
            }
            let chunk = buffer.split_to(CHUNK);
            out.write(&encryptor.next(&chunk).map_err(failed)?).await.map_err(storage_error)?;
        }
    }
    .await;
    match result {
        Ok(()) => out.finish().await.map_err(storage_error),
        Err(e) => {
            out.abort().await;
            Err(e)
        }
    }
}

/// The plaintext of an encrypted document, chunk by chunk. A chunk that
/// fails authentication ends the stream with an error: nothing forged is
/// ever sent.
pub async fn decrypted(
    state: &AppState,
    doc: &document::Model,
    key: &Key,
) -> ApiResult<BoxStream<'static, Result<Bytes, ApiError>>> {
    let stored_key = doc.storage_key.clone().ok_or_else(|| ApiError::new(ErrorCode::StorageError, "no file"))?;
    let mut source = read(state, &stored_key).await?;
    let mut buffer = BytesMut::new();
    fill(&mut source, &mut buffer, HEADER).await?;
    if buffer.len() < HEADER {
        return Err(ApiError::new(ErrorCode::DocumentDecryptionFailed, "the stored document is truncated"));
    }
    let header = buffer.split_to(HEADER);
    let decryptor = FileDecryptor::new(key, &header)
        .map_err(|_| ApiError::new(ErrorCode::DocumentDecryptionFailed, "not an encrypted document"))?;
    let sizes: Vec<usize> =
        crypto::encrypted_chunk_sizes(u64::try_from(doc.file_size.unwrap_or(0)).unwrap_or(0)).collect();
    let state_of = (source, buffer, Some(decryptor), sizes.into_iter());
    Ok(stream::unfold(state_of, |(mut source, mut buffer, mut decryptor, mut sizes)| async move {
        let size = sizes.next()?;
        let failed = || ApiError::new(ErrorCode::DocumentDecryptionFailed, "the stored document failed authentication");
        if let Err(e) = fill(&mut source, &mut buffer, size).await {
            return Some((Err(e), (source, buffer, None, Vec::new().into_iter())));
        }
        if buffer.len() < size {
            return Some((Err(failed()), (source, buffer, None, Vec::new().into_iter())));
        }
        let chunk = buffer.split_to(size);
        let plain = match (sizes.len(), decryptor.take()) {
            (0, Some(d)) => d.last(&chunk).map_err(|_| failed()),
            (_, Some(mut d)) => {
                let plain = d.next(&chunk).map_err(|_| failed());
                decryptor = Some(d);
                plain
            }
            (_, None) => Err(failed()),
        };
        match plain {
            Ok(plain) => Some((Ok(Bytes::from(plain)), (source, buffer, decryptor, sizes))),
            Err(e) => Some((Err(e), (source, buffer, None, Vec::new().into_iter()))),
        }
    })
    .boxed())
}

/// Writes the decrypted document to `to`.
pub async fn decrypt_object(state: &AppState, doc: &document::Model, to: &str, key: &Key) -> ApiResult<()> {
    let mut plain = decrypted(state, doc, key).await?;
    let mut out = state.storage.writer(to).await.map_err(storage_error)?;
    while let Some(chunk) = plain.next().await {
        match chunk {
            Ok(chunk) => out.write(&chunk).await.map_err(storage_error)?,
            Err(e) => {
                out.abort().await;
                return Err(e);
            }
        }
    }
    out.finish().await.map_err(storage_error)
}
