//! A [`Store`] on S3-compatible object storage (the `object_store` crate),
//! so several `sandkeep serve` workers share every agent's generations.
//!
//! Under `s3://BUCKET/PREFIX`, agent `NAME` keeps:
//! - `PREFIX/agents/NAME/store/HEAD`: the head generation's id;
//! - `PREFIX/agents/NAME/store/records/ID.json`: one record per generation;
//! - `PREFIX/agents/NAME/store/blobs/HASH`: one LZ4-compressed blob per
//!   content hash (written once, checked against the hash on read).
//!
//! The head moves by a conditional put: `If-None-Match: *` for the first
//! generation, `If-Match: ETAG` of the head that was read otherwise, so two
//! workers that park the same agent at once never overwrite each other: the
//! loser sees `false` from [`Store::set_head`] and merges
//! ([`super::Generations`]). Blobs, then the record, then the head are
//! written, so a worker killed at any point leaves a head whose record and
//! blobs are all there.
//!
//! The agent's mindlog is kept beside them as append-only segments
//! ([`S3Mindlog`]): `PREFIX/agents/NAME/mindlog/MILLIS-SEQ-RANDOM.jsonl`, one object
//! per entry, created with `If-None-Match: *` so no append ever overwrites
//! another worker's; a read lists them and merges (see [`crate::mindlog`]).
//!
//! Endpoint, region and credentials come from the standard AWS environment
//! variables (`AWS_ENDPOINT_URL`, `AWS_REGION`, `AWS_ACCESS_KEY_ID`,
//! `AWS_SECRET_ACCESS_KEY`, `AWS_ALLOW_HTTP=true` for a plain-HTTP endpoint).
//!
//! [`Store`] is blocking; the object-store calls run on a small runtime of
//! this module's own, so the trait can be called from any thread that may
//! block (in async code: `spawn_blocking`).

use std::collections::HashSet;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{StreamExt, TryStreamExt};
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey, S3ConditionalPut};
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};

use super::{GenerationId, Hash, Record, Store, StoreError};
use crate::mindlog::Segments;
use crate::runtime::StoreFactory;

/// Retries of a failed request: fewer and shorter than object_store's
/// default (10 over up to 3 minutes), so a park facing a store that does
/// not answer spools within half a minute instead of hanging a caller.
fn default_retry() -> object_store::RetryConfig {
    object_store::RetryConfig {
        max_retries: 5,
        retry_timeout: Duration::from_secs(30),
        ..object_store::RetryConfig::default()
    }
}

/// How many objects are written or read at once.
const PARALLEL: usize = 16;

/// How long a blob seen in the bucket is taken to be there without asking
/// again (far below the gc grace period, so gc cannot race it in practice).
const SEEN_FOR: Duration = Duration::from_secs(30);

/// Blobs known to be stored, per agent root: a commit checks that every
/// blob of its tree is stored, and one LIST (1,000 keys a request) answers
/// that for a whole tree where one HEAD request per file would not.
#[derive(Default)]
struct SeenBlobs {
    by_root: std::sync::Mutex<std::collections::HashMap<String, Seen>>,
}

#[derive(Default)]
struct Seen {
    listed: Option<std::time::Instant>,
    blobs: std::collections::HashMap<Hash, std::time::Instant>,
}

/// Owns the runtime the object-store calls run on; shut down without
/// blocking when the last user goes (which may be inside async code).
struct IoRuntime(Option<tokio::runtime::Runtime>);

impl Drop for IoRuntime {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

impl IoRuntime {
    fn handle(&self) -> &tokio::runtime::Handle {
        self.0.as_ref().expect("present until dropped").handle()
    }
}

/// The stores of every agent under one `s3://BUCKET/PREFIX`.
#[derive(Clone)]
pub struct S3Stores {
    store: Arc<dyn ObjectStore>,
    prefix: String,
    io: Arc<IoRuntime>,
    grace: Duration,
    seen: Arc<SeenBlobs>,
}

impl fmt::Debug for S3Stores {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "S3Stores({}/{})", self.store, self.prefix)
    }
}

/// Why an `s3://` URL could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum S3ConfigError {
    /// Not `s3://BUCKET[/PREFIX]`.
    #[error("expected s3://BUCKET[/PREFIX], not {0}")]
    BadUrl(String),
    /// The object-store client refused the configuration.
    #[error(transparent)]
    Client(#[from] object_store::Error),
    /// A sandkeep setting whose value does not parse.
    #[error("setting {0}: bad value {1:?}")]
    BadSetting(String, String),
    /// The I/O runtime could not start.
    #[error("starting the object-store runtime: {0}")]
    Runtime(#[from] std::io::Error),
}

impl S3Stores {
    /// Opens `s3://BUCKET[/PREFIX]` with endpoint, region and credentials
    /// from the AWS environment variables.
    pub fn from_url(url: &str) -> Result<S3Stores, S3ConfigError> {
        S3Stores::from_url_with(url, std::iter::empty::<(&str, &str)>())
    }

    /// Like [`S3Stores::from_url`], with settings that override the
    /// environment's, named as the AWS variables are but in lower case
    /// (`aws_endpoint_url`, `aws_allow_http`, `aws_region`, ...), and two of
    /// sandkeep's: `max_retries` (default 5) and `retry_timeout` (a duration
    /// such as `20s`, default 30 s), how long a request that fails or gets a
    /// 5xx is retried before a park gives up on the store and spools.
    ///
    /// ```
    /// use sandkeep::S3Stores;
    ///
    /// let stores = S3Stores::from_url_with(
    ///     "s3://bucket/prefix",
    ///     [("aws_endpoint_url", "http://127.0.0.1:9"), ("aws_allow_http", "true"),
    ///      ("aws_region", "us-east-1")],
    /// );
    /// assert!(stores.is_ok());
    /// assert!(S3Stores::from_url("s3:///nobucket").is_err());
    /// assert!(S3Stores::from_url_with("s3://b", [("no_such_setting", "1")]).is_err());
    /// ```
    pub fn from_url_with<'a>(
        url: &str,
        settings: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<S3Stores, S3ConfigError> {
        let rest = url
            .strip_prefix("s3://")
            .ok_or_else(|| S3ConfigError::BadUrl(url.to_string()))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(S3ConfigError::BadUrl(url.to_string()));
        }
        // reqwest is built without a TLS provider of its own (the one it
        // would bring, aws-lc, probes the CPU at every process start): ring,
        // as for every TLS client of sandkeep.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = AmazonS3Builder::from_env();
        let mut retry = default_retry();
        for (key, value) in settings {
            match key {
                "max_retries" => {
                    retry.max_retries = value
                        .parse()
                        .map_err(|_| S3ConfigError::BadSetting(key.into(), value.into()))?;
                }
                "retry_timeout" => {
                    retry.retry_timeout = crate::duration::parse_duration(value)
                        .ok_or_else(|| S3ConfigError::BadSetting(key.into(), value.into()))?;
                }
                _ => {
                    let key: AmazonS3ConfigKey = key.parse()?;
                    builder = builder.with_config(key, value);
                }
            }
        }
        let store = builder
            .with_retry(retry)
            .with_bucket_name(bucket)
            .with_conditional_put(S3ConditionalPut::ETagMatch)
            .build()?;
        S3Stores::new(Arc::new(store), prefix)
    }

    /// Uses `store` (any object store with conditional puts), keeping agents
    /// under `prefix`.
    ///
    /// sandkeep builds reqwest (object_store's HTTP client) without a TLS
    /// crypto provider of its own: a store built outside
    /// [`S3Stores::from_url_with`] needs one installed first, e.g.
    /// `rustls::crypto::ring::default_provider().install_default()`.
    pub fn new(store: Arc<dyn ObjectStore>, prefix: &str) -> Result<S3Stores, S3ConfigError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("sandkeep-s3")
            .enable_all()
            .build()?;
        Ok(S3Stores {
            store,
            prefix: prefix.trim_matches('/').to_string(),
            io: Arc::new(IoRuntime(Some(rt))),
            grace: Duration::from_secs(3600),
            seen: Arc::default(),
        })
    }

    /// How old an unreferenced blob must be before gc removes it (default
    /// one hour: a worker's blobs are written before its record lands).
    pub fn with_grace(mut self, grace: Duration) -> S3Stores {
        self.grace = grace;
        self
    }

    /// The store of one agent's generations.
    pub fn agent(&self, agent: &str) -> S3Store {
        let root = if self.prefix.is_empty() {
            format!("agents/{agent}/store")
        } else {
            format!("{}/agents/{agent}/store", self.prefix)
        };
        S3Store {
            shared: self.clone(),
            root,
        }
    }
}

impl StoreFactory for S3Stores {
    fn store_for(&self, agent: &str) -> Arc<dyn Store> {
        Arc::new(self.agent(agent))
    }

    fn mindlog_for(&self, agent: &str) -> Option<Arc<dyn Segments>> {
        Some(Arc::new(self.mindlog(agent)))
    }
}

impl S3Stores {
    /// One agent's mindlog segments.
    pub fn mindlog(&self, agent: &str) -> S3Mindlog {
        let root = if self.prefix.is_empty() {
            format!("agents/{agent}/mindlog")
        } else {
            format!("{}/agents/{agent}/mindlog", self.prefix)
        };
        S3Mindlog {
            shared: self.clone(),
            root,
        }
    }

    /// Runs `fut` on the I/O runtime and waits for it.
    fn block<T: Send + 'static>(&self, fut: impl Future<Output = T> + Send + 'static) -> T {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.io.handle().spawn(async move {
            let _ = tx.send(fut.await);
        });
        rx.recv()
            .expect("the I/O runtime runs every task it is given")
    }
}

/// One agent's mindlog as append-only segment objects on object storage.
///
/// ```no_run
/// use sandkeep::{Mindlog, MindlogKind, S3Stores};
///
/// let stores = S3Stores::from_url("s3://bucket/prefix").unwrap();
/// let log = Mindlog::on_segments(std::sync::Arc::new(stores.mindlog("alice")));
/// log.append(MindlogKind::Note, "kept in the bucket", None).unwrap();
/// assert_eq!(log.read(1, None).unwrap()[0].text, "kept in the bucket");
/// ```
#[derive(Clone)]
pub struct S3Mindlog {
    shared: S3Stores,
    root: String,
}

impl fmt::Debug for S3Mindlog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.shared.store, self.root)
    }
}

impl S3Mindlog {
    fn segment_path(&self, name: &str) -> Path {
        Path::from(format!("{}/{name}.jsonl", self.root))
    }
}

fn other(e: object_store::Error) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

impl Segments for S3Mindlog {
    fn create(&self, name: &str, data: &[u8]) -> std::io::Result<bool> {
        let store = self.shared.store.clone();
        let path = self.segment_path(name);
        let body = PutPayload::from(data.to_vec());
        let data = data.to_vec();
        self.shared.block(async move {
            let mut tries = 0;
            loop {
                let refused = match store
                    .put_opts(&path, body.clone(), PutOptions::from(PutMode::Create))
                    .await
                {
                    Ok(_) => return Ok(true),
                    Err(e) => e,
                };
                // As for the head: a create S3 applied whose answer was lost
                // comes back refused (or failed). The segment's bytes say
                // whether it is ours, so one entry keeps one name across
                // retries and is never stored twice.
                let taken = matches!(
                    refused,
                    object_store::Error::AlreadyExists { .. }
                        | object_store::Error::Precondition { .. }
                );
                match store.get(&path).await {
                    Ok(r) => return Ok(r.bytes().await.map_err(other)? == data[..]),
                    Err(object_store::Error::NotFound { .. }) if !taken && tries < 3 => {
                        tries += 1;
                        tokio::time::sleep(Duration::from_millis(200 << tries)).await;
                    }
                    _ => return Err(other(refused)),
                }
            }
        })
    }

    fn names(&self) -> std::io::Result<Vec<String>> {
        let store = self.shared.store.clone();
        let prefix = Path::from(self.root.as_str());
        let metas = self.shared.block(async move {
            store
                .list(Some(&prefix))
                .try_collect::<Vec<_>>()
                .await
                .map_err(other)
        })?;
        Ok(metas
            .iter()
            .filter_map(|m| m.location.filename()?.strip_suffix(".jsonl"))
            .map(str::to_string)
            .collect())
    }

    fn read(&self, names: &[String]) -> std::io::Result<Vec<Option<Vec<u8>>>> {
        let store = self.shared.store.clone();
        let paths: Vec<Path> = names.iter().map(|n| self.segment_path(n)).collect();
        self.shared.block(async move {
            futures_util::stream::iter(paths)
                .map(|path| {
                    let store = store.clone();
                    async move {
                        match store.get(&path).await {
                            Ok(r) => r.bytes().await.map(|b| Some(b.to_vec())).map_err(other),
                            Err(object_store::Error::NotFound { .. }) => Ok(None),
                            Err(e) => Err(other(e)),
                        }
                    }
                })
                .buffered(PARALLEL)
                .try_collect()
                .await
        })
    }
}

/// One agent's generations on object storage.
#[derive(Clone)]
pub struct S3Store {
    shared: S3Stores,
    root: String,
}

impl fmt::Debug for S3Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "S3Store({}/{})", self.shared.store, self.root)
    }
}

/// An object's content as trimmed text, `None` when absent.
async fn read_text(
    store: &Arc<dyn ObjectStore>,
    path: &Path,
) -> Result<Option<String>, object_store::Error> {
    match store.get(path).await {
        Ok(r) => {
            let bytes = r.bytes().await?;
            Ok(Some(String::from_utf8_lossy(&bytes).trim().to_string()))
        }
        Err(object_store::Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

fn io_error(what: impl fmt::Display, e: object_store::Error) -> StoreError {
    StoreError::io(what, std::io::Error::other(e.to_string()))
}

impl S3Store {
    fn with_seen<T>(&self, f: impl FnOnce(&mut Seen) -> T) -> T {
        let mut map = self
            .shared
            .seen
            .by_root
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        f(map.entry(self.root.clone()).or_default())
    }

    fn mark_seen(&self, hashes: impl IntoIterator<Item = Hash>) {
        let now = std::time::Instant::now();
        self.with_seen(|seen| {
            for h in hashes {
                seen.blobs.insert(h, now);
            }
        });
    }

    fn path(&self, rest: &str) -> Path {
        Path::from(format!("{}/{rest}", self.root))
    }

    fn head_path(&self) -> Path {
        self.path("HEAD")
    }

    fn record_path(&self, id: &GenerationId) -> Path {
        self.path(&format!("records/{id}.json"))
    }

    fn blob_path(&self, hash: &Hash) -> Path {
        self.path(&format!("blobs/{hash}"))
    }

    /// Runs `fut` on the I/O runtime and waits for it.
    fn block<T: Send + 'static>(&self, fut: impl Future<Output = T> + Send + 'static) -> T {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.shared.io.handle().spawn(async move {
            let _ = tx.send(fut.await);
        });
        rx.recv()
            .expect("the I/O runtime runs every task it is given")
    }

    /// An object's bytes, `None` when absent.
    fn get(&self, path: Path) -> Result<Option<Vec<u8>>, StoreError> {
        let store = self.shared.store.clone();
        self.block(async move {
            match store.get(&path).await {
                Ok(r) => r
                    .bytes()
                    .await
                    .map(|b| Some(b.to_vec()))
                    .map_err(|e| io_error(&path, e)),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(io_error(&path, e)),
            }
        })
    }

    /// Every object's name (the part after `dir/`) and metadata under `dir`.
    fn list(&self, dir: &str) -> Result<Vec<object_store::ObjectMeta>, StoreError> {
        let store = self.shared.store.clone();
        let prefix = self.path(dir);
        self.block(async move {
            store
                .list(Some(&prefix))
                .try_collect::<Vec<_>>()
                .await
                .map_err(|e| io_error(&prefix, e))
        })
    }
}

impl Store for S3Store {
    fn head(&self) -> Result<Option<GenerationId>, StoreError> {
        Ok(self.get(self.head_path())?.and_then(|bytes| {
            let text = String::from_utf8_lossy(&bytes).trim().to_string();
            (!text.is_empty()).then_some(GenerationId(text))
        }))
    }

    fn set_head(
        &self,
        expected: Option<&GenerationId>,
        new: &GenerationId,
    ) -> Result<bool, StoreError> {
        let store = self.shared.store.clone();
        let path = self.head_path();
        let expected = expected.cloned();
        let body = PutPayload::from(format!("{new}\n"));
        let new = new.clone();
        self.block(async move {
            let mode = match &expected {
                None => PutMode::Create,
                Some(want) => {
                    let current = match store.get(&path).await {
                        Ok(r) => r,
                        Err(object_store::Error::NotFound { .. }) => return Ok(false),
                        Err(e) => return Err(io_error(&path, e)),
                    };
                    let version = UpdateVersion {
                        e_tag: current.meta.e_tag.clone(),
                        version: current.meta.version.clone(),
                    };
                    let bytes = current.bytes().await.map_err(|e| io_error(&path, e))?;
                    if String::from_utf8_lossy(&bytes).trim() != want.as_str() {
                        return Ok(false);
                    }
                    PutMode::Update(version)
                }
            };
            let refused = match store.put_opts(&path, body, PutOptions::from(mode)).await {
                Ok(_) => return Ok(true),
                Err(e) => e,
            };
            // The outcome of a refused or failed put is not known from its
            // answer: a put S3 applied whose answer was lost (a 503, a
            // dropped connection) is retried by the client and then refused
            // as a failed precondition. The head's content says which: our
            // id is new, so only our put can have written it.
            let lost_race = matches!(
                refused,
                object_store::Error::AlreadyExists { .. }
                    | object_store::Error::Precondition { .. }
            );
            match read_text(&store, &path).await {
                Ok(Some(now)) if now == new.as_str() => Ok(true),
                _ if lost_race => Ok(false),
                _ => Err(io_error(&path, refused)),
            }
        })
    }

    fn read_record(&self, id: &GenerationId) -> Result<Record, StoreError> {
        let path = self.record_path(id);
        let bytes = self
            .get(path.clone())?
            .ok_or_else(|| StoreError::NoGeneration(id.0.clone()))?;
        serde_json::from_slice(&bytes).map_err(|e| StoreError::Damaged {
            what: format!("record {path}"),
            reason: e.to_string(),
        })
    }

    fn write_record(&self, record: &Record) -> Result<(), StoreError> {
        let store = self.shared.store.clone();
        let path = self.record_path(&record.id);
        let body = serde_json::to_vec(record).map_err(|e| StoreError::Damaged {
            what: format!("record {}", record.id),
            reason: e.to_string(),
        })?;
        self.block(async move {
            store
                .put(&path, PutPayload::from(body))
                .await
                .map(|_| ())
                .map_err(|e| io_error(&path, e))
        })
    }

    fn remove_record(&self, id: &GenerationId) -> Result<(), StoreError> {
        let store = self.shared.store.clone();
        let path = self.record_path(id);
        self.block(async move {
            match store.delete(&path).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(io_error(&path, e)),
            }
        })
    }

    fn read_session(&self, id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.get(self.path(&format!("sessions/{id}.json")))
    }

    fn write_session(&self, id: &str, record: &[u8]) -> Result<(), StoreError> {
        let store = self.shared.store.clone();
        let path = self.path(&format!("sessions/{id}.json"));
        let body = record.to_vec();
        self.block(async move {
            store
                .put(&path, PutPayload::from(body))
                .await
                .map(|_| ())
                .map_err(|e| io_error(&path, e))
        })
    }

    fn remove_session(&self, id: &str) -> Result<(), StoreError> {
        let store = self.shared.store.clone();
        let path = self.path(&format!("sessions/{id}.json"));
        self.block(async move {
            match store.delete(&path).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(io_error(&path, e)),
            }
        })
    }

    fn session_ids(&self) -> Result<Vec<(String, u64)>, StoreError> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Ok(self
            .list("sessions")?
            .into_iter()
            .filter_map(|m| {
                let id = m.location.filename()?.strip_suffix(".json")?.to_string();
                let age = now.saturating_sub(m.last_modified.timestamp().max(0) as u64);
                Some((id, age))
            })
            .collect())
    }

    fn record_ids(&self) -> Result<Vec<GenerationId>, StoreError> {
        Ok(self
            .list("records")?
            .into_iter()
            .filter_map(|m| {
                m.location
                    .filename()
                    .and_then(|f| f.strip_suffix(".json"))
                    .map(|id| GenerationId(id.to_string()))
            })
            .collect())
    }

    fn has_blob(&self, hash: &Hash) -> Result<bool, StoreError> {
        let (known, listed_recently) = self.with_seen(|seen| {
            (
                seen.blobs.get(hash).is_some_and(|t| t.elapsed() < SEEN_FOR),
                seen.listed.is_some_and(|t| t.elapsed() < SEEN_FOR),
            )
        });
        if known {
            return Ok(true);
        }
        if !listed_recently {
            let started = std::time::Instant::now();
            let all = self.blob_hashes()?;
            self.with_seen(|seen| {
                seen.listed = Some(started);
                for h in all {
                    seen.blobs.insert(h, started);
                }
            });
            if self.with_seen(|seen| seen.blobs.contains_key(hash)) {
                return Ok(true);
            }
        }
        let store = self.shared.store.clone();
        let path = self.blob_path(hash);
        self.block(async move {
            match store.head(&path).await {
                Ok(_) => Ok(true),
                Err(object_store::Error::NotFound { .. }) => Ok(false),
                Err(e) => Err(io_error(&path, e)),
            }
        })
        .inspect(|&found| {
            if found {
                self.mark_seen([*hash]);
            }
        })
    }

    fn read_blob(&self, hash: &Hash) -> Result<Vec<u8>, StoreError> {
        let comp = self
            .get(self.blob_path(hash))?
            .ok_or(StoreError::MissingBlob(*hash))?;
        let data =
            lz4_flex::block::decompress_size_prepended(&comp).map_err(|e| StoreError::Damaged {
                what: format!("blob {hash}"),
                reason: e.to_string(),
            })?;
        if Hash::of(&data) != *hash {
            return Err(StoreError::Damaged {
                what: format!("blob {hash}"),
                reason: "content does not match its hash".into(),
            });
        }
        Ok(data)
    }

    fn write_blobs(&self, blobs: &[(Hash, &[u8])]) -> Result<u64, StoreError> {
        let store = self.shared.store.clone();
        let hashes: Vec<Hash> = blobs.iter().map(|(h, _)| *h).collect();
        let objects: Vec<(Path, Vec<u8>)> = blobs
            .iter()
            .map(|(hash, data)| {
                (
                    self.blob_path(hash),
                    lz4_flex::block::compress_prepend_size(data),
                )
            })
            .collect();
        self.block(async move {
            futures_util::stream::iter(objects)
                .map(|(path, body)| {
                    let store = store.clone();
                    async move {
                        let len = body.len() as u64;
                        store
                            .put(&path, PutPayload::from(body))
                            .await
                            .map(|_| len)
                            .map_err(|e| io_error(&path, e))
                    }
                })
                .buffer_unordered(PARALLEL)
                .try_fold(0u64, |total, n| async move { Ok(total + n) })
                .await
        })
        .inspect(|_| self.mark_seen(hashes))
    }

    fn retain_blobs(&self, keep: &HashSet<Hash>) -> Result<u64, StoreError> {
        self.with_seen(|seen| *seen = Seen::default());
        let cutoff = crate::timestamp::unix_now()
            .saturating_sub(i64::try_from(self.shared.grace.as_secs()).unwrap_or(i64::MAX));
        let doomed: Vec<(Path, u64)> = self
            .list("blobs")?
            .into_iter()
            .filter(|m| {
                let hash = m.location.filename().and_then(Hash::from_hex);
                hash.is_some_and(|h| !keep.contains(&h)) && m.last_modified.timestamp() < cutoff
            })
            .map(|m| (m.location, m.size))
            .collect();
        let store = self.shared.store.clone();
        self.block(async move {
            futures_util::stream::iter(doomed)
                .map(|(path, size)| {
                    let store = store.clone();
                    async move {
                        match store.delete(&path).await {
                            Ok(()) => Ok(size),
                            Err(object_store::Error::NotFound { .. }) => Ok(0),
                            Err(e) => Err(io_error(&path, e)),
                        }
                    }
                })
                .buffer_unordered(PARALLEL)
                .try_fold(0u64, |total, n| async move { Ok(total + n) })
                .await
        })
    }

    fn blob_hashes(&self) -> Result<Vec<Hash>, StoreError> {
        Ok(self
            .list("blobs")?
            .into_iter()
            .filter_map(|m| m.location.filename().and_then(Hash::from_hex))
            .collect())
    }
}
