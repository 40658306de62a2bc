//! Where the cases of a differential suite come from: case files in the
//! `### name` format (a directory of them, or one inline string), and lists
//! with one case per line.
//!
//! The `### name` format (one text holds many cases):
//!
//! ```text
//! ### name of the case
//! #skip: why it is skipped (optional, first body line)
//! script lines...
//! ```
//!
//! Lines before the first `###` are a free-form header. A case's script is
//! every line up to the next `###`, trailing blank lines removed, ending in
//! one newline.

use std::path::{Path, PathBuf};

/// One case of a suite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// Where the case comes from: a case file's name, or the suite's.
    pub file: String,
    /// The case's name, unique within its file.
    pub name: String,
    /// The script to run.
    pub script: String,
    /// Why the case is skipped (`#skip:`), if it is.
    pub skip: Option<String>,
}

impl Case {
    /// A case that is not skipped.
    pub fn new(file: &str, name: &str, script: impl Into<String>) -> Case {
        Case {
            file: file.to_string(),
            name: name.to_string(),
            script: script.into(),
            skip: None,
        }
    }

    /// How reports name the case: `file :: name`.
    pub fn label(&self) -> String {
        format!("{} :: {}", self.file, self.name)
    }
}

/// Parses the `### name` cases of `text`; `file` names where they come from.
pub fn parse(file: &str, text: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("### ") {
            cases.push(Case::new(file, name.trim(), String::new()));
            continue;
        }
        let Some(c) = cases.last_mut() else { continue };
        if c.script.is_empty()
            && c.skip.is_none()
            && let Some(reason) = line.strip_prefix("#skip:")
        {
            c.skip = Some(reason.trim().to_string());
            continue;
        }
        c.script.push_str(line);
        c.script.push('\n');
    }
    for c in &mut cases {
        let trimmed = c.script.trim_end_matches('\n').len();
        c.script.truncate(trimmed);
        c.script.push('\n');
    }
    cases
}

/// Every case of every `*.txt` file in `dir`, files in name order. Reads the
/// directory afresh each time, so files added to it are picked up.
pub fn load_dir(dir: &Path) -> Vec<Case> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let mut all = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f)
            .unwrap_or_else(|e| panic!("{}: not UTF-8 text: {e}", f.display()));
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        all.extend(parse(&name, &text));
    }
    all
}

/// The cases of a one-case-per-line list: each trimmed line that is neither
/// blank nor a `#` comment.
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// The checks every case list should pass: no empty case, no name twice in
/// one file.
pub fn assert_well_formed(cases: &[Case]) {
    let mut names = std::collections::HashSet::new();
    for c in cases {
        assert!(
            !c.script.trim().is_empty() || c.skip.is_some(),
            "empty case {}",
            c.label()
        );
        assert!(
            names.insert((c.file.as_str(), c.name.as_str())),
            "duplicate case name {}",
            c.label()
        );
    }
}
