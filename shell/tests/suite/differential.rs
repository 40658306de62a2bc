//! Differential suite: every case in `tests/diff_cases/*.txt` runs in our
//! shell and, when `bash` is on the machine, in real bash inside a fresh temp
//! directory; stdout and exit status must match.
//!
//! The case files use the `### name` / `#skip: reason` format of
//! [`crate::support::cases`]; every `*.txt` file in the directory is read.
//! `DIFF_FILTER=substr` runs only cases whose file or name contains it;
//! `DIFF_RUN_SKIPPED=1` runs the `#skip:` cases too.
#![allow(clippy::disallowed_methods)] // test knobs come from the environment

use std::path::{Path, PathBuf};

use crate::support::cases::{self, Case};
use crate::support::suite::{Suite, show_both};

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diff_cases")
}

fn load_cases() -> Vec<Case> {
    cases::load_dir(&cases_dir())
}

#[test]
fn differential() {
    let cases = load_cases();
    assert!(
        !cases.is_empty(),
        "no cases found in {}",
        cases_dir().display()
    );
    let mut suite = Suite::new("differential").filter_from("DIFF_FILTER");
    suite.run_cases(&cases);
    suite.finish();
}

#[test]
fn case_files_parse() {
    cases::assert_well_formed(&load_cases());
}

#[test]
fn case_format() {
    let text = "header\n### one\necho 1\n\n\n### two\n#skip: not yet\necho 2\n### three\n";
    let got = cases::parse("f.txt", text);
    let want = [
        ("one", None, "echo 1\n"),
        ("two", Some("not yet"), "echo 2\n"),
        ("three", None, "\n"),
    ];
    assert_eq!(got.len(), want.len());
    for (c, (name, skip, script)) in got.iter().zip(want) {
        assert_eq!(
            (c.name.as_str(), c.skip.as_deref(), c.script.as_str()),
            (name, skip, script)
        );
        assert_eq!(c.file, "f.txt");
    }
}

/// Debugging aid: `DIFF_ADHOC='script' cargo test -p sandkeep-shell --test suite differential::adhoc -- --nocapture`
/// prints both shells' results for one script (`DIFF_ADHOC_OURS=1`: ours only,
/// for scripts that must not run on the host).
#[test]
fn adhoc() {
    let Ok(script) = std::env::var("DIFF_ADHOC") else {
        return;
    };
    show_both(&script, std::env::var_os("DIFF_ADHOC_OURS").is_none());
}
