//! S3-compatible storage: AWS, or any server speaking its API (MinIO, Ceph,
//! Garage, R2, a test emulator). Settings are read as `object_store` reads
//! them (`AmazonS3Builder::from_env`: `AWS_ACCESS_KEY_ID`,
//! `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`/`AWS_DEFAULT_REGION`,
//! `AWS_ENDPOINT_URL`/`AWS_ENDPOINT`, `AWS_SESSION_TOKEN`, `AWS_ALLOW_HTTP`, …);
//! what Plinth's own configuration sets (`[storage]`, `PLINTH_S3_ENDPOINT`)
//! takes precedence.

use std::sync::Arc;
use std::time::Duration;

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::prefix::PrefixStore;
use object_store::{ObjectStore, RetryConfig};

use crate::config::StorageConfig;

/// The least size S3 accepts for a part of a multipart upload, except the last.
pub const PART_BYTES: usize = 5 * 1024 * 1024;

/// `s3://bucket/prefix` as a store whose keys start below `prefix`.
pub fn open(url: &str, config: &StorageConfig) -> object_store::Result<Arc<dyn ObjectStore>> {
    let mut builder = AmazonS3Builder::from_env().with_url(url).with_retry(RetryConfig {
        // The default retries for three minutes; a request waiting on storage
        // that long has long been given up by its client, and `/health` must
        // answer while storage is down.
        max_retries: 3,
        retry_timeout: Duration::from_secs(15),
        ..RetryConfig::default()
    });
    if let Some(endpoint) = &config.endpoint {
        builder = builder.with_endpoint(endpoint);
    }
    if let Some(region) = &config.region {
        builder = builder.with_region(region);
    }
    if let Some(id) = &config.access_key_id {
        builder = builder.with_access_key_id(id);
    }
    if let Some(secret) = &config.secret_access_key {
        builder = builder.with_secret_access_key(secret);
    }
    let plain_endpoint =
        builder.get_config_value(&AmazonS3ConfigKey::Endpoint).is_some_and(|e| e.starts_with("http://"));
    match config.allow_http {
        Some(allow) => builder = builder.with_allow_http(allow),
        // An operator who wrote an http:// endpoint meant it (a server on the
        // same host or network); otherwise AWS_ALLOW_HTTP decides.
        None if plain_endpoint => builder = builder.with_allow_http(true),
        None => {}
    }
    let store = builder.build()?;
    let prefix = prefix_of(url);
    Ok(match prefix {
        "" => Arc::new(store),
        prefix => Arc::new(PrefixStore::new(store, prefix)),
    })
}

/// The path after the bucket, without surrounding slashes.
fn prefix_of(url: &str) -> &str {
    let rest = url.split_once("://").map(|(_, rest)| rest).unwrap_or(url);
    rest.split_once('/').map(|(_, path)| path.trim_matches('/')).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefix_is_the_path_after_the_bucket() {
        assert_eq!(prefix_of("s3://bucket"), "");
        assert_eq!(prefix_of("s3://bucket/"), "");
        assert_eq!(prefix_of("s3://bucket/plinth"), "plinth");
        assert_eq!(prefix_of("s3://bucket/a/b/"), "a/b");
    }

    #[test]
    fn settings_build_a_store_without_any_network() {
        let config = StorageConfig {
            url: None,
            endpoint: Some("http://127.0.0.1:9".into()),
            region: Some("eu-central-1".into()),
            access_key_id: Some("id".into()),
            secret_access_key: Some("secret".into()),
            allow_http: None,
        };
        assert!(open("s3://bucket/prefix", &config).is_ok());
        assert!(open("gs://bucket", &config).is_err());
    }
}
