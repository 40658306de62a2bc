//! The shell's integration tests, in one test binary: each former
//! `tests/NAME.rs` is the module `NAME` here, so its tests keep their names
//! under that path (`differential::differential`, `jq_diff::jq_matches_host_jq`).
//! One binary links the crate once instead of once per file, which was most of
//! the build time of `cargo test`. Select a suite by its module path:
//!
//! ```text
//! cargo test --release -p sandkeep-shell --test suite differential::
//! cargo test --release -p sandkeep-shell --test suite jq_diff::
//! cargo test --release -p sandkeep-shell --test suite -- --ignored awk_perf::
//! ```
//!
//! The case files stay in `tests/*_cases/` (found through
//! `CARGO_MANIFEST_DIR`) and the shared harness in `tests/support/`. No test
//! here changes process-wide state (environment, current directory, panic
//! hook), so all of them can share one process. What each former binary had
//! to itself is kept with one lock ([`support::suite::alone`]): a suite that
//! compares with host bash or gawk runs alone, as some of its cases race
//! (jobs, pipes) and need their processes to get a core soon; the tests that
//! keep cores busy (`devices`, `jobs`, `limits`, `misc_behaviour`) take
//! [`support::suite::off_suites`] and run beside each other but never beside
//! a suite; the rest (jq, archives, fuzzing, ...) run beside anything.
//!
//! `tests/isolation.rs` stays a binary of its own: it checks that host `/tmp`
//! is unchanged by a run, which the suites here (each making and removing
//! host temp dirs) would break if they ran beside it.

#[path = "../support/mod.rs"]
mod support;

#[path = "../builtins_cases/mod.rs"]
mod builtins_cases;

mod archive;
mod archive_formats;
mod archive_gnu;
mod archive_shell;
mod awk_diff;
mod awk_gawk;
mod awk_parse_fuzz;
mod awk_perf;
mod builtins_diff;
mod devices;
mod diff_diff;
mod differential;
mod expand_diff;
mod expand_perf;
mod find_diff;
mod jobs;
mod jq_diff;
mod jq_suite;
mod limits;
mod misc_behaviour;
mod misc_diff;
mod registry_diff;
mod script_fuzz;
mod text_diff;
mod text_fuzz;
