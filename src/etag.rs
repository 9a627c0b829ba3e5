//! Strong validators of answers: an answer's `ETag` is a hash of its bytes,
//! so equal answers have equal tags, on any instance. Reads are answered
//! `304` on them (`http_cache`), and conditional writes compare them
//! (`preconditions`).

use std::hash::{Hash, Hasher};

use actix_web::http::header::HeaderValue;

/// The tag of an answer's body, quoted, as the `ETag` header carries it.
pub fn etag_of(body: &[u8]) -> HeaderValue {
    // SipHash with fixed keys: stable across processes, fast, and collisions only
    // matter between two versions of one URL's body.
    let mut hasher = std::hash::DefaultHasher::new();
    body.hash(&mut hasher);
    let tag = format!("\"{:016x}-{:x}\"", hasher.finish(), body.len());
    HeaderValue::from_str(&tag).unwrap_or(HeaderValue::from_static("\"0\""))
}

/// The tag of an item's answer, as JSON serializes it, without quotes.
pub fn tag_of(item: &impl serde::Serialize) -> String {
    let tag = etag_of(&serde_json::to_vec(item).unwrap_or_default());
    tag.to_str().unwrap_or_default().trim_matches('"').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_bodies_have_equal_tags_and_others_differ() {
        assert_eq!(etag_of(b"[1,2]"), etag_of(b"[1,2]"));
        assert_ne!(etag_of(b"[1,2]"), etag_of(b"[1,3]"));
        assert_eq!(format!("\"{}\"", tag_of(&[1, 2])), etag_of(b"[1,2]").to_str().unwrap_or_default());
    }
}
