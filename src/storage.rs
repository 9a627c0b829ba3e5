//! File storage through `object_store`: the local filesystem under the data
//! directory by default.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use object_store::local::LocalFileSystem;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, PutPayload};

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
