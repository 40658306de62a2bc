//! The tests that drive the docker backend, in one test binary: each former
//! `tests/NAME.rs` is a module here (`docker.rs` is `backend`,
//! `docker_isolation.rs` `isolation`, `docker_robustness.rs` `robustness`,
//! `sessions_docker.rs` `sessions`; the others keep their names), so the
//! crate is linked once for all of them. Without a daemon the docker halves
//! skip with a printed reason, unless `SANDKEEP_REQUIRE_DOCKER=1` (CI) makes
//! that a failure; the local halves of the cross-backend tests still run.
//!
//! ```text
//! DOCKER_HOST=unix:///tmp/dk/docker.sock cargo test --release --test docker
//! cargo test --release --test docker net::
//! cargo test --release --test docker parity_bench:: -- --ignored --nocapture
//! ```
//!
//! Modules: `backend` (containers, limits, workspace transfer),
//! `isolation` (what the container may not do), `robustness` (process
//! sweep, storage limit, bounded reads), `sessions` (the sessions issue's
//! scenarios on docker), `parity` and `python_parity` (the same scripts on
//! both backends), `git_cross_backend` (a repository moving between them),
//! `net` (the egress policy on both backends) and the ignored
//! `parity_bench`.

#[path = "../common/mod.rs"]
mod common;
#[path = "../docker_support/mod.rs"]
mod docker_support;

mod backend;
mod git_cross_backend;
mod isolation;
mod net;
mod parity;
mod parity_bench;
mod parity_tools;
mod python_parity;
mod robustness;
mod sessions;
