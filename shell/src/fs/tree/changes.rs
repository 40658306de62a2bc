//! Change tracking for incremental snapshots: which nodes of the tree
//! changed since [`Tree::track_changes`], so a host that keeps the tree's
//! contents (the runtime's workspace sync) re-reads only those instead of
//! listing everything.
//!
//! What is recorded, under the tree's lock as each mutation happens:
//! - directories whose entries changed (a name added, removed or renamed):
//!   their whole entry list is reported, so removals show as absences;
//! - directories moved by a rename: their whole subtree is new at its place;
//! - entries whose node changed in place (content, mode, mtime), as
//!   `(directory, name)`, so the path is known without a search.
//!
//! A write to a file with several hard links changes every path naming it,
//! which a `(directory, name)` cannot say: that, or a log past its cap,
//! marks the log overflowed and the caller lists everything instead.

use std::collections::HashSet;

use super::{Ino, NodeKind, ROOT, Tree};
use crate::fs::Metadata;

/// Entries a log holds before it gives up and asks for a full listing.
const MAX_TRACKED: usize = 100_000;

/// What changed since tracking started (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct ChangeLog {
    dirs: HashSet<Ino>,
    trees: HashSet<Ino>,
    entries: HashSet<(Ino, String)>,
    overflowed: bool,
}

impl ChangeLog {
    fn check_cap(&mut self) {
        if self.dirs.len() + self.trees.len() + self.entries.len() > MAX_TRACKED {
            self.overflowed = true;
            self.dirs.clear();
            self.trees.clear();
            self.entries.clear();
        }
    }
}

/// The changes below one directory since tracking started (or since the
/// last [`Fs::take_changes`](crate::Fs::take_changes)), as absolute paths.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Directories whose every entry is in `entries`: a name below one of
    /// them that `entries` lacks is gone, with everything under it.
    pub listed_dirs: Vec<String>,
    /// Directories whose whole subtree is in `entries` (moved into place):
    /// anything under them that `entries` lacks is gone.
    pub listed_trees: Vec<String>,
    /// The current metadata (symlinks not followed) of every path that may
    /// have changed, with a symlink's target.
    pub entries: Vec<(String, Metadata, Option<String>)>,
    /// Paths whose content may have changed in place (a subset of the
    /// regular files in `entries`); the other files in `entries` were
    /// listed because their directory was, and kept their content unless
    /// they are new at their path.
    pub written: Vec<String>,
}

impl Tree {
    /// Starts (or restarts) tracking: the next [`Tree::take_changes`]
    /// reports what changes from now on.
    pub(crate) fn track_changes(&mut self) {
        self.changes = Some(ChangeLog::default());
    }

    /// Records that `dir`'s entries changed.
    pub(super) fn note_dir(&mut self, dir: Ino) {
        if let Some(log) = &mut self.changes
            && !log.overflowed
        {
            log.dirs.insert(dir);
            log.check_cap();
        }
    }

    /// Records that directory `dir` was moved: its subtree is new where it is.
    pub(super) fn note_moved(&mut self, dir: Ino) {
        if let Some(log) = &mut self.changes
            && !log.overflowed
        {
            log.trees.insert(dir);
            log.check_cap();
        }
    }

    /// Records that the node `ino`, named `name` in `parent`, changed in place.
    pub(super) fn note_entry(&mut self, parent: Ino, name: &str, ino: Ino) {
        let Some(log) = &self.changes else { return };
        if log.overflowed {
            return;
        }
        let hard_linked = self
            .nodes
            .get(ino)
            .and_then(Option::as_ref)
            .is_some_and(|n| n.nlink > 1 && !n.is_dir());
        if let Some(log) = &mut self.changes {
            if hard_linked {
                log.overflowed = true;
            } else {
                log.entries.insert((parent, name.to_string()));
                log.check_cap();
            }
        }
    }

    fn live_dir(&self, ino: Ino) -> bool {
        matches!(
            self.nodes
                .get(ino)
                .and_then(Option::as_ref)
                .map(|n| &n.kind),
            Some(NodeKind::Dir(_))
        )
    }

    /// What changed below `root` (an absolute directory path) since tracking
    /// started, and restarts tracking; `None` when tracking was off or the
    /// log overflowed (the caller must list everything).
    pub(crate) fn take_changes(&mut self, root: &str) -> Option<Changes> {
        let log = self.changes.replace(ChangeLog::default())?;
        if log.overflowed {
            return None;
        }
        let root = root.trim_end_matches('/');
        let under = |path: &str| {
            path.len() > root.len() && path.starts_with(root) && path.as_bytes()[root.len()] == b'/'
        };
        let mut out = Changes::default();
        let mut seen = HashSet::new();
        let mut push = |out: &mut Changes, tree: &Tree, path: String, ino: Ino| {
            if seen.insert(path.clone()) {
                let link = match &tree.node(ino).kind {
                    NodeKind::Symlink(t) => Some(t.clone()),
                    _ => None,
                };
                out.entries.push((path, tree.meta_of(ino), link));
            }
        };
        for &dir in &log.trees {
            if !self.live_dir(dir) {
                continue;
            }
            let top = self.dir_path(dir);
            if !under(&top) {
                continue;
            }
            out.listed_trees.push(top.clone());
            let mut stack = vec![(top, dir)];
            while let Some((path, ino)) = stack.pop() {
                // What a moved tree's files held at their new paths is
                // unknown to the caller: every one counts as written.
                if matches!(self.node(ino).kind, NodeKind::File(_)) {
                    out.written.push(path.clone());
                }
                push(&mut out, self, path.clone(), ino);
                if let NodeKind::Dir(d) = &self.node(ino).kind {
                    for (name, &child) in d.children.iter() {
                        stack.push((format!("{path}/{name}"), child));
                    }
                }
            }
        }
        for &dir in &log.dirs {
            if !self.live_dir(dir) {
                continue;
            }
            let path = self.dir_path(dir);
            if path != root && !under(&path) {
                continue;
            }
            if path != root {
                push(&mut out, self, path.clone(), dir);
            }
            if let NodeKind::Dir(d) = &self.node(dir).kind {
                for (name, &child) in d.children.iter() {
                    push(&mut out, self, format!("{path}/{name}"), child);
                }
            }
            out.listed_dirs.push(path);
        }
        for (parent, name) in &log.entries {
            if !self.live_dir(*parent) {
                continue;
            }
            let dir_path = if *parent == ROOT {
                String::new()
            } else {
                self.dir_path(*parent)
            };
            let path = format!("{dir_path}/{name}");
            if !under(&path) {
                continue;
            }
            let Some(&ino) = self.dir(*parent).ok().and_then(|d| d.children.get(name)) else {
                continue;
            };
            if matches!(self.node(ino).kind, NodeKind::File(_)) {
                out.written.push(path.clone());
            }
            push(&mut out, self, path, ino);
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::clock::Clock;
    use crate::fs::{FileKind, Fs};

    fn fs() -> Fs {
        let fs = Fs::empty(Default::default(), Clock::Fixed(1_700_000_000));
        fs.mkdir_all("/w/a/b").unwrap();
        fs.write("/w/a/b/f", b"1").unwrap();
        fs.write("/w/top", b"2").unwrap();
        fs.mkdir_all("/tmp").unwrap();
        fs.track_changes();
        fs
    }

    fn paths(v: &[(String, crate::fs::Metadata, Option<String>)]) -> Vec<&str> {
        let mut p: Vec<&str> = v.iter().map(|e| e.0.as_str()).collect();
        p.sort();
        p
    }

    #[test]
    fn off_until_started_and_restarted_by_each_take() {
        let fs = Fs::empty(Default::default(), Clock::Fixed(1));
        assert!(fs.take_changes("/").is_none());
        let fs = self::fs();
        assert_eq!(fs.take_changes("/w").unwrap(), Default::default());
        fs.write("/w/top", b"3").unwrap();
        assert_eq!(fs.take_changes("/w").unwrap().written, ["/w/top"]);
        assert!(fs.take_changes("/w").unwrap().entries.is_empty());
    }

    #[test]
    fn in_place_writes_name_the_file_only() {
        let fs = fs();
        fs.append("/w/a/b/f", b"x").unwrap();
        fs.set_mode("/w/top", 0o600).unwrap();
        let c = fs.take_changes("/w").unwrap();
        assert_eq!(paths(&c.entries), ["/w/a/b/f", "/w/top"]);
        assert!(c.listed_dirs.is_empty());
        let mut written = c.written.clone();
        written.sort();
        assert_eq!(written, ["/w/a/b/f", "/w/top"]);
    }

    #[test]
    fn creations_and_removals_list_the_directory() {
        let fs = fs();
        fs.write("/w/a/new", b"n").unwrap();
        fs.remove_all("/w/a/b").unwrap();
        let c = fs.take_changes("/w").unwrap();
        assert_eq!(c.listed_dirs, ["/w/a"]);
        // The directory itself (its mtime moved) and what it holds now.
        assert_eq!(paths(&c.entries), ["/w/a", "/w/a/new"]);
        assert_eq!(c.written, ["/w/a/new"]);
    }

    #[test]
    fn a_moved_directory_is_listed_whole_and_counts_as_written() {
        let fs = fs();
        fs.rename("/w/a", "/w/z").unwrap();
        let c = fs.take_changes("/w").unwrap();
        assert_eq!(c.listed_trees, ["/w/z"]);
        // `/w` lost `a` and gained `z`: its entries are listed too.
        assert_eq!(c.listed_dirs, ["/w"]);
        assert_eq!(paths(&c.entries), ["/w/top", "/w/z", "/w/z/b", "/w/z/b/f"]);
        assert_eq!(c.written, ["/w/z/b/f"]);
        let kinds: Vec<FileKind> = c.entries.iter().map(|e| e.1.kind).collect();
        assert!(kinds.contains(&FileKind::Dir));
    }

    #[test]
    fn changes_elsewhere_are_left_out() {
        let fs = fs();
        fs.write("/tmp/x", b"x").unwrap();
        fs.write("/w2", b"y").unwrap();
        let c = fs.take_changes("/w").unwrap();
        assert!(c.entries.is_empty() && c.listed_dirs.is_empty());
    }

    #[test]
    fn a_write_to_a_hard_linked_file_asks_for_a_full_listing() {
        let fs = fs();
        fs.hard_link("/w/top", "/w/a/link").unwrap();
        assert!(fs.take_changes("/w").is_some());
        fs.write("/w/top", b"changed").unwrap();
        assert!(fs.take_changes("/w").is_none());
        // The next interval is tracked again.
        assert!(fs.take_changes("/w").is_some());
    }
}
