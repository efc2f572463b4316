//! Locations: turning what the user typed into an object store and a path.
//!
//! A location is a URL (`file://`, `s3://`, `gs://`, `az://`/`abfs://`, `memory://`) or a plain
//! path, which means the local file system (the embedded default). Cloud stores are configured
//! from the usual environment variables (`AWS_*`, `GOOGLE_*`, `AZURE_*`), including
//! `AWS_ENDPOINT_URL` and `AWS_ALLOW_HTTP` for S3-compatible servers. `memory://` is one
//! in-process store shared by every step of a process (useful for `run` job chains and tests).
//!
//! The async `object_store` API stays behind [`block_on`] and one small runtime: the compute
//! stages are synchronous.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use bytes::Bytes;
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use object_store::path::Path as ObjPath;
use object_store::{
    ObjectStore, ObjectStoreExt, ObjectStoreScheme, PutMode, PutOptions, PutPayload,
};
use url::Url;

use crate::error::{Error, Result};

/// Run a future to completion on the library's I/O runtime.
pub fn block_on<F: Future>(future: F) -> F::Output {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("bloomjoin-io")
                .enable_all()
                .build()
                .expect("the I/O runtime starts")
        })
        .block_on(future)
}

/// A resolved location: the store, the path inside it, and how the user spelled it.
#[derive(Clone)]
pub struct Location {
    store: Arc<dyn ObjectStore>,
    path: ObjPath,
    /// The local file system path, for plain paths and `file://` URLs.
    local: Option<PathBuf>,
    display: String,
}

impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display)
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display)
    }
}

fn memory_store() -> Arc<dyn ObjectStore> {
    static MEMORY: OnceLock<Arc<InMemory>> = OnceLock::new();
    MEMORY.get_or_init(|| Arc::new(InMemory::new())).clone()
}

fn local_store() -> Arc<dyn ObjectStore> {
    static LOCAL: OnceLock<Arc<LocalFileSystem>> = OnceLock::new();
    LOCAL
        .get_or_init(|| Arc::new(LocalFileSystem::new()))
        .clone()
}

/// Cloud stores by `scheme://host`, so one process keeps one client (and its connections)
/// per bucket.
fn cloud_store(url: &Url, scheme: ObjectStoreScheme, raw: &str) -> Result<Arc<dyn ObjectStore>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<dyn ObjectStore>>>> = OnceLock::new();
    let key = format!("{}://{}", url.scheme(), url.host_str().unwrap_or_default());
    let cache = CACHE.get_or_init(Default::default);
    if let Some(s) = cache.lock().expect("store cache").get(&key) {
        return Ok(s.clone());
    }
    let bad = |source: object_store::Error| Error::Store {
        location: raw.to_string(),
        source,
    };
    let retry = retry_config();
    let store: Arc<dyn ObjectStore> = match scheme {
        ObjectStoreScheme::AmazonS3 => Arc::new(
            object_store::aws::AmazonS3Builder::from_env()
                .with_url(url.as_str())
                .with_retry(retry)
                .build()
                .map_err(bad)?,
        ),
        ObjectStoreScheme::GoogleCloudStorage => Arc::new(
            object_store::gcp::GoogleCloudStorageBuilder::from_env()
                .with_url(url.as_str())
                .with_retry(retry)
                .build()
                .map_err(bad)?,
        ),
        ObjectStoreScheme::MicrosoftAzure => Arc::new(
            object_store::azure::MicrosoftAzureBuilder::from_env()
                .with_url(url.as_str())
                .with_retry(retry)
                .build()
                .map_err(bad)?,
        ),
        _ => {
            return Err(Error::Location {
                location: raw.to_string(),
                reason: format!("unsupported URL scheme {:?}", url.scheme()),
            })
        }
    };
    cache
        .lock()
        .expect("store cache")
        .insert(key, store.clone());
    Ok(store)
}

/// Retries of transient object-store failures (5xx, timeouts, dropped connections):
/// `BLOOMJOIN_MAX_RETRIES` (default 5) with exponential backoff from 100 ms, given up after
/// `BLOOMJOIN_RETRY_TIMEOUT_SECS` (default 60) so a dead endpoint fails the job in seconds,
/// not minutes.
fn retry_config() -> object_store::RetryConfig {
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    object_store::RetryConfig {
        backoff: object_store::BackoffConfig::default(),
        max_retries: env("BLOOMJOIN_MAX_RETRIES", 5) as usize,
        retry_timeout: std::time::Duration::from_secs(env("BLOOMJOIN_RETRY_TIMEOUT_SECS", 60)),
    }
}

/// The URL schemes [`Location::parse`] accepts.
pub const SCHEMES: &str = "file://, s3://, gs://, az://, abfs://, memory:// or a plain path";

impl Location {
    /// Resolve a location string. Plain paths (no `scheme://`) are local files.
    pub fn parse(raw: &str) -> Result<Location> {
        if raw.trim().is_empty() {
            return Err(Error::Location {
                location: raw.to_string(),
                reason: "empty location".into(),
            });
        }
        let Some((scheme, _)) = raw.split_once("://") else {
            return Location::local(raw, PathBuf::from(raw));
        };
        let url = Url::parse(raw).map_err(|e| Error::Location {
            location: raw.to_string(),
            reason: e.to_string(),
        })?;
        let unknown = || Error::Location {
            location: raw.to_string(),
            reason: format!("unknown URL scheme {scheme:?} (use {SCHEMES})"),
        };
        let (kind, path) = ObjectStoreScheme::parse(&url).map_err(|_| unknown())?;
        match kind {
            ObjectStoreScheme::Local => {
                let p = url.to_file_path().map_err(|_| Error::Location {
                    location: raw.to_string(),
                    reason: "not a valid file:// URL".into(),
                })?;
                Location::local(raw, p)
            }
            ObjectStoreScheme::Memory => Ok(Location {
                store: memory_store(),
                path,
                local: None,
                display: raw.to_string(),
            }),
            ObjectStoreScheme::AmazonS3
            | ObjectStoreScheme::GoogleCloudStorage
            | ObjectStoreScheme::MicrosoftAzure => Ok(Location {
                store: cloud_store(&url, kind, raw)?,
                path,
                local: None,
                display: raw.to_string(),
            }),
            _ => Err(unknown()),
        }
    }

    fn local(raw: &str, p: PathBuf) -> Result<Location> {
        let abs = std::path::absolute(&p).map_err(|e| Error::io(raw, e))?;
        let path = ObjPath::from_absolute_path(&abs).map_err(|e| Error::Location {
            location: raw.to_string(),
            reason: e.to_string(),
        })?;
        Ok(Location {
            store: local_store(),
            path,
            local: Some(abs),
            display: raw.to_string(),
        })
    }

    /// A location inside this one (`self` taken as a directory).
    pub fn child(&self, name: &str) -> Location {
        let display = format!("{}/{}", self.display.trim_end_matches('/'), name);
        let path = self.path.clone().join(name);
        Location {
            store: self.store.clone(),
            path,
            local: self.local.as_ref().map(|p| p.join(name)),
            display,
        }
    }

    /// The same store at another path (listing results).
    pub fn with_path(&self, path: ObjPath) -> Location {
        let local = self
            .local
            .as_ref()
            .map(|_| PathBuf::from(format!("/{}", path.as_ref())));
        let display = match &local {
            Some(p) => p.display().to_string(),
            None => {
                let (scheme, rest) = self.display.split_once("://").unwrap_or(("", ""));
                let host = rest.split('/').next().unwrap_or_default();
                format!("{scheme}://{host}/{}", path.as_ref())
            }
        };
        Location {
            store: self.store.clone(),
            path,
            local,
            display,
        }
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn ObjectStore> {
        &self.store
    }

    /// The path inside the store.
    pub fn path(&self) -> &ObjPath {
        &self.path
    }

    /// The local file path, for local locations.
    pub fn local_path(&self) -> Option<&std::path::Path> {
        self.local.as_deref()
    }

    /// How the user spelled the location (used in messages).
    pub fn as_str(&self) -> &str {
        &self.display
    }

    fn store_err(&self, source: object_store::Error) -> Error {
        Error::Store {
            location: self.display.clone(),
            source,
        }
    }

    /// Read the whole object.
    pub fn read_all(&self) -> Result<Bytes> {
        if let Some(p) = &self.local {
            return std::fs::read(p)
                .map(Bytes::from)
                .map_err(|e| Error::io(&self.display, e));
        }
        block_on(async { self.store.get(&self.path).await?.bytes().await })
            .map_err(|e| self.store_err(e))
    }

    /// True when an object exists at this location.
    pub fn exists(&self) -> Result<bool> {
        if let Some(p) = &self.local {
            return Ok(p.is_file());
        }
        match block_on(self.store.head(&self.path)) {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(self.store_err(e)),
        }
    }

    /// Write `data` as one atomic put. Without `overwrite` the put is create-only and an
    /// existing object is an [`Error::OutputExists`].
    pub fn put(&self, data: Bytes, overwrite: bool) -> Result<()> {
        if let Some(p) = &self.local {
            if p.is_dir() {
                return Err(Error::Location {
                    location: self.display.clone(),
                    reason: "is a directory, expected a file".into(),
                });
            }
        }
        let mode = if overwrite {
            PutMode::Overwrite
        } else {
            PutMode::Create
        };
        let opts = PutOptions {
            mode,
            ..Default::default()
        };
        match block_on(
            self.store
                .put_opts(&self.path, PutPayload::from(data), opts),
        ) {
            Ok(_) => Ok(()),
            Err(object_store::Error::AlreadyExists { .. }) => Err(Error::OutputExists {
                location: self.display.clone(),
            }),
            Err(e) => Err(self.store_err(e)),
        }
    }

    /// Delete the object (missing is fine).
    pub fn delete(&self) -> Result<()> {
        match block_on(self.store.delete(&self.path)) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.store_err(e)),
        }
    }
}

/// Upload a local file to `target` (multipart for large files, parts of 10 MiB). Nothing is
/// visible at `target` unless the whole upload succeeded.
pub fn upload_file(local: &std::path::Path, target: &Location) -> Result<()> {
    use tokio::io::AsyncWriteExt;
    let err = |source| Error::Store {
        location: target.to_string(),
        source,
    };
    let mut file =
        std::fs::File::open(local).map_err(|e| Error::io(local.display().to_string(), e))?;
    block_on(async {
        let mut w = object_store::buffered::BufWriter::with_capacity(
            target.store().clone(),
            target.path().clone(),
            10 << 20,
        );
        let mut buf = vec![0u8; 1 << 20];
        loop {
            use std::io::Read;
            let n = file
                .read(&mut buf)
                .map_err(|e| Error::io(local.display().to_string(), e))?;
            if n == 0 {
                break;
            }
            if let Err(e) = w.write_all(&buf[..n]).await {
                let _ = w.abort().await;
                return Err(Error::io(target.to_string(), e));
            }
        }
        match w.shutdown().await {
            Ok(()) => Ok(()),
            Err(e) => {
                let _ = w.abort().await;
                Err(Error::io(target.to_string(), e))
            }
        }
    })
    .map_err(|e| match e {
        Error::Store { source, .. } => err(source),
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_scheme_is_named() {
        let err = Location::parse("ftp://host/x").unwrap_err().to_string();
        assert!(
            err.contains("ftp") && err.contains("unknown URL scheme"),
            "{err}"
        );
        assert_eq!(Location::parse("ftp://host/x").unwrap_err().exit_code(), 2);
    }

    #[test]
    fn memory_round_trip_and_create_only() {
        let loc = Location::parse("memory:///t/store_test.bjf").unwrap();
        loc.put(Bytes::from_static(b"abc"), false).unwrap();
        assert_eq!(loc.read_all().unwrap().as_ref(), b"abc");
        let err = loc.put(Bytes::from_static(b"def"), false).unwrap_err();
        assert!(matches!(err, Error::OutputExists { .. }));
        loc.put(Bytes::from_static(b"def"), true).unwrap();
        assert_eq!(loc.read_all().unwrap().as_ref(), b"def");
    }

    #[test]
    fn local_put_is_create_only() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub dir/ünï.bjf");
        let loc = Location::parse(p.to_str().unwrap()).unwrap();
        assert!(!loc.exists().unwrap());
        loc.put(Bytes::from_static(b"abc"), false).unwrap();
        assert!(loc.exists().unwrap());
        assert!(matches!(
            loc.put(Bytes::from_static(b"x"), false),
            Err(Error::OutputExists { .. })
        ));
        assert_eq!(std::fs::read(&p).unwrap(), b"abc");
    }
}
