//! File-level three-way merge of workspace archives.
//!
//! Two sessions of one agent may start from the same archive (the *base*) and
//! snapshot at different times. When ours is stored after theirs, each path is
//! decided against the base: a path changed on one side only takes that side;
//! a path changed on both sides to different content keeps theirs in place and
//! ours beside it as `PATH.conflict-<session-id>`. Nothing is lost silently.

use super::tree::{ArchiveEntry, ArchiveTree, EntryKind, ancestors};

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

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.resolution {
            Resolution::OursSavedAs(name) => write!(
                f,
                "{} changed in both sessions: kept the other session's version, ours saved as {name}",
                self.path
            ),
            Resolution::KeptTheirChange => {
                write!(
                    f,
                    "{} deleted here but changed by another session: kept their version",
                    self.path
                )
            }
            Resolution::KeptOurChange => {
                write!(
                    f,
                    "{} deleted by another session but changed here: kept our version",
                    self.path
                )
            }
        }
    }
}

/// The name ours is saved under when both sides changed `path`.
pub fn conflict_name(path: &str, session_id: &str) -> String {
    format!("{path}.conflict-{session_id}")
}

/// Merges `ours` into `theirs` against their common `base`. Returns the merged
/// tree and the conflicts (empty when the changes did not overlap).
pub fn merge(
    base: &ArchiveTree,
    theirs: &ArchiveTree,
    ours: &ArchiveTree,
    session_id: &str,
) -> (ArchiveTree, Vec<Conflict>) {
    let mut out = ArchiveTree::default();
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
        let same = |x: Option<&ArchiveEntry>, y: Option<&ArchiveEntry>| match (x, y) {
            (Some(x), Some(y)) => x.same_content(y),
            (None, None) => true,
            _ => false,
        };
        let pick = if same(t, o) || same(b, o) {
            // Same result on both sides, or only theirs changed.
            t
        } else if same(b, t) {
            // Only ours changed.
            o
        } else {
            match (t, o) {
                (Some(t), Some(o)) => {
                    if t.kind == EntryKind::Dir && o.kind == EntryKind::Dir {
                        // Two directories differing in mode: no content at stake.
                        Some(t)
                    } else if o.kind == EntryKind::Dir {
                        // Ours became a directory where theirs is a file: theirs stays;
                        // our children are moved aside by `move_out_from_under_files`.
                        Some(t)
                    } else {
                        let name = conflict_name(path, session_id);
                        let mut copy = o.clone();
                        copy.path = name.clone();
                        out.entries.insert(name.clone(), copy);
                        conflicts.push(Conflict {
                            path: path.clone(),
                            resolution: Resolution::OursSavedAs(name),
                        });
                        Some(t)
                    }
                }
                (Some(t), None) => {
                    if t.kind != EntryKind::Dir {
                        conflicts.push(Conflict {
                            path: path.clone(),
                            resolution: Resolution::KeptTheirChange,
                        });
                    }
                    Some(t)
                }
                (None, Some(o)) => {
                    if o.kind != EntryKind::Dir {
                        conflicts.push(Conflict {
                            path: path.clone(),
                            resolution: Resolution::KeptOurChange,
                        });
                    }
                    Some(o)
                }
                (None, None) => None,
            }
        };
        if let Some(e) = pick {
            out.entries.insert(path.clone(), e.clone());
        }
    }
    move_out_from_under_files(&mut out, session_id, &mut conflicts);
    (out, conflicts)
}

/// An entry whose ancestor ended up a file or symlink (one side replaced a
/// directory by a file while the other added to it) cannot be extracted; move
/// it under `ANCESTOR.conflict-<session-id>/` instead of losing it.
fn move_out_from_under_files(
    tree: &mut ArchiveTree,
    session_id: &str,
    conflicts: &mut Vec<Conflict>,
) {
    let blocked: Vec<(String, String)> = tree
        .entries
        .keys()
        .filter_map(|path| {
            let blocker = ancestors(path)
                .filter(|a| {
                    tree.entries
                        .get(*a)
                        .is_some_and(|e| e.kind != EntryKind::Dir)
                })
                .last()?;
            Some((path.clone(), blocker.to_string()))
        })
        .collect();
    for (path, blocker) in blocked {
        if let Some(mut entry) = tree.entries.remove(&path) {
            let moved = format!(
                "{}{}",
                conflict_name(&blocker, session_id),
                &path[blocker.len()..]
            );
            entry.path = moved.clone();
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

    fn tree(files: &[(&str, &str)]) -> ArchiveTree {
        let mut t = ArchiveTree::default();
        for (p, d) in files {
            t.entries
                .insert(p.to_string(), ArchiveEntry::file(p, d.as_bytes()));
        }
        t
    }

    fn files(t: &ArchiveTree) -> Vec<(String, String)> {
        t.entries
            .values()
            .map(|e| {
                (
                    e.path.clone(),
                    String::from_utf8_lossy(&e.data).into_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn different_files_both_survive() {
        let base = tree(&[("a", "1")]);
        let theirs = tree(&[("a", "1"), ("t", "theirs")]);
        let ours = tree(&[("a", "1"), ("o", "ours")]);
        let (m, c) = merge(&base, &theirs, &ours, "S");
        assert!(c.is_empty());
        assert_eq!(
            files(&m),
            [
                ("a".into(), "1".into()),
                ("o".into(), "ours".into()),
                ("t".into(), "theirs".into())
            ]
        );
    }

    #[test]
    fn same_file_keeps_theirs_in_place_and_ours_beside() {
        let base = tree(&[("a", "1")]);
        let (m, c) = merge(
            &base,
            &tree(&[("a", "theirs")]),
            &tree(&[("a", "ours")]),
            "S",
        );
        assert_eq!(
            files(&m),
            [
                ("a".into(), "theirs".into()),
                ("a.conflict-S".into(), "ours".into())
            ]
        );
        assert_eq!(
            c[0].resolution,
            Resolution::OursSavedAs("a.conflict-S".into())
        );
    }

    #[test]
    fn one_sided_changes_and_deletions_apply() {
        let base = tree(&[("a", "1"), ("b", "1"), ("c", "1")]);
        let theirs = tree(&[("a", "2"), ("b", "1"), ("c", "1")]);
        let ours = tree(&[("a", "1"), ("c", "1")]);
        let (m, c) = merge(&base, &theirs, &ours, "S");
        assert!(c.is_empty());
        assert_eq!(
            files(&m),
            [("a".into(), "2".into()), ("c".into(), "1".into())]
        );
    }

    #[test]
    fn delete_versus_change_keeps_the_change() {
        let base = tree(&[("a", "1"), ("b", "1")]);
        let theirs = tree(&[("a", "2")]);
        let ours = tree(&[("b", "2")]);
        let (m, c) = merge(&base, &theirs, &ours, "S");
        assert_eq!(
            files(&m),
            [("a".into(), "2".into()), ("b".into(), "2".into())]
        );
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn children_under_a_file_are_moved_aside() {
        let base = tree(&[]);
        let theirs = tree(&[("d", "file")]);
        let mut ours = tree(&[("d/x", "child")]);
        ours.entries.insert("d".into(), ArchiveEntry::dir("d"));
        let (m, _) = merge(&base, &theirs, &ours, "S");
        assert_eq!(
            files(&m),
            [
                ("d".into(), "file".into()),
                ("d.conflict-S/x".into(), "child".into())
            ]
        );
    }
}
