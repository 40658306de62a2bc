//! The runtime: a backend, a data directory and hooks; sessions are opened
//! from it, one agent at a time. The CLI is a thin layer over this.
//!
//! On the host, each agent's state lives in `DATA/agents/NAME/`:
//! `store/` (the workspace's generation store, see [`crate::store`]),
//! `mindlog.jsonl` (the mindlog) and `sessions/ID.jsonl` (one event log per
//! session). A `workspace.tgz` left by an older version is imported as the
//! first generation on first use (and kept, renamed `workspace.tgz.imported`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::hooks::{Hook, Hooks};
use crate::hooks::{MindlogCopy, WorkspaceSync};
use crate::mindlog::{Mindlog, Segments};
use crate::sandbox::Backend;
use crate::sandbox::local::LocalBackend;
use crate::session::Session;
use crate::store::{GenerationId, Generations, Spool, Store, StoreError};

/// The default data directory, relative to the current directory.
pub const DEFAULT_DATA_DIR: &str = ".data";

/// Why the runtime refused a request.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// An agent name that cannot be a directory name.
    #[error(
        "invalid agent name '{0}': use 1-64 letters, digits, '.', '_' or '-', not starting with '.' or '-'"
    )]
    InvalidAgent(String),
}

/// What [`Runtime::upload_spools`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SpoolReport {
    /// Uploaded parks: agent, session, the generation that holds them now.
    pub uploaded: Vec<(String, String, GenerationId)>,
    /// Parks still only on this host: agent, session, why.
    pub pending: Vec<(String, String, String)>,
}

/// Where one agent's state lives on the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentPaths {
    /// The agent's name.
    pub agent: String,
    /// `DATA/agents/NAME`.
    pub dir: PathBuf,
    /// Where an older version kept the workspace as one archive
    /// (`DIR/workspace.tgz` unless overridden); imported on first use.
    pub archive: PathBuf,
    /// The generation store (`DIR/store`, or `FILE.generations` beside
    /// an overridden archive).
    pub store: PathBuf,
    /// The mindlog (`DIR/mindlog.jsonl` unless overridden).
    pub mindlog: PathBuf,
    /// The folder of session event logs (`DIR/sessions`).
    pub sessions: PathBuf,
    /// A store that replaces the directory `store` (e.g. object storage
    /// shared by several workers, see [`RuntimeBuilder::stores`]).
    pub shared_store: Option<SharedStore>,
    /// Append-only segments that replace the file `mindlog` (object storage
    /// shared by several workers, see [`StoreFactory::mindlog_for`]).
    pub shared_mindlog: Option<SharedMindlog>,
}

/// The [`Segments`] one agent's mindlog is kept in instead of a host file;
/// two are equal when they are the same object.
#[derive(Clone)]
pub struct SharedMindlog(pub Arc<dyn Segments>);

impl PartialEq for SharedMindlog {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for SharedMindlog {}

impl std::fmt::Debug for SharedMindlog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// A [`Store`] that one agent's paths point at instead of a host directory;
/// two are equal when they are the same store object.
#[derive(Clone)]
pub struct SharedStore(pub Arc<dyn Store>);

impl PartialEq for SharedStore {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for SharedStore {}

impl std::fmt::Debug for SharedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// Makes each agent's generation store when they are not kept in
/// `DATA/agents/NAME/store` (object storage, see `store::s3`).
pub trait StoreFactory: Send + Sync {
    /// The store of `agent`'s generations.
    fn store_for(&self, agent: &str) -> Arc<dyn Store>;

    /// Where `agent`'s mindlog is kept, when not in the data directory
    /// (default: it is).
    fn mindlog_for(&self, agent: &str) -> Option<Arc<dyn Segments>> {
        let _ = agent;
        None
    }
}

impl AgentPaths {
    /// The standard layout under `data_dir` for `agent`.
    ///
    /// ```
    /// use sandkeep::AgentPaths;
    ///
    /// let p = AgentPaths::new(".data".as_ref(), "demo").unwrap();
    /// assert_eq!(p.archive, std::path::Path::new(".data/agents/demo/workspace.tgz"));
    /// assert!(AgentPaths::new(".data".as_ref(), "../etc").is_err());
    /// ```
    pub fn new(data_dir: &Path, agent: &str) -> Result<AgentPaths, RuntimeError> {
        validate_agent(agent)?;
        let dir = data_dir.join("agents").join(agent);
        Ok(AgentPaths {
            agent: agent.to_string(),
            archive: dir.join("workspace.tgz"),
            store: dir.join("store"),
            mindlog: dir.join("mindlog.jsonl"),
            sessions: dir.join("sessions"),
            shared_store: None,
            shared_mindlog: None,
            dir,
        })
    }

    /// The mindlog: the shared segments when there are, else the file.
    pub fn open_mindlog(&self) -> Mindlog {
        let log = match &self.shared_mindlog {
            Some(segments) => Mindlog::on_segments(segments.0.clone()),
            None => Mindlog::new(&self.mindlog),
        };
        log.with_generations(self.generations())
    }

    /// The workspace's generations.
    pub fn generations(&self) -> Generations {
        match &self.shared_store {
            Some(store) => Generations::new(store.0.clone()),
            None => Generations::in_dir(&self.store),
        }
    }

    /// Where parks that could not reach a shared store are kept until it
    /// answers again (`DIR/spool`).
    pub fn spool(&self) -> Spool {
        Spool::new(self.dir.join("spool"))
    }

    /// The event log of one session.
    pub fn event_log(&self, session_id: &str) -> PathBuf {
        self.sessions.join(format!("{session_id}.jsonl"))
    }
}

/// Imports an older version's `workspace.tgz` as the first generation when
/// the store has none yet, then renames it `workspace.tgz.imported` (nothing
/// is lost). An unreadable archive is left where it is and reported.
pub fn migrate_legacy_archive(gens: &Generations, archive: &Path) -> Result<(), StoreError> {
    if gens.store().head()?.is_some() {
        return Ok(());
    }
    let bytes = match std::fs::read(archive) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(StoreError::io(archive.display(), e)),
    };
    let commit = gens.import_tgz(&bytes, &format!("imported from {}", archive.display()))?;
    let mut done = archive.as_os_str().to_owned();
    done.push(".imported");
    std::fs::rename(archive, &done).map_err(|e| StoreError::io(archive.display(), e))?;
    tracing::info!(
        "imported {} as generation {}",
        archive.display(),
        commit.record.id
    );
    Ok(())
}

/// Checks that an agent name is safe as a single directory name.
pub fn validate_agent(agent: &str) -> Result<(), RuntimeError> {
    let ok = !agent.is_empty()
        && agent.len() <= 64
        && !agent.starts_with(['.', '-'])
        && agent
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(RuntimeError::InvalidAgent(agent.to_string()))
    }
}

pub(crate) struct Inner {
    pub(crate) backend: Arc<dyn Backend>,
    pub(crate) data_dir: PathBuf,
    pub(crate) hooks: Hooks,
    pub(crate) archive_override: Option<PathBuf>,
    pub(crate) mindlog_override: Option<PathBuf>,
    pub(crate) event_log: bool,
    pub(crate) env: Vec<(String, String)>,
    /// Where network denials are filed, by session id.
    #[cfg(feature = "net")]
    pub(crate) net_logs: crate::netlog::NetLogs,
    pub(crate) stores: Option<Arc<dyn StoreFactory>>,
}

/// The entry point of the library: open sessions for agents.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use sandkeep::Runtime;
///
/// let data = tempfile::tempdir().unwrap();
/// let runtime = Runtime::builder().data_dir(data.path()).build();
///
/// // First session: write a file; completing it keeps the workspace.
/// let mut session = runtime.session("demo").unwrap();
/// session.run_script("echo remembered > note.txt").await.unwrap();
/// session.complete().await.unwrap();
///
/// // A later session of the same agent finds it again.
/// let mut session = runtime.session("demo").unwrap();
/// let out = session.run_script("cat note.txt").await.unwrap();
/// assert_eq!(out.stdout_text(), "remembered\n");
/// session.complete().await.unwrap();
/// # });
/// ```
#[derive(Clone)]
pub struct Runtime {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("backend", &self.inner.backend.kind())
            .field("data_dir", &self.inner.data_dir)
            .field("hooks", &self.inner.hooks)
            .finish()
    }
}

impl Runtime {
    /// Starts building a runtime (local backend, `.data`, default hooks).
    pub fn builder() -> RuntimeBuilder {
        RuntimeBuilder::default()
    }

    /// The backend sessions create their sandboxes on.
    pub fn backend(&self) -> &Arc<dyn Backend> {
        &self.inner.backend
    }

    /// The data directory.
    pub fn data_dir(&self) -> &Path {
        &self.inner.data_dir
    }

    /// The hooks every session runs, in order.
    pub fn hooks(&self) -> &Hooks {
        &self.inner.hooks
    }

    /// Where `agent`'s state lives, with the archive/mindlog overrides applied.
    pub fn paths(&self, agent: &str) -> Result<AgentPaths, RuntimeError> {
        let mut paths = AgentPaths::new(&self.inner.data_dir, agent)?;
        if let Some(p) = &self.inner.archive_override {
            paths.archive = p.clone();
            let mut store = p.as_os_str().to_owned();
            store.push(".generations");
            paths.store = PathBuf::from(store);
        }
        if let Some(p) = &self.inner.mindlog_override {
            paths.mindlog = p.clone();
        }
        if let Some(stores) = &self.inner.stores {
            paths.shared_store = Some(SharedStore(stores.store_for(agent)));
            // An explicit mindlog file (`MINDLOG_FILE`) still wins.
            if self.inner.mindlog_override.is_none() {
                paths.shared_mindlog = stores.mindlog_for(agent).map(SharedMindlog);
            }
        }
        Ok(paths)
    }

    /// A new session for `agent` (its sandbox is created on first use).
    pub fn session(&self, agent: &str) -> Result<Session, RuntimeError> {
        let paths = self.paths(agent)?;
        Ok(Session::new(self.inner.clone(), Some(paths)))
    }

    /// A session that belongs to no agent: nothing is restored or kept, and no
    /// event log is written. Custom hooks still run (with no agent).
    pub fn ephemeral_session(&self) -> Session {
        Session::new(self.inner.clone(), None)
    }

    /// Uploads every agent's spooled parks (parks that could not reach the
    /// shared store) whose sessions are not live in this process, each
    /// merged on the generation it was based on. Blocking: call it from
    /// `spawn_blocking` in async code. Nothing to do without shared stores.
    pub fn upload_spools(&self) -> SpoolReport {
        let mut report = SpoolReport::default();
        if self.inner.stores.is_none() {
            return report;
        }
        let agents = match std::fs::read_dir(self.inner.data_dir.join("agents")) {
            Ok(rd) => rd,
            Err(_) => return report,
        };
        let mut names: Vec<String> = agents
            .flatten()
            .filter(|e| e.path().join("spool").is_dir())
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        names.sort();
        for agent in names {
            let Ok(paths) = self.paths(&agent) else {
                continue;
            };
            let spool = paths.spool();
            match crate::hooks::upload_spooled(&spool, &paths.generations()) {
                Ok(crate::hooks::SpoolUploads { uploaded, left }) => {
                    for (session, record) in uploaded {
                        tracing::info!(
                            "[workspace-sync] {session} spooled park of agent {agent} uploaded as generation {}",
                            record.id
                        );
                        report.uploaded.push((agent.clone(), session, record.id));
                    }
                    for (session, why) in left {
                        report.pending.push((agent.clone(), session, why));
                    }
                }
                Err(e) => report.pending.push((
                    agent.clone(),
                    "*".into(),
                    format!("{}: {e}", spool.dir().display()),
                )),
            }
        }
        report
    }

    /// `agent`'s mindlog.
    pub fn mindlog(&self, agent: &str) -> Result<Mindlog, RuntimeError> {
        Ok(self.paths(agent)?.open_mindlog())
    }

    /// `agent`'s workspace generations (an old single archive is imported
    /// first, see [`AgentPaths::archive`]).
    pub fn generations(&self, agent: &str) -> Result<Generations, RuntimeError> {
        let paths = self.paths(agent)?;
        let gens = paths.generations();
        if let Err(e) = migrate_legacy_archive(&gens, &paths.archive) {
            tracing::warn!(
                "agent {agent}: {} not imported: {e}",
                paths.archive.display()
            );
        }
        Ok(gens)
    }
}

/// Configures a [`Runtime`].
pub struct RuntimeBuilder {
    backend: Option<Arc<dyn Backend>>,
    data_dir: PathBuf,
    default_hooks: bool,
    hooks: Vec<Arc<dyn Hook>>,
    archive_override: Option<PathBuf>,
    mindlog_override: Option<PathBuf>,
    event_log: bool,
    env: Vec<(String, String)>,
    stores: Option<Arc<dyn StoreFactory>>,
}

impl Default for RuntimeBuilder {
    fn default() -> Self {
        RuntimeBuilder {
            backend: None,
            data_dir: PathBuf::from(DEFAULT_DATA_DIR),
            default_hooks: true,
            hooks: Vec::new(),
            archive_override: None,
            mindlog_override: None,
            event_log: true,
            env: Vec::new(),
            stores: None,
        }
    }
}

impl RuntimeBuilder {
    /// The backend (default: [`LocalBackend`]).
    pub fn backend(mut self, backend: Arc<dyn Backend>) -> Self {
        self.backend = Some(backend);
        self
    }

    /// The data directory (default `.data`).
    pub fn data_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.data_dir = dir.into();
        self
    }

    /// Registers a hook; hooks run in registration order, after the default
    /// hooks ([`WorkspaceSync`], then [`MindlogCopy`]).
    pub fn hook(self, hook: impl Hook + 'static) -> Self {
        self.hook_arc(Arc::new(hook))
    }

    /// Registers a shared hook.
    pub fn hook_arc(mut self, hook: Arc<dyn Hook>) -> Self {
        self.hooks.push(hook);
        self
    }

    /// With `false`, the workspace-sync and mindlog-copy hooks are not added
    /// (register them yourself to choose their position).
    pub fn default_hooks(mut self, enabled: bool) -> Self {
        self.default_hooks = enabled;
        self
    }

    /// Uses this file as every agent's workspace archive (`WORKSPACE_ARCHIVE`).
    pub fn workspace_archive(mut self, path: impl Into<PathBuf>) -> Self {
        self.archive_override = Some(path.into());
        self
    }

    /// Uses this file as every agent's mindlog (`MINDLOG_FILE`).
    pub fn mindlog_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.mindlog_override = Some(path.into());
        self
    }

    /// With `false`, sessions write no event log (default: on).
    pub fn event_log(mut self, enabled: bool) -> Self {
        self.event_log = enabled;
        self
    }

    /// An environment variable every run of every session sees.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Keeps every agent's generations in the stores `factory` makes (e.g.
    /// one S3 bucket shared by several workers) instead of under the data
    /// directory; mindlogs too when the factory says where
    /// ([`StoreFactory::mindlog_for`]). Event logs stay in the data
    /// directory.
    pub fn stores(mut self, factory: Arc<dyn StoreFactory>) -> Self {
        self.stores = Some(factory);
        self
    }

    /// Builds the runtime.
    pub fn build(self) -> Runtime {
        let mut hooks = Hooks::new();
        if self.default_hooks {
            hooks.push(Arc::new(WorkspaceSync::new()));
            hooks.push(Arc::new(MindlogCopy::new()));
        }
        for hook in self.hooks {
            hooks.push(hook);
        }
        let backend: Arc<dyn Backend> = self
            .backend
            .unwrap_or_else(|| Arc::new(LocalBackend::new()));
        #[cfg(feature = "net")]
        let net_logs = crate::netlog::NetLogs::default();
        #[cfg(feature = "net")]
        if let Some(egress) = backend.egress() {
            net_logs.attach(&egress);
        }
        Runtime {
            inner: Arc::new(Inner {
                backend,
                data_dir: self.data_dir,
                hooks,
                archive_override: self.archive_override,
                mindlog_override: self.mindlog_override,
                event_log: self.event_log,
                env: self.env,
                #[cfg(feature = "net")]
                net_logs,
                stores: self.stores,
            }),
        }
    }
}
