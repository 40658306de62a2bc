//! Test support shared by the shell's integration tests, above all the
//! differential suites that run the same script in our shell and in the
//! host's bash and compare what the two produced.
//!
//! - [`cases`]: the `### name` case-file format and one-case-per-line lists;
//! - [`ours`]: running a script in a fresh [`sandkeep_shell::Shell`], or one
//!   registry command directly over a [`sandkeep_shell::Fs`];
//! - [`host`]: running host bash in a fresh temp dir with a clean
//!   environment, temp dirs, which tools the host has;
//! - [`suite`]: comparing two [`Outcome`]s, the mismatch report and the final
//!   `N passed, F failed, S skipped` assertion, and the lock that runs each
//!   suite alone;
//! - [`archive`]: fixtures of the archive tests;
//! - here: [`text`], [`median`] and [`proptest_config`], small helpers of
//!   the behaviour, timing and property tests.
//!
//! The test binary `tests/suite/` compiles this module (`mod support;`), as
//! may any other binary in `tests/`; each uses only part of it, hence the
//! module-wide `dead_code` allowance. Tests may run host
//! processes (clippy.toml forbids it in `shell/src` only).
#![allow(dead_code, clippy::disallowed_methods, clippy::disallowed_types)]

pub mod archive;
pub mod cases;
pub mod host;
pub mod ours;
pub mod suite;

/// What one run produced, in our shell or in host bash.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Exit status; -1 when our side panicked (see [`ours`]).
    pub status: i32,
    /// Everything written to stdout.
    pub stdout: Vec<u8>,
    /// Everything written to stderr.
    pub stderr: Vec<u8>,
}

impl Outcome {
    /// Whether this is our side's record of a panic.
    pub fn panicked(&self) -> bool {
        self.status < 0
    }
}

/// `bytes` as text, invalid UTF-8 replaced (for assertions and messages).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The median of `v` (the upper one of an even count); panics when empty.
pub fn median<T: PartialOrd + Copy>(mut v: Vec<T>) -> T {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// The configuration of the property tests: `PROPTEST_CASES` cases (2,000
/// by default), no failure files written next to the sources.
pub fn proptest_config() -> proptest::prelude::ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    proptest::prelude::ProptestConfig {
        cases,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    }
}
