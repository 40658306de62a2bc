//! The runtime's tests that need no container engine, in one test binary:
//! each former `tests/NAME.rs` is the module `NAME` here, so its tests keep
//! their names under that path (`sessions::fires_twice`, `cli::`). One
//! binary links the crate once instead of once per file, which was most of
//! the build time of `cargo test`. Select a group by its module path:
//!
//! ```text
//! cargo test --release --test runtime sessions::
//! cargo test --release --test runtime mcp::
//! ```
//!
//! Modules: `cli` (the binary end to end), `local_backend`, `sessions` (the
//! sessions issue's scenarios on the local backend), `schedule`, `mcp` (the
//! official Python SDK against `sandkeep mcp`; its docker half skips without
//! a daemon), `worker_process` (`--isolation process`) and
//! `parity_leftovers`, which checks that no sandbox container outlived its
//! owner: cargo runs test binaries in name order, so the `docker` binary's
//! process has exited by the time this one runs.
//!
//! The docker backend's own tests and the cross-backend parity tests are the
//! `docker` binary; `sandkeep serve` and the S3 store are `server`; the
//! attack suite is `attack`.

#[path = "../common/mod.rs"]
mod common;
#[path = "../docker_support/mod.rs"]
mod docker_support;

mod cli;
mod local_backend;
mod mcp;
mod mcp_conformance;
mod mcp_resources;
mod parity_leftovers;
mod schedule;
mod sessions;
mod worker_process;
