//! The work tree: walking its files (`.git` skipped), `.gitignore` rules
//! (per directory, `.git/info/exclude`; negation, anchoring, directory-only
//! patterns, `**`), pathspecs, git's wildmatch, and the file modes and blob
//! ids git would record for a file.

use gix_hash::ObjectId;
use gix_object::Kind;
use sandkeep_shell::FileKind;

use crate::error::{GitError, Result};
use crate::repo::{HASH, Repo, join};

/// git's wildmatch: `*` and `?` do not cross `/` when `pathname` is set,
/// `**` does; `[...]` classes with `!`/`^` negation and ranges.
pub fn wildmatch(pat: &[u8], text: &[u8], pathname: bool) -> bool {
    let (mut p, mut t) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pat.len() {
            match pat[p] {
                b'*' => {
                    let double = p + 1 < pat.len() && pat[p + 1] == b'*';
                    if double && pathname {
                        // `**/` matches zero or more directories; `**` at the end matches all.
                        let mut q = p + 2;
                        if q < pat.len() && pat[q] == b'/' {
                            q += 1;
                            // zero directories, or skip components.
                            let mut tt = t;
                            loop {
                                if wildmatch(&pat[q..], &text[tt..], pathname) {
                                    return true;
                                }
                                match text[tt..].iter().position(|&c| c == b'/') {
                                    Some(i) => tt += i + 1,
                                    None => return false,
                                }
                            }
                        }
                        if q >= pat.len() {
                            return true;
                        }
                        return (t..=text.len())
                            .any(|tt| wildmatch(&pat[q..], &text[tt..], pathname));
                    }
                    star = Some((p, t));
                    p += 1;
                    continue;
                }
                b'?' if !(pathname && text[t] == b'/') => {
                    p += 1;
                    t += 1;
                    continue;
                }
                b'[' => {
                    if let Some((matched, len)) = class(&pat[p..], text[t])
                        && matched
                        && !(pathname && text[t] == b'/')
                    {
                        p += len;
                        t += 1;
                        continue;
                    }
                }
                b'\\' if p + 1 < pat.len() && pat[p + 1] == text[t] => {
                    p += 2;
                    t += 1;
                    continue;
                }
                c if c == text[t] && c != b'?' && c != b'[' && c != b'\\' => {
                    p += 1;
                    t += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, st)) if !(pathname && text[st] == b'/') => {
                star = Some((sp, st + 1));
                p = sp + 1;
                t = st + 1;
            }
            _ => return false,
        }
    }
    while p < pat.len() && pat[p] == b'*' {
        p += 1;
    }
    p == pat.len()
}

/// Matches `c` against the class at the start of `pat`; returns (matched, class length).
fn class(pat: &[u8], c: u8) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(pat.get(i), Some(b'!') | Some(b'^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let ch = *pat.get(i)?;
        if ch == b']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if pat.get(i + 1) == Some(&b'-') && pat.get(i + 2).is_some_and(|&e| e != b']') {
            let end = pat[i + 2];
            if ch <= c && c <= end {
                matched = true;
            }
            i += 3;
        } else {
            if ch == c {
                matched = true;
            }
            i += 1;
        }
    }
}

/// One ignore pattern.
#[derive(Clone, Debug)]
pub struct Pattern {
    /// The file it came from, as `check-ignore -v` names it.
    pub source: String,
    /// Its line in that file (from 1).
    pub line: usize,
    /// The pattern as written (`!` included, trailing spaces dropped).
    pub text: String,
    /// Directory (repo-relative, "" for the root) of the file it came from.
    base: String,
    pattern: String,
    /// A `!` pattern: it re-includes.
    pub negated: bool,
    dir_only: bool,
    anchored: bool,
}

/// The ignore rules of a repository.
#[derive(Clone, Debug, Default)]
pub struct Ignore {
    /// Patterns in precedence order (later wins).
    patterns: Vec<Pattern>,
    loaded: std::collections::HashSet<String>,
}

impl Ignore {
    /// The rules of `.git/info/exclude`; per-directory files are loaded as
    /// the walk reaches them ([`Ignore::load_dir`]).
    pub fn new(repo: &Repo<'_>) -> Ignore {
        let mut ig = Ignore::default();
        if let Ok(data) = repo.fs.read(&repo.gp("info/exclude")) {
            ig.add_file("", ".git/info/exclude", &data);
        }
        ig
    }

    /// Rules for every directory on the way to `rel` (a file's repo path).
    pub fn load_for(&mut self, repo: &Repo<'_>, rel: &str) {
        self.load_dir(repo, "");
        let mut at = 0;
        while let Some(i) = rel[at..].find('/') {
            self.load_dir(repo, &rel[..at + i]);
            at += i + 1;
        }
    }

    /// Loads `dir/.gitignore` (repo-relative `dir`) once.
    pub fn load_dir(&mut self, repo: &Repo<'_>, dir: &str) {
        if !self.loaded.insert(dir.to_string()) {
            return;
        }
        if let Ok(data) = repo.fs.read(&repo.wp(&join(dir, ".gitignore"))) {
            self.add_file(dir, &join(dir, ".gitignore"), &data);
        }
    }

    fn add_file(&mut self, base: &str, source: &str, data: &[u8]) {
        for (n, line) in String::from_utf8_lossy(data).lines().enumerate() {
            let mut l = line.trim_end_matches(['\r']).to_string();
            // Trailing spaces are ignored unless escaped.
            while l.ends_with(' ') && !l.ends_with("\\ ") {
                l.pop();
            }
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            let text = l.clone();
            let negated = l.starts_with('!');
            if negated {
                l.remove(0);
            }
            if l.starts_with("\\#") || l.starts_with("\\!") {
                l.remove(0);
            }
            let dir_only = l.ends_with('/');
            if dir_only {
                l.pop();
            }
            let anchored = l.contains('/');
            let pattern = l.trim_start_matches('/').to_string();
            if pattern.is_empty() {
                continue;
            }
            self.patterns.push(Pattern {
                source: source.to_string(),
                line: n + 1,
                text,
                base: base.to_string(),
                pattern,
                negated,
                dir_only,
                anchored,
            });
        }
    }

    /// Whether the repo path `rel` (a directory when `is_dir`) is ignored by
    /// its own name's rules (not counting an ignored parent).
    pub fn matches(&self, rel: &str, is_dir: bool) -> bool {
        self.deciding(rel, is_dir).is_some_and(|p| !p.negated)
    }

    /// The last pattern that matches `rel` by its own name, if any.
    pub fn deciding(&self, rel: &str, is_dir: bool) -> Option<&Pattern> {
        for p in self.patterns.iter().rev() {
            if p.dir_only && !is_dir {
                continue;
            }
            let local = if p.base.is_empty() {
                rel
            } else if let Some(r) = rel.strip_prefix(&p.base).and_then(|r| r.strip_prefix('/')) {
                r
            } else {
                continue;
            };
            let hit = if p.anchored {
                wildmatch(p.pattern.as_bytes(), local.as_bytes(), true)
            } else {
                let name = local.rsplit('/').next().unwrap_or(local);
                wildmatch(p.pattern.as_bytes(), name.as_bytes(), true)
            };
            if hit {
                return Some(p);
            }
        }
        None
    }

    /// The pattern that decides `rel`: an excluded parent directory's, or
    /// else the last one matching `rel` itself (a `!` one included).
    pub fn explain(&mut self, repo: &Repo<'_>, rel: &str, is_dir: bool) -> Option<Pattern> {
        self.load_for(repo, rel);
        let mut at = 0;
        while let Some(i) = rel[at..].find('/') {
            if let Some(p) = self.deciding(&rel[..at + i], true)
                && !p.negated
            {
                return Some(p.clone());
            }
            at += i + 1;
        }
        self.deciding(rel, is_dir).cloned()
    }

    /// Whether `rel` or one of its parent directories is ignored.
    pub fn is_ignored(&mut self, repo: &Repo<'_>, rel: &str, is_dir: bool) -> bool {
        self.load_for(repo, rel);
        let mut at = 0;
        while let Some(i) = rel[at..].find('/') {
            if self.matches(&rel[..at + i], true) {
                return true;
            }
            at += i + 1;
        }
        self.matches(rel, is_dir)
    }
}

/// A file found in the work tree.
#[derive(Clone, Debug)]
pub struct WorkFile {
    /// Repo-relative path.
    pub path: String,
    /// Whether an ignore rule (or an ignored directory) covers it.
    pub ignored: bool,
}

/// Every file (and symlink) of the work tree, sorted by path (git's
/// order), `.git` skipped; `control` is checked once per directory.
pub fn walk(
    repo: &Repo<'_>,
    ignore: &mut Ignore,
    check: &dyn Fn() -> Result<()>,
) -> Result<Vec<WorkFile>> {
    let mut out = Vec::new();
    walk_dir(repo, ignore, "", false, &mut out, check)?;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

fn walk_dir(
    repo: &Repo<'_>,
    ignore: &mut Ignore,
    rel: &str,
    ignored_parent: bool,
    out: &mut Vec<WorkFile>,
    check: &dyn Fn() -> Result<()>,
) -> Result<()> {
    check()?;
    ignore.load_dir(repo, rel);
    let entries = repo.fs.read_dir(&repo.wp(rel))?;
    for e in entries {
        if e.name == ".git" {
            continue;
        }
        let path = join(rel, &e.name);
        match e.kind {
            FileKind::Dir => {
                let ign = ignored_parent || ignore.matches(&path, true);
                walk_dir(repo, ignore, &path, ign, out, check)?;
            }
            FileKind::File | FileKind::Symlink => {
                let ignored = ignored_parent || ignore.matches(&path, false);
                out.push(WorkFile { path, ignored });
            }
            // Git tracks no special files.
            FileKind::CharDevice | FileKind::Fifo => {}
        }
    }
    Ok(())
}

/// The mode git records for the work-tree file `rel`, `None` when it is missing.
pub fn file_mode(repo: &Repo<'_>, rel: &str) -> Option<u32> {
    let m = repo.fs.symlink_metadata(&repo.wp(rel)).ok()?;
    match m.kind {
        FileKind::Symlink => Some(0o120000),
        FileKind::File if m.mode & 0o100 != 0 => Some(0o100755),
        FileKind::File => Some(0o100644),
        _ => None,
    }
}

/// The content git stores for `rel`: the file's bytes, or a symlink's target.
pub fn file_content(repo: &Repo<'_>, rel: &str) -> Result<Vec<u8>> {
    let p = repo.wp(rel);
    let m = repo.fs.symlink_metadata(&p)?;
    if m.kind == FileKind::Symlink {
        return Ok(repo.fs.read_link(&p)?.into_bytes());
    }
    Ok(repo.fs.read(&p)?)
}

/// The blob id of `data` (not written).
pub fn blob_id(data: &[u8]) -> ObjectId {
    gix_object::compute_hash(HASH, Kind::Blob, data).unwrap_or_else(|_| ObjectId::null(HASH))
}

/// A pathspec: repo-relative patterns; empty matches everything.
#[derive(Clone, Debug, Default)]
pub struct Pathspec {
    /// Repo-relative patterns ("" is the whole tree).
    pub items: Vec<String>,
}

impl Pathspec {
    /// Turns command-line paths (relative to `cwd`) into repo-relative ones.
    pub fn new(repo: &Repo<'_>, cwd: &str, args: &[String]) -> Result<Pathspec> {
        let mut items = Vec::new();
        for a in args {
            let abs = sandkeep_shell::Fs::resolve(cwd, a);
            let rel = if abs == repo.work_tree {
                String::new()
            } else if let Some(r) =
                abs.strip_prefix(&format!("{}/", repo.work_tree.trim_end_matches('/')))
            {
                r.to_string()
            } else {
                return Err(GitError::fatal(format!(
                    "{a}: '{a}' is outside repository at '{}'",
                    repo.work_tree
                )));
            };
            items.push(rel);
        }
        Ok(Pathspec { items })
    }

    /// Whether the repo path `path` falls under the pathspec.
    pub fn matches(&self, path: &str) -> bool {
        self.items.is_empty() || self.items.iter().any(|p| item_matches(p, path))
    }

    /// Whether `item` matched anything of `paths`.
    pub fn item_matches_any<'b>(item: &str, mut paths: impl Iterator<Item = &'b str>) -> bool {
        paths.any(|p| item_matches(item, p))
    }
}

/// One pathspec item against a path: exact, a leading directory, or a glob.
pub fn item_matches(item: &str, path: &str) -> bool {
    if item.is_empty() || item == path {
        return true;
    }
    if path.len() > item.len() && path.starts_with(item) && path.as_bytes()[item.len()] == b'/' {
        return true;
    }
    if item.ends_with('/') && path.starts_with(item) {
        return true;
    }
    if item.contains(['*', '?', '[']) {
        return wildmatch(item.as_bytes(), path.as_bytes(), false);
    }
    false
}

/// Shows a repo path relative to `cwd` the way status and ls-files do.
pub fn relative_to_cwd(repo: &Repo<'_>, cwd: &str, path: &str) -> String {
    let root = repo.work_tree.trim_end_matches('/');
    let cwd_rel = if cwd == root || cwd == repo.work_tree {
        ""
    } else {
        cwd.strip_prefix(&format!("{root}/")).unwrap_or("")
    };
    if cwd_rel.is_empty() {
        return path.to_string();
    }
    let cwd_parts: Vec<&str> = cwd_rel.split('/').collect();
    let path_parts: Vec<&str> = path.split('/').collect();
    let mut common = 0;
    while common < cwd_parts.len()
        && common + 1 < path_parts.len()
        && cwd_parts[common] == path_parts[common]
    {
        common += 1;
    }
    let mut out = String::new();
    for _ in common..cwd_parts.len() {
        out.push_str("../");
    }
    out.push_str(&path_parts[common..].join("/"));
    if out.is_empty() || out == "/" {
        return "./".to_string();
    }
    out
}

/// A path as git prints it (quote.c `quote_c_style`): unchanged when it
/// holds nothing unusual, else in double quotes with C escapes (`\t`,
/// `\n`, `\"`, `\\`, ...) and other control bytes in octal; bytes past
/// ASCII are octal too while `core.quotePath` is on (`non_ascii`).
/// `space` quotes a path with a space as well (short status does).
///
/// ```
/// use sandkeep_git::worktree::quote_path;
/// assert_eq!(quote_path("plain.txt", true, false), "plain.txt");
/// assert_eq!(quote_path("café", true, false), "\"caf\\303\\251\"");
/// assert_eq!(quote_path("café", false, false), "café");
/// assert_eq!(quote_path("a\tb", false, false), "\"a\\tb\"");
/// assert_eq!(quote_path("a b", true, true), "\"a b\"");
/// ```
pub fn quote_path(path: &str, non_ascii: bool, space: bool) -> String {
    let needs =
        |b: u8| b < 0x20 || b == b'"' || b == b'\\' || b == 0x7f || (non_ascii && b >= 0x80);
    let bytes = path.as_bytes();
    if !bytes.iter().any(|&b| needs(b) || (space && b == b' ')) {
        return path.to_string();
    }
    let mut out: Vec<u8> = Vec::with_capacity(path.len() + 8);
    out.push(b'"');
    for &b in bytes {
        let escaped: &[u8] = match b {
            0x07 => b"\\a",
            0x08 => b"\\b",
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            0x0b => b"\\v",
            0x0c => b"\\f",
            b'\r' => b"\\r",
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            _ if needs(b) => {
                out.extend_from_slice(format!("\\{b:03o}").as_bytes());
                continue;
            }
            _ => {
                out.push(b);
                continue;
            }
        };
        out.extend_from_slice(escaped);
    }
    out.push(b'"');
    // Escaped bytes are ASCII and every other byte is copied whole, so a
    // character past ASCII is either all escaped or all kept.
    String::from_utf8_lossy(&out).into_owned()
}
