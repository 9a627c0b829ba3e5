//! File storage through `object_store`: the local filesystem under the data
//! directory by default, or S3-compatible storage shared by every instance
//! (`PLINTH_STORAGE_URL=s3://bucket/prefix`, see [`s3`]).
//!
//! Both backends answer the same: keys are relative paths, a missing object
//! is `None`/not an error on delete, `rename` moves (S3: copy then delete,
//! not atomic, which is safe because final keys are content-addressed), and a
//! streaming write that is dropped unfinished is aborted.

mod s3;

/// The public URL of a stored object: the files route (`media::files`) serves
/// it there. Here, below every family, so each may name it.
pub fn url_of(base: &str, key: &str) -> String {
    format!("{base}/api/v1/files/{key}")
}

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use futures_util::{StreamExt, TryStreamExt};
use object_store::local::LocalFileSystem;
use object_store::path::Path as ObjectPath;
use object_store::{GetOptions, GetRange, GetResult, ObjectStore, PutPayload, WriteMultipart};

use crate::config::StorageConfig;

/// Parts of a streaming write on local files: small, memory is all they cost.
const LOCAL_PART_BYTES: usize = 1024 * 1024;

/// An object being written part by part; [`StreamingWrite::finish`] makes it
/// visible, dropping it (or [`StreamingWrite::abort`]) leaves nothing behind.
pub struct StreamingWrite {
    /// `None` once finished or aborted.
    inner: Option<WriteMultipart>,
}

impl StreamingWrite {
    pub async fn write(&mut self, chunk: &[u8]) -> object_store::Result<()> {
        let Some(inner) = self.inner.as_mut() else {
            return Err(object_store::Error::Generic { store: "plinth", source: "write after finish".into() });
        };
        inner.wait_for_capacity(2).await?;
        inner.write(chunk);
        Ok(())
    }

    pub async fn finish(mut self) -> object_store::Result<()> {
        match self.inner.take() {
            Some(inner) => inner.finish().await.map(|_| ()),
            None => Ok(()),
        }
    }

    pub async fn abort(mut self) {
        if let Some(inner) = self.inner.take() {
            if let Err(e) = inner.abort().await {
                tracing::warn!(error = %e, "could not abort a partial upload");
            }
        }
    }
}

impl Drop for StreamingWrite {
    /// A write left unfinished (an error returned early, a client that went
    /// away) is aborted: on S3 an unaborted multipart upload stays stored,
    /// invisible and billed, until a lifecycle rule removes it.
    fn drop(&mut self) {
        if let Some(inner) = self.inner.take() {
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move {
                    if let Err(e) = inner.abort().await {
                        tracing::warn!(error = %e, "could not abort an abandoned upload");
                    }
                });
            }
        }
    }
}

pub struct Storage {
    pub store: Arc<dyn ObjectStore>,
    /// `local` or `s3`, as `/health` and media records report it.
    pub provider: &'static str,
    /// The directory files live in, for disk space figures; `None` off the machine.
    root: Option<PathBuf>,
    /// Size of each part a streaming write sends.
    part_bytes: usize,
}

/// The outcome of a write-read-delete round trip.
pub struct StorageProbe {
    pub ok: bool,
    pub latency_ms: f64,
    pub error: Option<String>,
    pub total_bytes: Option<u64>,
    pub available_bytes: Option<u64>,
}

impl Storage {
    /// The storage `config.url` names; local files under `data_dir/files` when unset.
    pub fn from_config(data_dir: &Path, config: &StorageConfig) -> std::io::Result<Self> {
        let url = config.url.as_deref().map(str::trim).unwrap_or_default();
        if url.is_empty() {
            return Self::local(data_dir);
        }
        if let Some(path) = url.strip_prefix("file://") {
            return match path {
                "" => Self::local(data_dir),
                dir => Self::local_at(PathBuf::from(dir)),
            };
        }
        if url.starts_with("s3://") {
            let store = s3::open(url, config).map_err(|e| std::io::Error::other(format!("PLINTH_STORAGE_URL: {e}")))?;
            // The URL holds no secrets (credentials come from elsewhere).
            tracing::info!(url, "files are on S3-compatible storage");
            return Ok(Self { store, provider: "s3", root: None, part_bytes: s3::PART_BYTES });
        }
        Err(std::io::Error::other(format!("PLINTH_STORAGE_URL '{url}' is neither file:// nor s3://bucket/prefix")))
    }

    fn local(data_dir: &Path) -> std::io::Result<Self> {
        Self::local_at(data_dir.join("files"))
    }

    fn local_at(root: PathBuf) -> std::io::Result<Self> {
        std::fs::create_dir_all(&root)?;
        let store = LocalFileSystem::new_with_prefix(&root).map_err(std::io::Error::other)?;
        Ok(Self { store: Arc::new(store), provider: "local", root: Some(root), part_bytes: LOCAL_PART_BYTES })
    }

    pub async fn put(&self, key: &str, bytes: impl Into<Bytes>) -> object_store::Result<()> {
        self.store.put(&ObjectPath::from(key), PutPayload::from_bytes(bytes.into())).await.map(|_| ())
    }

    pub async fn get(&self, key: &str) -> object_store::Result<Bytes> {
        self.store.get(&ObjectPath::from(key)).await?.bytes().await
    }

    /// The object, or the part of it `range` names; `None` when it does not exist.
    pub async fn open(&self, key: &str, range: Option<GetRange>) -> object_store::Result<Option<GetResult>> {
        let options = GetOptions { range, ..GetOptions::default() };
        match self.store.get_opts(&ObjectPath::from(key), options).await {
            Ok(found) => Ok(Some(found)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub async fn rename(&self, from: &str, to: &str) -> object_store::Result<()> {
        self.store.rename(&ObjectPath::from(from), &ObjectPath::from(to)).await
    }

    /// Deletes one object; a missing one is not an error.
    pub async fn delete(&self, key: &str) -> object_store::Result<()> {
        match self.store.delete(&ObjectPath::from(key)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Deletes every object under `prefix/` (whole path segments: `media/ab`
    /// never touches `media/abc/…`), in batches where the store has them.
    pub async fn delete_prefix(&self, prefix: &str) -> object_store::Result<()> {
        let locations = self.store.list(Some(&ObjectPath::from(prefix))).map_ok(|meta| meta.location).boxed();
        let mut deleted = self.store.delete_stream(locations);
        while let Some(outcome) = deleted.next().await {
            match outcome {
                Ok(_) | Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// A writer that sends parts as they fill (two in flight), so a large
    /// upload never sits in memory whole. Parts are 1 MiB on local files and
    /// 5 MiB on S3, the least S3 accepts for any part but the last.
    pub async fn writer(&self, key: &str) -> object_store::Result<StreamingWrite> {
        let upload = self.store.put_multipart(&ObjectPath::from(key)).await?;
        Ok(StreamingWrite { inner: Some(WriteMultipart::new_with_chunk_size(upload, self.part_bytes)) })
    }

    pub async fn probe(&self) -> StorageProbe {
        let started = Instant::now();
        let path = ObjectPath::from(format!("health/probe-{}", uuid::Uuid::new_v4()));
        let result = async {
            self.store.put(&path, PutPayload::from_static(b"ok")).await?;
            let bytes = self.store.get(&path).await?.bytes().await?;
            self.store.delete(&path).await?;
            Ok::<_, object_store::Error>(bytes.as_ref() == b"ok")
        }
        .await;
        let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
        let (ok, error) = match result {
            Ok(true) => (true, None),
            Ok(false) => (false, Some("read back different bytes".to_string())),
            Err(e) => (false, Some(e.to_string())),
        };
        StorageProbe {
            ok,
            latency_ms,
            error,
            total_bytes: self.root.as_ref().and_then(|root| fs4::total_space(root).ok()),
            available_bytes: self.root.as_ref().and_then(|root| fs4::available_space(root).ok()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_url(url: Option<&str>) -> StorageConfig {
        StorageConfig { url: url.map(String::from), ..StorageConfig::default() }
    }

    #[tokio::test]
    async fn file_urls_name_local_directories() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        for url in [None, Some(""), Some("file://")] {
            let storage = Storage::from_config(dir.path(), &with_url(url))?;
            storage.put("media/a/original.txt", "default").await?;
            assert_eq!(storage.provider, "local");
            assert!(dir.path().join("files/media/a/original.txt").exists(), "{url:?}");
        }
        let elsewhere = dir.path().join("shared-mount");
        let url = format!("file://{}", elsewhere.display());
        let storage = Storage::from_config(dir.path(), &with_url(Some(&url)))?;
        storage.put("media/b/original.txt", "mounted").await?;
        assert_eq!(std::fs::read_to_string(elsewhere.join("media/b/original.txt"))?, "mounted");
        assert!(storage.probe().await.total_bytes.is_some());
        Ok(())
    }

    #[test]
    fn the_environment_names_the_storage() -> Result<(), crate::config::ConfigError> {
        let env = |name: &str| match name {
            "PLINTH_STORAGE_URL" => Some("s3://files/prod".to_string()),
            "PLINTH_S3_ENDPOINT" => Some("http://127.0.0.1:9000".to_string()),
            _ => None,
        };
        let config = crate::config::Config::from_sources(None, env)?;
        assert_eq!(config.storage.url.as_deref(), Some("s3://files/prod"));
        assert_eq!(config.storage.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        assert_eq!(crate::config::Config::defaults()?.storage.url, None);
        Ok(())
    }

    #[test]
    fn other_schemes_are_refused_at_start() {
        let dir = std::env::temp_dir();
        assert!(Storage::from_config(&dir, &with_url(Some("gs://bucket/prefix"))).is_err());
        assert!(Storage::from_config(&dir, &with_url(Some("/srv/files"))).is_err());
    }

    #[tokio::test]
    async fn delete_prefix_takes_whole_segments_and_ignores_missing_objects() -> Result<(), Box<dyn std::error::Error>>
    {
        let dir = tempfile::tempdir()?;
        let storage = Storage::from_config(dir.path(), &StorageConfig::default())?;
        for key in ["media/ab/original.png", "media/ab/small.jpg", "media/abc/original.png"] {
            storage.put(key, "x").await?;
        }
        storage.delete_prefix("media/ab").await?;
        storage.delete_prefix("media/nothing-here").await?;
        assert!(storage.open("media/ab/original.png", None).await?.is_none());
        assert!(storage.open("media/ab/small.jpg", None).await?.is_none());
        assert!(storage.open("media/abc/original.png", None).await?.is_some());
        Ok(())
    }
}
