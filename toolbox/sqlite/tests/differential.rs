//! The differential suite of `sqlite3`: every case (a bash script that runs
//! sqlite3: one-liners, heredocs, dot-commands, error paths) runs in a local
//! shell with the embedded sqlite3 installed AND in host bash with the
//! host's `/usr/bin/sqlite3` (Debian's 3.40.1) in a fresh temp dir; stdout
//! and exit status must match (cases about errors send stderr to stdout
//! with `2>&1`, so sqlite3's words are compared too). Cases live in
//! `tests/cases/*.txt` in the shell's `### name` format, written from
//! sqlite.org/cli.html and agent usage before the implementation; a case
//! that differs for a known reason carries `#skip: reason`, and the suite
//! checks it still differs (a skip that passes is reported).
//!
//! Run: `cargo test -p sandkeep-sqlite --test differential`
//! (`SQ_CASE=substring` runs only matching cases and prints both sides).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

#[path = "../../../shell/tests/support/cases.rs"]
#[allow(dead_code)]
mod cases;
#[path = "../../../shell/tests/support/tool_differential.rs"]
mod tool_differential;

use tool_differential::Suite;

const SUITE: Suite = Suite {
    name: "sqlite3",
    install: sandkeep_sqlite::install,
    host_tool: "/usr/bin/sqlite3",
    only_var: "SQ_CASE",
    cases: concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases"),
    min_cases: 150,
};

#[test]
fn sqlite3_matches_host_sqlite3() {
    SUITE.run();
}
