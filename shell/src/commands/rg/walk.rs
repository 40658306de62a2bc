//! Which files `rg` searches: a depth-first walk of the virtual tree from
//! each path operand, with ripgrep's filters in its order of precedence
//! (the `ignore` crate's `Ignore::matched`): `-g` globs first, then ignore
//! files (`.rgignore` over `.ignore` over `.gitignore`, a deeper file over a
//! shallower one, `--ignore-file` last), then `-t`/`-T` types, then hidden
//! names. A `.gitignore` counts only inside a git repository (a directory
//! with a `.git` at or above it), as in ripgrep 13. The matchers are the
//! `ignore` crate's own, fed with lines read from the VFS.
//!
//! Siblings are visited in name order: `--sort path` needs it, and without
//! a sort ripgrep's order is whatever its threads make of it.

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::overrides::Override;
use ignore::types::Types;

use super::options::{Config, SortBy};
use crate::control::RunControl;
use crate::fs::{FileKind, Fs, FsError, Metadata};

/// One file to search, as found.
pub(crate) struct Subject {
    /// The path as printed.
    pub shown: String,
    /// The absolute virtual path.
    pub abs: String,
    /// Named on the command line (binary files are then reported, not skipped).
    pub explicit: bool,
}

/// What the visitor tells the walk.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Stop,
}

/// A path that could not be walked: the message after `rg: `.
pub(crate) struct WalkError(pub String);

/// The ignore files of one directory.
#[derive(Default)]
struct DirRules {
    rg: Option<Gitignore>,
    dot: Option<Gitignore>,
    git: Option<Gitignore>,
}

/// The filters every walk shares.
pub(crate) struct Filters {
    pub overrides: Override,
    pub types: Types,
    pub explicit: Vec<Gitignore>,
}

/// One walk over the VFS.
pub(crate) struct Walker<'c> {
    pub fs: &'c Fs,
    pub cwd: &'c str,
    pub control: &'c RunControl,
    pub cfg: &'c Config,
    pub filters: &'c Filters,
}

/// `strerror`'s words and errno for a failed lookup, as Rust's `io::Error`
/// prints them (which is how ripgrep words them).
pub(crate) fn os_error(e: &FsError) -> String {
    let errno = match e {
        FsError::NotFound => 2,
        FsError::NotADirectory => 20,
        FsError::PermissionDenied => 13,
        FsError::IsADirectory => 21,
        FsError::TooManyLinks => 40,
        FsError::NameTooLong => 36,
        _ => 5,
    };
    format!("{e} (os error {errno})")
}

impl Walker<'_> {
    /// Walks one operand (`shown` as given; `implicit` for the `./` searched
    /// when none is given, whose prefix is not printed), calling `visit` for
    /// each file to search. Errors on the way are reported through `warn`.
    pub(crate) fn walk(
        &self,
        shown: &str,
        implicit: bool,
        visit: &mut dyn FnMut(Subject) -> Flow,
        warn: &mut dyn FnMut(WalkError),
    ) -> Flow {
        let abs = Fs::resolve(self.cwd, shown);
        let meta = match self.fs.metadata(&abs) {
            Ok(m) => m,
            Err(e) => {
                warn(WalkError(format!("{shown}: {}", os_error(&e))));
                return Flow::Continue;
            }
        };
        if meta.kind != FileKind::Dir {
            return visit(Subject {
                shown: shown.to_string(),
                abs,
                explicit: true,
            });
        }
        let mut stack = self.parent_rules(&abs);
        let in_git = self.git_above(&abs);
        let prefix = if implicit {
            String::new()
        } else if shown.ends_with('/') {
            shown.to_string()
        } else {
            format!("{shown}/")
        };
        let mut seen = vec![self.fs.canonicalize(&abs).unwrap_or(abs.clone())];
        self.walk_dir(&abs, &prefix, 1, in_git, &mut stack, &mut seen, visit, warn)
    }

    /// True when `dir` or a directory above it holds a `.git`.
    fn git_above(&self, dir: &str) -> bool {
        ancestors(dir).any(|d| self.fs.symlink_metadata(&join(d, ".git")).is_ok())
    }

    /// The rules of the directories above `dir` (outermost first), unless
    /// `--no-ignore-parent`; a `.gitignore` above the repository's top
    /// does not count.
    fn parent_rules(&self, dir: &str) -> Vec<DirRules> {
        if self.cfg.no_ignore_parent {
            return Vec::new();
        }
        let mut dirs: Vec<&str> = ancestors(dir).skip(1).collect();
        dirs.reverse();
        dirs.iter()
            .map(|d| self.rules_of(d, self.git_above(d)))
            .collect()
    }

    /// The ignore files of `dir` that apply.
    fn rules_of(&self, dir: &str, in_git: bool) -> DirRules {
        let read = |name: &str| -> Option<Gitignore> {
            let path = join(dir, name);
            let data = self.fs.read_shared(&path).ok()?;
            let mut b = GitignoreBuilder::new(dir);
            for line in String::from_utf8_lossy(&data).lines() {
                let _ = b.add_line(None, line);
            }
            b.build().ok().filter(|g| !g.is_empty())
        };
        DirRules {
            rg: if self.cfg.no_ignore_dot {
                None
            } else {
                read(".rgignore")
            },
            dot: if self.cfg.no_ignore_dot {
                None
            } else {
                read(".ignore")
            },
            git: if self.cfg.no_ignore_vcs || (self.cfg.require_git && !in_git) {
                None
            } else {
                read(".gitignore")
            },
        }
    }

    /// True when the filters leave `path` out of the walk.
    fn skipped(&self, path: &str, name: &str, is_dir: bool, stack: &[DirRules]) -> bool {
        let f = self.filters;
        let m = f.overrides.matched(path, is_dir);
        if m.is_ignore() {
            return true;
        }
        if m.is_whitelist() {
            return false;
        }
        let mut whitelisted = false;
        let (mut rg, mut dot, mut git) = (Match::None, Match::None, Match::None);
        for rules in stack.iter().rev() {
            let matched = |g: &Option<Gitignore>| match g {
                Some(g) => g.matched(path, is_dir).map(|_| ()),
                None => Match::None,
            };
            if rg.is_none() {
                rg = matched(&rules.rg);
            }
            if dot.is_none() {
                dot = matched(&rules.dot);
            }
            if git.is_none() {
                git = matched(&rules.git);
            }
        }
        let mut explicit = Match::None;
        if !self.cfg.no_ignore_files {
            for g in f.explicit.iter().rev() {
                explicit = g.matched(path, is_dir).map(|_| ());
                if !explicit.is_none() {
                    break;
                }
            }
        }
        let ignore_match = [rg, dot, git, explicit]
            .into_iter()
            .find(|m| !m.is_none())
            .unwrap_or(Match::None);
        if ignore_match.is_ignore() {
            return true;
        }
        whitelisted |= ignore_match.is_whitelist();
        let t = f.types.matched(path, is_dir);
        if t.is_ignore() {
            return true;
        }
        whitelisted |= t.is_whitelist();
        !whitelisted && !self.cfg.hidden && name.starts_with('.')
    }

    #[allow(clippy::too_many_arguments)]
    fn walk_dir(
        &self,
        dir: &str,
        prefix: &str,
        depth: usize,
        in_git: bool,
        stack: &mut Vec<DirRules>,
        seen: &mut Vec<String>,
        visit: &mut dyn FnMut(Subject) -> Flow,
        warn: &mut dyn FnMut(WalkError),
    ) -> Flow {
        if self.control.check().is_err() {
            return Flow::Stop;
        }
        if self.cfg.max_depth.is_some_and(|max| depth > max) {
            return Flow::Continue;
        }
        let entries = match self.fs.read_dir_metadata(dir) {
            Ok(e) => e,
            Err(e) => {
                let shown = prefix.trim_end_matches('/');
                warn(WalkError(format!("{shown}: {}", os_error(&e))));
                return Flow::Continue;
            }
        };
        let in_git = in_git || entries.iter().any(|(n, _)| n == ".git");
        stack.push(self.rules_of(dir, in_git));
        let mut entries: Vec<(String, Metadata)> = entries
            .into_iter()
            .filter(|(n, _)| n != "." && n != "..")
            .collect();
        self.sort(&mut entries);
        let mut flow = Flow::Continue;
        for (name, meta) in entries {
            let path = join(dir, &name);
            let shown = format!("{prefix}{name}");
            let (kind, meta) = match meta.kind {
                FileKind::Symlink if self.cfg.follow => match self.fs.metadata(&path) {
                    Ok(m) => (m.kind, m),
                    Err(e) => {
                        warn(WalkError(format!("{shown}: {}", os_error(&e))));
                        continue;
                    }
                },
                k => (k, meta),
            };
            let is_dir = kind == FileKind::Dir;
            if self.skipped(&path, &name, is_dir, stack) {
                continue;
            }
            if is_dir {
                let real = self.fs.canonicalize(&path).unwrap_or(path.clone());
                if seen.contains(&real) {
                    warn(WalkError(format!(
                        "File system loop found: {shown} points to an ancestor {}",
                        seen.last().cloned().unwrap_or_default()
                    )));
                    continue;
                }
                seen.push(real);
                flow = self.walk_dir(
                    &path,
                    &format!("{shown}/"),
                    depth + 1,
                    in_git,
                    stack,
                    seen,
                    visit,
                    warn,
                );
                seen.pop();
            } else if kind == FileKind::File {
                if self.cfg.max_filesize.is_some_and(|max| meta.size > max) {
                    continue;
                }
                flow = visit(Subject {
                    shown,
                    abs: path,
                    explicit: false,
                });
            }
            if flow == Flow::Stop {
                break;
            }
        }
        stack.pop();
        flow
    }

    /// Siblings in the order `--sort`/`--sortr` ask for (by name otherwise).
    fn sort(&self, entries: &mut [(String, Metadata)]) {
        match self.cfg.sort {
            SortBy::Modified | SortBy::Accessed | SortBy::Created => {
                entries.sort_by(|a, b| a.1.mtime.cmp(&b.1.mtime).then_with(|| a.0.cmp(&b.0)))
            }
            SortBy::Path | SortBy::None => entries.sort_by(|a, b| a.0.cmp(&b.0)),
        }
        if self.cfg.sort_reverse {
            entries.reverse();
        }
    }
}

/// `dir` and each directory above it, up to `/`.
fn ancestors(dir: &str) -> impl Iterator<Item = &str> {
    let mut next = Some(dir);
    std::iter::from_fn(move || {
        let d = next?;
        next = match d.rfind('/') {
            Some(0) if d.len() > 1 => Some("/"),
            Some(0) | None => None,
            Some(i) => Some(&d[..i]),
        };
        Some(d)
    })
}

fn join(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ancestors_climb_to_the_root() {
        let got: Vec<&str> = super::ancestors("/a/b").collect();
        assert_eq!(got, ["/a/b", "/a", "/"]);
        assert_eq!(super::ancestors("/").collect::<Vec<_>>(), ["/"]);
    }
}
