//! Encryption of private documents.
//!
//! - A random 256-bit data key encrypts the file with XChaCha20-Poly1305 in the
//!   STREAM construction (`aead::stream`, 64 KiB chunks, each authenticated, the
//!   last one marked), so files are encrypted and decrypted chunk by chunk,
//!   never whole in memory. Stored layout: `PLD1` ‖ 19-byte nonce prefix ‖ chunks.
//! - The data key is sealed (XChaCha20-Poly1305, random nonce) under a key
//!   derived from the password with argon2id (19 MiB, 2 passes, 1 lane: the
//!   OWASP minimum; a 16-byte random salt per document). A password is checked
//!   by opening the sealed key: it is never stored, and a wrong one fails the
//!   authentication tag.
//! - With `DOCUMENT_ENCRYPTION_KEY` set, the data key is also sealed under that
//!   key, so an operator can make a document public without its password.

use argon2::{Algorithm, Argon2, Params, Version};
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use chacha20poly1305::aead::stream::{DecryptorBE32, EncryptorBE32};
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use sha2::{Digest, Sha256};

pub const CHUNK: usize = 64 * 1024;
const TAG: usize = 16;
const MAGIC: &[u8; 4] = b"PLD1";
const PREFIX: usize = 19;
/// Bytes before the first chunk.
pub const HEADER: usize = MAGIC.len() + PREFIX;

/// argon2id cost: memory in KiB, passes, lanes.
pub const KDF_MEMORY_KIB: u32 = 19 * 1024;
pub const KDF_PASSES: u32 = 2;
pub const KDF_LANES: u32 = 1;

#[derive(Debug, thiserror::Error)]
pub enum CryptoError {
    #[error("the key does not open this document")]
    WrongKey,
    #[error("{0}")]
    Failed(String),
}

pub type Key = [u8; 32];

pub fn random_key() -> Key {
    rand::random()
}

/// The KDF parameters as stored beside each document.
pub fn kdf_params() -> String {
    format!("argon2id$v=19$m={KDF_MEMORY_KIB},t={KDF_PASSES},p={KDF_LANES}")
}

fn parse_params(stored: &str) -> Result<Params, CryptoError> {
    let numbers = stored.rsplit('$').next().unwrap_or_default();
    let value =
        |name: &str| numbers.split(',').find_map(|kv| kv.strip_prefix(name)?.strip_prefix('=')?.parse::<u32>().ok());
    let (Some(m), Some(t), Some(p)) = (value("m"), value("t"), value("p")) else {
        return Err(CryptoError::Failed(format!("unreadable KDF parameters '{stored}'")));
    };
    Params::new(m, t, p, Some(32)).map_err(|e| CryptoError::Failed(e.to_string()))
}

/// The key a password gives with this salt. CPU- and memory-heavy (tens of
/// ms): call it off the request threads.
pub fn derive(password: &str, salt: &[u8], stored_params: &str) -> Result<Key, CryptoError> {
    let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, parse_params(stored_params)?);
    let mut key = [0u8; 32];
    argon.hash_password_into(password.as_bytes(), salt, &mut key).map_err(|e| CryptoError::Failed(e.to_string()))?;
    Ok(key)
}

/// The operator's recovery key from `DOCUMENT_ENCRYPTION_KEY`: 32 bytes as
/// 64 hex digits or base64; any other text is hashed (SHA-256) into a key.
pub fn recovery_key(configured: &str) -> Key {
    let text = configured.trim();
    if let Ok(bytes) = hex::decode(text) {
        if let Ok(key) = <Key>::try_from(bytes.as_slice()) {
            return key;
        }
    }
    if let Ok(bytes) = B64.decode(text) {
        if let Ok(key) = <Key>::try_from(bytes.as_slice()) {
            return key;
        }
    }
    Sha256::digest(text.as_bytes()).into()
}

/// Seals `secret` under `key`: base64(nonce ‖ ciphertext). `context` is bound
/// as associated data (a sealed key of one document does not open another's).
pub fn seal(key: &Key, secret: &[u8], context: &[u8]) -> Result<String, CryptoError> {
    let nonce: [u8; 24] = rand::random();
    let cipher = XChaCha20Poly1305::new(key.into());
    let payload = chacha20poly1305::aead::Payload { msg: secret, aad: context };
    let sealed = cipher.encrypt(&XNonce::from(nonce), payload).map_err(|e| CryptoError::Failed(e.to_string()))?;
    Ok(B64.encode([nonce.as_slice(), sealed.as_slice()].concat()))
}

pub fn open(key: &Key, sealed: &str, context: &[u8]) -> Result<Vec<u8>, CryptoError> {
    let bytes = B64.decode(sealed).map_err(|_| CryptoError::WrongKey)?;
    if bytes.len() < 24 + TAG {
        return Err(CryptoError::WrongKey);
    }
    let (nonce, sealed) = bytes.split_at(24);
    let cipher = XChaCha20Poly1305::new(key.into());
    let payload = chacha20poly1305::aead::Payload { msg: sealed, aad: context };
    let nonce = <[u8; 24]>::try_from(nonce).map_err(|_| CryptoError::WrongKey)?;
    cipher.decrypt(&XNonce::from(nonce), payload).map_err(|_| CryptoError::WrongKey)
}

pub fn open_key(key: &Key, sealed: &str, context: &[u8]) -> Result<Key, CryptoError> {
    <Key>::try_from(open(key, sealed, context)?.as_slice()).map_err(|_| CryptoError::WrongKey)
}

/// Encrypts a file chunk by chunk: feed [`CHUNK`]-sized pieces to `next`, the
/// final (possibly shorter or empty) one to `last`.
pub struct FileEncryptor {
    inner: EncryptorBE32<XChaCha20Poly1305>,
}

impl FileEncryptor {
    /// The encryptor and the header to write before the first chunk.
    pub fn new(key: &Key) -> (Self, Vec<u8>) {
        let prefix: [u8; PREFIX] = rand::random();
        let inner = EncryptorBE32::from_aead(XChaCha20Poly1305::new(key.into()), prefix.as_slice().into());
        (Self { inner }, [MAGIC.as_slice(), prefix.as_slice()].concat())
    }

    pub fn next(&mut self, chunk: &[u8]) -> Result<Vec<u8>, CryptoError> {
        self.inner.encrypt_next(chunk).map_err(|e| CryptoError::Failed(e.to_string()))
    }

    pub fn last(self, chunk: &[u8]) -> Result<Vec<u8>, CryptoError> {
        self.inner.encrypt_last(chunk).map_err(|e| CryptoError::Failed(e.to_string()))
    }
}

pub struct FileDecryptor {
    inner: DecryptorBE32<XChaCha20Poly1305>,
}

impl FileDecryptor {
    pub fn new(key: &Key, header: &[u8]) -> Result<Self, CryptoError> {
        if header.len() != HEADER || &header[..MAGIC.len()] != MAGIC {
            return Err(CryptoError::Failed("not an encrypted document".into()));
        }
        let prefix = &header[MAGIC.len()..];
        Ok(Self { inner: DecryptorBE32::from_aead(XChaCha20Poly1305::new(key.into()), prefix.into()) })
    }

    pub fn next(&mut self, chunk: &[u8]) -> Result<Vec<u8>, CryptoError> {
        self.inner.decrypt_next(chunk).map_err(|_| CryptoError::WrongKey)
    }

    pub fn last(self, chunk: &[u8]) -> Result<Vec<u8>, CryptoError> {
        self.inner.decrypt_last(chunk).map_err(|_| CryptoError::WrongKey)
    }
}

/// Sizes of the encrypted chunks of a file of `plain` bytes: every chunk is
/// CHUNK + tag, the last one holds the rest (at least one chunk, maybe empty).
pub fn encrypted_chunk_sizes(plain: u64) -> impl Iterator<Item = usize> {
    let full = (plain / CHUNK as u64) as usize;
    let rest = (plain % CHUNK as u64) as usize;
    // A file of exact multiples ends with an empty last chunk.
    (0..full).map(|_| CHUNK + TAG).chain(std::iter::once(rest + TAG))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encrypt(key: &Key, plain: &[u8]) -> Vec<u8> {
        let (mut enc, mut out) = FileEncryptor::new(key);
        let full = plain.len() / CHUNK;
        for chunk in plain.chunks(CHUNK).take(full) {
            out.extend(enc.next(chunk).unwrap());
        }
        out.extend(enc.last(&plain[full * CHUNK..]).unwrap());
        out
    }

    fn decrypt(key: &Key, stored: &[u8], plain_len: u64) -> Result<Vec<u8>, CryptoError> {
        let mut dec = FileDecryptor::new(key, &stored[..HEADER])?;
        let sizes: Vec<usize> = encrypted_chunk_sizes(plain_len).collect();
        let mut at = HEADER;
        let mut out = Vec::new();
        for (i, size) in sizes.iter().enumerate() {
            let chunk = &stored[at..at + size];
            at += size;
            if i + 1 == sizes.len() {
                out.extend(dec.last(chunk)?);
                return Ok(out);
            }
            out.extend(dec.next(chunk)?);
        }
        unreachable!("at least one chunk")
    }

    #[test]
    fn files_round_trip_and_tampering_is_detected() {
        let key = random_key();
        for len in [0usize, 10, CHUNK, CHUNK * 2 + 7] {
            let plain: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let stored = encrypt(&key, &plain);
            assert_eq!(stored.len(), HEADER + encrypted_chunk_sizes(len as u64).sum::<usize>());
            assert_eq!(decrypt(&key, &stored, len as u64).unwrap(), plain, "{len}");
            let mut tampered = stored.clone();
            let last = tampered.len() - 1;
            tampered[last] ^= 1;
            assert!(decrypt(&key, &tampered, len as u64).is_err());
            assert!(decrypt(&random_key(), &stored, len as u64).is_err());
        }
    }

    #[test]
    fn a_password_opens_its_sealed_key_and_nothing_else_does() {
        let salt: [u8; 16] = rand::random();
        let data_key = random_key();
        let kek = derive("correct horse", &salt, &kdf_params()).unwrap();
        let sealed = seal(&kek, &data_key, b"doc-1").unwrap();
        assert_eq!(
            open_key(&derive("correct horse", &salt, &kdf_params()).unwrap(), &sealed, b"doc-1").unwrap(),
            data_key
        );
        assert!(open_key(&derive("wrong", &salt, &kdf_params()).unwrap(), &sealed, b"doc-1").is_err());
        assert!(open_key(&kek, &sealed, b"doc-2").is_err(), "bound to its document");
        assert_eq!(recovery_key(&"ab".repeat(32)), [0xab; 32]);
    }
}
