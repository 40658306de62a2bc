//! # sandkeep
//!
//! A sandbox runtime for AI agents: a bash tool whose shell runs in a sandbox
//! rooted at `/workspace`, on one of two backends: **local** (an in-process
//! bash interpreter over a virtual filesystem, see [`LocalBackend`]) or
//! **docker** (one container per session).
//!
//! Sandboxes are disposable; agents are not. What survives a session lives on
//! the host, outside any sandbox: the workspace's **generations**
//! ([`Generations`] over a [`Store`]), the **mindlog** ([`Mindlog`]) and the
//! session **event logs** ([`EventLog`], read back with [`read_event_log`]).
//! [`Hook`]s move state across the boundary at session events
//! ([`HookEvent`], emitted by a [`Session`]); the default ones are
//! [`WorkspaceSync`] and [`MindlogCopy`].
//!
//! Everything public is exported here at the crate root; the modules behind
//! it are private.
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use sandkeep::Runtime;
//!
//! let data = tempfile::tempdir().unwrap();
//! let runtime = Runtime::builder().data_dir(data.path()).build();
//! for expected in ["FIRES=1\n", "FIRES=2\n"] {
//!     let mut session = runtime.session("demo").unwrap();
//!     let out = session
//!         .run_script("echo fire >> fires.txt; echo FIRES=$(wc -l < fires.txt)")
//!         .await
//!         .unwrap();
//!     assert_eq!(out.stdout_text(), expected);
//!     session.complete().await.unwrap();
//! }
//! # });
//! ```

#![deny(missing_docs)]

// The modules are private: the public API is what is re-exported below.
mod archive;
mod duration;
mod eventlog;
mod hooks;
mod ids;
#[cfg(feature = "mcp")]
mod mcp;
mod mindlog;
#[cfg(feature = "net")]
mod netlog;
mod runtime;
mod sandbox;
#[cfg(feature = "schedule")]
mod schedule;
#[cfg(feature = "server")]
mod server;
mod session;
mod store;
mod timestamp;

// Runtime and sessions: the entry point, where an agent's state lives, errors.
pub use runtime::{
    AgentPaths, DEFAULT_DATA_DIR, Runtime, RuntimeBuilder, RuntimeError, SharedMindlog,
    SharedStore, SpoolReport, StoreFactory, validate_agent,
};
pub use session::{Session, SessionError};
// Sandboxes: the traits every backend implements, what a run takes and gives.
pub use sandbox::{
    Backend, BackendKind, FileHead, Listed, ListedKind, Listing, OutputSink, RunRequest, RunResult,
    Sandbox, SandboxError, SandboxSpec, ShellSnapshot, WorkspaceChanges,
};
// The local backend: in-process, or one worker process per sandbox.
pub use sandbox::local::{LocalBackend, LocalSandbox};
pub use sandbox::worker::{WorkerBackend, WorkerLimits, WorkerSandbox};
// The docker backend (feature `docker`) and the choice between backends.
#[cfg(feature = "docker")]
pub use sandbox::docker::{
    DEFAULT_IMAGE, DockerBackend, DockerConfig, DockerSandbox, NetworkPolicy, PoolConfig,
    PoolStats, PullPolicy, config::DEFAULT_DOCKER_HOST, storage::StorageLimit,
};
#[cfg(feature = "docker")]
pub use sandbox::select::{BACKEND_ENV, BackendChoice, choose_backend, reap_orphans};
// Hooks: code that runs at session events, and the two default ones.
pub use hooks::{
    Hook, HookContext, HookError, HookEvent, HookFailure, HookResult, Hooks, KeptGeneration,
    MindlogCopy, RunInfo, WorkspaceSync,
};
// The mindlog: an agent's append-only memory, in a file or in segments.
pub use mindlog::{
    Entry as MindlogEntry, Kind as MindlogKind, Mindlog, MindlogError, SANDBOX_MINDLOG_PATH,
    Segments as MindlogSegments, Version as MindlogVersion,
};
// The generation store: an agent's workspace history, its manifests, merges.
pub use store::{
    Change, ChangeKind, ChangeStats, Commit, Conflict, Delta, DirStore, Edit,
    Entry as ManifestEntry, GcReport, GenerationId, Generations, Hash, Kind as ManifestKind,
    Manifest, Record, Repair, Resolution, Retention, Spool, Spooled, Store, StoreError,
    StoredManifest,
};
// Generations and mindlogs on S3-compatible object storage (feature `s3`).
#[cfg(feature = "s3")]
pub use store::s3::{S3ConfigError, S3Mindlog, S3Store, S3Stores};
// Session event logs: the log a session writes, and reading one back.
pub use eventlog::{EventLog, Stream as EventLogStream, read_records as read_event_log};
// Markdown cron schedules (feature `schedule`).
#[cfg(feature = "schedule")]
pub use schedule::{
    Agent, CronError, CronSpec, FireError, FireReport, Overlap, ScheduleFile, ScheduleFileError,
    Scheduler, ScriptAgent, fire as fire_schedule, load_dir as load_schedules,
    own_runtime_key as schedule_runtime_key, parse_file as parse_schedule,
};
// The HTTP service (feature `server`) and its bearer tokens.
#[cfg(feature = "server")]
pub use server::auth::{Caller as TokenCaller, Grant as TokenGrant, TokenFileError, Tokens};
#[cfg(feature = "server")]
pub use server::parked::{NoPersist, ParkedSession};
#[cfg(feature = "server")]
pub use server::{ServeConfig, Server, ShutdownReport};
// The MCP server over stdio (feature `mcp`).
#[cfg(feature = "mcp")]
pub use mcp::McpServer;

/// Plumbing of the `sandkeep` binary, a separate crate target that sees
/// only public items: the worker process's side, the duration and timestamp
/// forms the command line reads and prints, file-name quoting and atomic
/// writes for `sandkeep archive`; not part of the API.
#[doc(hidden)]
pub mod cli_support {
    pub use crate::archive::atomic::write_atomic;
    pub use crate::archive::names;
    pub use crate::duration::parse_duration;
    pub use crate::sandbox::worker::serve::serve as serve_worker;
    pub use crate::timestamp::{rfc3339_secs, utc_seconds};
}

/// Internals this crate's own integration tests and doctests reach (the
/// host-side tar reader, the docker reaper's helpers, the OpenAPI document
/// and its patterns); not part of the API.
#[doc(hidden)]
pub mod testing {
    pub use crate::archive::{ArchiveEntry, ArchiveTree, EntryKind, Refused};
    #[cfg(feature = "docker")]
    pub use crate::sandbox::docker::reaper::{list_sandbox_containers, owner_is_gone};
    #[cfg(feature = "server")]
    pub use crate::server::openapi::{
        AGENT_PATTERN, NOT_BLANK_PATTERN, document as openapi_document,
    };
}
