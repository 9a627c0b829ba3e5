//! File storage through `object_store`: the local filesystem under the data
//! directory by default.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use futures_util::StreamExt;
use object_store::local::LocalFileSystem;
use object_store::path::Path as ObjectPath;
use object_store::{GetOptions, GetRange, GetResult, ObjectStore, PutPayload, WriteMultipart};

const STREAM_PART_BYTES: usize = 1024 * 1024;

/// An object being written part by part; [`StreamingWrite::finish`] makes it
/// visible, dropping it (or [`StreamingWrite::abort`]) leaves nothing behind.
pub struct StreamingWrite {
    inner: WriteMultipart,
}

impl StreamingWrite {
    pub async fn write(&mut self, chunk: &[u8]) -> object_store::Result<()> {
        self.inner.wait_for_capacity(2).await?;
        self.inner.write(chunk);
        Ok(())
    }

    pub async fn finish(self) -> object_store::Result<()> {
        self.inner.finish().await.map(|_| ())
    }

    pub async fn abort(self) {
        if let Err(e) = self.inner.abort().await {
            tracing::warn!(error = %e, "could not abort a partial upload");
        }
    }
}

pub struct Storage {
    pub store: Arc<dyn ObjectStore>,
    pub provider: &'static str,
    root: PathBuf,
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
    pub fn local(data_dir: &Path) -> std::io::Result<Self> {
        let root = data_dir.join("files");
        std::fs::create_dir_all(&root)?;
        let store = LocalFileSystem::new_with_prefix(&root).map_err(std::io::Error::other)?;
        Ok(Self { store: Arc::new(store), provider: "local", root })
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

    /// Deletes every object under `prefix/`.
    pub async fn delete_prefix(&self, prefix: &str) -> object_store::Result<()> {
        let mut listing = self.store.list(Some(&ObjectPath::from(prefix)));
        while let Some(meta) = listing.next().await {
            self.delete(meta?.location.as_ref()).await?;
        }
        Ok(())
    }

    /// A writer that sends parts as they fill (1 MiB each, two in flight), so
    /// a large upload never sits in memory whole.
    pub async fn writer(&self, key: &str) -> object_store::Result<StreamingWrite> {
        let upload = self.store.put_multipart(&ObjectPath::from(key)).await?;
        Ok(StreamingWrite { inner: WriteMultipart::new_with_chunk_size(upload, STREAM_PART_BYTES) })
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
            total_bytes: fs4::total_space(&self.root).ok(),
            available_bytes: fs4::available_space(&self.root).ok(),
        }
    }
}
