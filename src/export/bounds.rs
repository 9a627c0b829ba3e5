//! What an import archive may inflate to. A ZIP is a client's bytes: a few
//! megabytes can declare (or, lying, hold) gigabytes. Before anything is
//! inflated the central directory's declared sizes are checked against the
//! limits below; while inflating, every entry is read through [`Capped`], which
//! stops at the entry's limit whatever the directory declared. Past a limit
//! the import is refused with 413 `PAYLOAD_TOO_LARGE` at once.

use std::io::Read;

use crate::config::Config;
use crate::error::{ApiError, ErrorCode};

/// Entries of one archive: `archive.json` and one per media file.
const MAX_ENTRIES: usize = 200_000;
/// `archive.json` inflated: format 2 is read item by item, format 1 whole.
pub const MAX_DOCUMENT_BYTES: u64 = 512 * 1024 * 1024;
/// How many times an entry larger than [`RATIO_FLOOR`] may inflate: deflated
/// JSON and media stay far below; a bomb is thousands.
const MAX_RATIO: u64 = 200;
const RATIO_FLOOR: u64 = 1024 * 1024;

#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_entries: usize,
    /// Any one media entry: the largest upload.
    pub max_media_bytes: u64,
    pub max_document_bytes: u64,
    /// Every entry together.
    pub max_total_bytes: u64,
}

impl Limits {
    pub fn from_config(config: &Config) -> Self {
        let quota = config.media.site_quota_bytes;
        Limits {
            max_entries: MAX_ENTRIES,
            max_media_bytes: config.media.max_upload_bytes,
            max_document_bytes: MAX_DOCUMENT_BYTES,
            // A site may not hold more media than its quota, plus its document.
            max_total_bytes: if quota == 0 { u64::MAX } else { quota.saturating_add(MAX_DOCUMENT_BYTES) },
        }
    }
}

pub fn too_large(why: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::PayloadTooLarge, format!("the archive is refused: {why}"))
}

/// Checks what the archive declares, before anything is inflated.
pub fn check_declared<R: Read + std::io::Seek>(zip: &mut zip::ZipArchive<R>, limits: Limits) -> Result<(), ApiError> {
    if zip.len() > limits.max_entries {
        return Err(too_large(format!("it has {} entries, at most {} are read", zip.len(), limits.max_entries)));
    }
    let mut total: u64 = 0;
    for index in 0..zip.len() {
        let entry = zip.by_index_raw(index).map_err(|e| ApiError::bad_request(format!("not a ZIP archive: {e}")))?;
        let (size, packed) = (entry.size(), entry.compressed_size());
        let name = entry.name().map(|n| n.into_owned()).unwrap_or_default();
        let limit = if name == "archive.json" { limits.max_document_bytes } else { limits.max_media_bytes };
        if size > limit {
            return Err(too_large(format!("{} inflates to {size} bytes, more than {limit}", name)));
        }
        if size > RATIO_FLOOR && size / packed.max(1) > MAX_RATIO {
            return Err(too_large(format!("{} inflates {} times; at most {MAX_RATIO}", name, size / packed.max(1))));
        }
        total = total.saturating_add(size);
        if total > limits.max_total_bytes {
            return Err(too_large(format!("its entries inflate to more than {} bytes", limits.max_total_bytes)));
        }
    }
    Ok(())
}

/// An entry's reader that fails once more than `limit` bytes came out, so a
/// directory that lies about sizes is caught while inflating.
pub struct Capped<R> {
    inner: R,
    left: u64,
    pub exceeded: bool,
}

impl<R: Read> Capped<R> {
    pub fn new(inner: R, limit: u64) -> Self {
        Capped { inner, left: limit, exceeded: false }
    }
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            // One byte more than allowed tells a full entry from an oversized one.
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => {
                    self.exceeded = true;
                    Err(std::io::Error::other("the entry inflates past its limit"))
                }
            };
        }
        let room = usize::try_from(self.left).unwrap_or(usize::MAX).min(buf.len());
        let n = self.inner.read(&mut buf[..room])?;
        self.left -= n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capped_reader_passes_its_limit_and_fails_past_it() {
        let mut exact = Capped::new(&b"12345"[..], 5);
        let mut out = Vec::new();
        assert!(exact.read_to_end(&mut out).is_ok() && out == b"12345" && !exact.exceeded);
        let mut over = Capped::new(&b"123456"[..], 5);
        assert!(over.read_to_end(&mut Vec::new()).is_err() && over.exceeded);
    }
}
