//! # sandkeep
//!
//! A sandbox runtime for AI agents: a bash tool whose shell runs in a sandbox
//! rooted at `/workspace`, on one of two backends: **local** (an in-process
//! bash interpreter over a virtual filesystem, see [`sandbox::local`]) or
//! **docker** (one container per session).
//!
//! Sandboxes are disposable; agents are not. What survives a session lives on
//! the host, outside any sandbox: the workspace's **generations** ([`store`]),
//! the **mindlog** ([`mindlog`]) and the session **event logs** ([`eventlog`]).
//! [`hooks`] move state across the boundary at session events ([`session`]);
//! the default ones are [`hooks::WorkspaceSync`] and [`hooks::MindlogCopy`].
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
pub mod archive;
pub mod duration;
pub mod eventlog;
pub mod hooks;
mod ids;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod mindlog;
#[cfg(feature = "net")]
mod netlog;
pub mod runtime;
pub mod sandbox;
#[cfg(feature = "schedule")]
pub mod schedule;
#[cfg(feature = "server")]
pub mod server;
pub mod session;
pub mod store;
pub mod timestamp;

pub use hooks::{Hook, HookContext, HookError, HookEvent, HookResult, KeptGeneration, RunInfo};
pub use runtime::{AgentPaths, Runtime, RuntimeBuilder};
pub use sandbox::{Backend, BackendKind, RunRequest, RunResult, Sandbox, SandboxError};
pub use session::Session;
