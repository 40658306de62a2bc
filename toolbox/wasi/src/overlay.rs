//! Read-only files only the guest sees (an interpreter's start-up hook, its
//! standard library), laid over the sandbox's tree at absolute paths that
//! the shell's tree never holds. Indexed by path, with every ancestor a
//! directory, so a guest can list, stat, open and read them as it would a
//! directory of the tree (CPython's import system scans them).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The overlay: files by absolute path, and the directories they imply.
#[derive(Debug, Default, Clone)]
pub struct Overlay {
    files: BTreeMap<String, Arc<[u8]>>,
    dirs: BTreeMap<String, BTreeSet<String>>,
}

impl Overlay {
    /// An empty overlay.
    pub fn new() -> Overlay {
        Overlay::default()
    }

    /// Adds the file `path` (absolute, `/`-separated, no `.` or `..`).
    /// Its ancestors become directories of the overlay; `/` itself stays
    /// the tree's.
    pub fn insert(&mut self, path: &str, data: impl Into<Arc<[u8]>>) {
        let path = format!("/{}", path.trim_matches('/'));
        let mut child = path.as_str();
        while let Some(cut) = child.rfind('/') {
            let (parent, name) = (&child[..cut], &child[cut + 1..]);
            if parent.is_empty() {
                break;
            }
            self.dirs
                .entry(parent.to_string())
                .or_default()
                .insert(name.to_string());
            child = parent;
        }
        self.files.insert(path, data.into());
    }

    /// The file at `path`, if the overlay has one.
    pub fn file(&self, path: &str) -> Option<&Arc<[u8]>> {
        self.files.get(path)
    }

    /// The names in the directory `path`, if it is one of the overlay's.
    pub fn dir(&self, path: &str) -> Option<&BTreeSet<String>> {
        self.dirs.get(path.trim_end_matches('/'))
    }

    /// Every file, by path.
    pub fn files(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.files.iter().map(|(p, d)| (p.as_str(), &d[..]))
    }

    /// How many files it holds.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether it holds no file.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::Overlay;

    #[test]
    fn ancestors_are_directories() {
        let mut o = Overlay::new();
        o.insert("/.hook/lib/json/__init__.pyc", b"a".to_vec());
        o.insert("/.hook/site.pyc", b"bc".to_vec());
        assert_eq!(o.file("/.hook/site.pyc").map(|d| d.len()), Some(2));
        let names = |p: &str| o.dir(p).map(|s| s.iter().cloned().collect::<Vec<_>>());
        assert_eq!(names("/.hook"), Some(vec!["lib".into(), "site.pyc".into()]));
        assert_eq!(names("/.hook/lib/"), Some(vec!["json".into()]));
        assert_eq!(names("/.hook/lib/json"), Some(vec!["__init__.pyc".into()]));
        assert_eq!(names("/"), None);
        assert!(o.file("/.hook/lib").is_none());
        assert_eq!(o.len(), 2);
    }
}
