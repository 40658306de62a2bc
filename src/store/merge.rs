//! Three-way merge of manifests: how two sessions that started from the same
//! generation (the *base*) both keep their work.
//!
//! Each path is decided against the base: a path changed on one side only
//! takes that side; a path changed on both sides to different content keeps
//! theirs (the head's) in place and ours beside it as
//! `PATH.conflict-<session-id>`; a change wins over a deletion. A file on one
//! side where the other made a directory keeps the file, and moves the
//! directory's entries under `PATH.conflict-<session-id>/`. Nothing is lost.

use std::fmt;

use super::manifest::{Entry, Kind, Manifest};
use crate::archive::tree::ancestors;

/// A path both sessions changed, and what the merge did about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The path, relative to `/workspace`.
    pub path: String,
    /// What happened to it.
    pub resolution: Resolution,
}

/// How a conflict was resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// Both changed it: theirs stays at the path, ours was saved under this name.
    OursSavedAs(String),
    /// We deleted it, they changed it: their version was kept.
    KeptTheirChange,
    /// They deleted it, we changed it: our version was kept.
    KeptOurChange,
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.resolution {
            Resolution::OursSavedAs(name) => write!(
                f,
                "{} changed in both sessions: kept the other session's version, ours saved as {name}",
                self.path
            ),
            Resolution::KeptTheirChange => write!(
                f,
                "{} deleted here but changed by another session: kept their version",
                self.path
            ),
            Resolution::KeptOurChange => write!(
                f,
                "{} deleted by another session but changed here: kept our version",
                self.path
            ),
        }
    }
}

/// The name ours is saved under when both sides changed `path`.
pub fn conflict_name(path: &str, session_id: &str) -> String {
    format!("{path}.conflict-{session_id}")
}

fn same(x: Option<&Entry>, y: Option<&Entry>) -> bool {
    match (x, y) {
        (Some(x), Some(y)) => x.same_content(y),
        (None, None) => true,
        _ => false,
    }
}

/// Merges `ours` into `theirs` against their common `base`: the merged
/// manifest and the conflicts (empty when the changes did not overlap).
pub fn merge(
    base: &Manifest,
    theirs: &Manifest,
    ours: &Manifest,
    session_id: &str,
) -> (Manifest, Vec<Conflict>) {
    let mut out = Manifest::default();
    let mut conflicts = Vec::new();
    let mut paths: Vec<&String> = base
        .entries
        .keys()
        .chain(theirs.entries.keys())
        .chain(ours.entries.keys())
        .collect();
    paths.sort();
    paths.dedup();
    for path in paths {
        let b = base.entries.get(path);
        let t = theirs.entries.get(path);
        let o = ours.entries.get(path);
        let pick = if same(t, o) || same(b, o) {
            t
        } else if same(b, t) {
            o
        } else {
            both_changed(path, t, o, session_id, &mut out, &mut conflicts)
        };
        if let Some(e) = pick {
            out.entries.insert(path.clone(), e.clone());
        }
    }
    move_out_from_under_files(&mut out, session_id, &mut conflicts);
    (out, conflicts)
}

/// A path both sides changed differently: what stays at the path.
fn both_changed<'a>(
    path: &str,
    t: Option<&'a Entry>,
    o: Option<&'a Entry>,
    session_id: &str,
    out: &mut Manifest,
    conflicts: &mut Vec<Conflict>,
) -> Option<&'a Entry> {
    match (t, o) {
        (Some(t), Some(o)) => {
            // Two directories differ only in mode; a directory of ours where
            // theirs is a file has its children moved aside afterwards.
            if o.kind != Kind::Dir {
                let name = conflict_name(path, session_id);
                out.entries.insert(name.clone(), o.clone());
                conflicts.push(Conflict {
                    path: path.to_string(),
                    resolution: Resolution::OursSavedAs(name),
                });
            }
            Some(t)
        }
        (Some(t), None) => {
            if t.kind != Kind::Dir {
                conflicts.push(Conflict {
                    path: path.to_string(),
                    resolution: Resolution::KeptTheirChange,
                });
            }
            Some(t)
        }
        (None, Some(o)) => {
            if o.kind != Kind::Dir {
                conflicts.push(Conflict {
                    path: path.to_string(),
                    resolution: Resolution::KeptOurChange,
                });
            }
            Some(o)
        }
        (None, None) => None,
    }
}

/// An entry whose ancestor ended up a file or symlink (one side replaced a
/// directory by a file while the other added to it) cannot exist; it moves
/// under `ANCESTOR.conflict-<session-id>/` instead of being lost.
fn move_out_from_under_files(tree: &mut Manifest, session_id: &str, conflicts: &mut Vec<Conflict>) {
    let blocked: Vec<(String, String)> = tree
        .entries
        .keys()
        .filter_map(|path| {
            let blocker = ancestors(path)
                .filter(|a| tree.entries.get(*a).is_some_and(|e| e.kind != Kind::Dir))
                .last()?;
            Some((path.clone(), blocker.to_string()))
        })
        .collect();
    for (path, blocker) in blocked {
        if let Some(entry) = tree.entries.remove(&path) {
            let dir = conflict_name(&blocker, session_id);
            let moved = format!("{dir}{}", &path[blocker.len()..]);
            tree.entries.entry(dir).or_insert_with(Entry::dir);
            conflicts.push(Conflict {
                path,
                resolution: Resolution::OursSavedAs(moved.clone()),
            });
            tree.entries.insert(moved, entry);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(files: &[(&str, &str)]) -> Manifest {
        let mut out = Manifest::default();
        for (p, d) in files {
            let e = if d.is_empty() {
                Entry::dir()
            } else {
                Entry::file(d.as_bytes())
            };
            out.entries.insert(p.to_string(), e);
        }
        out
    }

    fn hashes(t: &Manifest) -> Vec<(String, Option<String>)> {
        t.entries
            .iter()
            .map(|(p, e)| (p.clone(), e.hash.map(|h| h.to_string()[..6].to_string())))
            .collect()
    }

    #[test]
    fn one_sided_changes_merge_and_both_sided_keep_both() {
        let base = m(&[("a", "1"), ("b", "1")]);
        let theirs = m(&[("a", "T"), ("b", "1"), ("t", "t")]);
        let ours = m(&[("a", "O"), ("o", "o")]);
        let (merged, conflicts) = merge(&base, &theirs, &ours, "S");
        let names: Vec<_> = merged.entries.keys().cloned().collect();
        assert_eq!(names, ["a", "a.conflict-S", "o", "t"]);
        assert_eq!(merged.entries["a"], theirs.entries["a"]);
        assert_eq!(merged.entries["a.conflict-S"], ours.entries["a"]);
        assert_eq!(conflicts.len(), 1);
    }

    #[test]
    fn file_versus_directory_keeps_both_sides() {
        let base = m(&[]);
        let theirs = m(&[("x", "file")]);
        let ours = m(&[("x", ""), ("x/child", "c")]);
        let (merged, _) = merge(&base, &theirs, &ours, "S");
        let h = hashes(&merged);
        let names: Vec<_> = h.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(names, ["x", "x.conflict-S", "x.conflict-S/child"]);
        assert_eq!(
            merged.entries["x.conflict-S/child"],
            ours.entries["x/child"]
        );
    }
}
