//! Pathname expansion over the virtual filesystem: `*.txt`, `src/*/mod.rs`,
//! `**` (globstar), hidden files (dotglob), case folding (nocaseglob).
//!
//! Patterns arrive in "pattern form": characters that were quoted in the
//! word are backslash-escaped, so `"*".txt` only matches a file called `*.txt`.

use super::{MatchOptions, Pattern, compiled, has_glob_chars, unescape};
use crate::fs::{FileKind, Fs};
use crate::interp::Interp;

/// Expands `pattern` against `interp.fs`, relative to `interp.cwd`, with the
/// interpreter's glob options. Returns the matching paths sorted like bash in
/// the C locale (bytewise), or an empty vector when nothing matches (the
/// caller then applies nullglob/failglob or keeps the word).
///
/// A non-empty `GLOBIGNORE` (colon-separated patterns) removes the paths it
/// matches, always drops `.` and `..`, and turns dotglob on, as in bash.
pub fn glob(interp: &Interp, pattern: &str) -> Vec<String> {
    let ignore = interp.vars.get_str("GLOBIGNORE").filter(|g| !g.is_empty());
    let m = MatchOptions {
        extglob: interp.opts.extglob,
        nocase: interp.opts.nocaseglob,
    };
    let opts = GlobOpts {
        dotglob: interp.opts.dotglob || ignore.is_some(),
        globstar: interp.opts.globstar,
        // A GLOBIGNORE set drops `.` and `..` whatever globskipdots says.
        skipdots: ignore.is_some() || interp.opts.get_shopt("globskipdots") != Some(false),
        m,
    };
    let mut found = glob_in(&interp.fs, &interp.cwd, pattern, opts);
    if let Some(ignore) = ignore {
        found.retain(|path| !ignored(ignore, path, m));
    }
    found
}

/// Whether `GLOBIGNORE` drops `path`. Its patterns match the whole path with
/// `/` matched only by `/` (bash's FNM_PATHNAME).
fn ignored(globignore: &str, path: &str, m: MatchOptions) -> bool {
    let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    if last == "." || last == ".." {
        return true;
    }
    let names: Vec<&str> = path.split('/').collect();
    split_ignore(globignore)
        .into_iter()
        .filter(|p| !p.is_empty())
        .any(|p| {
            let comps: Vec<&str> = p.split('/').collect();
            comps.len() == names.len()
                && comps
                    .iter()
                    .zip(&names)
                    .all(|(c, n)| compiled(c, m).matches(n))
        })
}

/// Where the bracket expression opening at `open` ends (the index of its
/// `]`), with bash's rules: a `]` first (after `!`/`^`) is literal, and
/// `[:class:]` is part of it. `None`: no closing bracket.
fn bracket_end(b: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    if matches!(b.get(i), Some(b'!' | b'^')) {
        i += 1;
    }
    if b.get(i) == Some(&b']') {
        i += 1;
    }
    while i < b.len() {
        match b[i] {
            b']' => return Some(i),
            b'[' if b.get(i + 1) == Some(&b':') => {
                let close = b[i + 2..].windows(2).position(|w| w == b":]")?;
                i += close + 4;
            }
            _ => i += 1,
        }
    }
    None
}

/// Splits `GLOBIGNORE` at its colons, except those inside a bracket
/// expression (`[[:alnum:]]*` is one pattern), as bash does.
fn split_ignore(spec: &str) -> Vec<&str> {
    let b = spec.as_bytes();
    let (mut parts, mut start, mut i) = (Vec::new(), 0, 0);
    while i < b.len() {
        match b[i] {
            b'[' => i = bracket_end(b, i).map_or(i + 1, |e| e + 1),
            b':' => {
                parts.push(&spec[start..i]);
                start = i + 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    parts.push(&spec[start..]);
    parts
}

/// Glob options.
#[derive(Clone, Copy, Debug, Default)]
pub struct GlobOpts {
    /// `shopt -s dotglob`
    pub dotglob: bool,
    /// `shopt -s globstar`
    pub globstar: bool,
    /// `shopt -s globskipdots` (bash 5.2's default): `.` and `..` never
    /// match; with it off, a pattern starting with `.` matches them.
    pub skipdots: bool,
    /// extglob / nocaseglob.
    pub m: MatchOptions,
}

/// [`glob`] with explicit filesystem, working directory and options.
pub fn glob_in(fs: &Fs, cwd: &str, pattern: &str, opts: GlobOpts) -> Vec<String> {
    let (base, out_prefix, rest) = if let Some(r) = pattern.strip_prefix('/') {
        ("/".to_string(), "/".to_string(), r)
    } else {
        (cwd.to_string(), String::new(), pattern)
    };
    let comps = split_components(rest);
    let mut out = Vec::new();
    let mut g = Globber {
        fs,
        opts,
        out: &mut out,
    };
    g.walk(&base, &out_prefix, &comps);
    out.sort();
    out.dedup();
    out
}

/// Splits on unescaped `/`, keeping escapes in the pieces.
fn split_components(p: &str) -> Vec<String> {
    let mut comps = Vec::new();
    let mut cur = String::new();
    let mut chars = p.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                cur.push('\\');
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            '/' => {
                // Collapse duplicate slashes; a trailing slash is kept as "".
                if !cur.is_empty() || comps.is_empty() {
                    comps.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    comps.push(cur);
    comps
}

struct Globber<'a> {
    fs: &'a Fs,
    opts: GlobOpts,
    out: &'a mut Vec<String>,
}

fn join(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

impl Globber<'_> {
    fn is_dir(&self, path: &str) -> bool {
        self.fs
            .metadata(path)
            .map(|m| m.kind == FileKind::Dir)
            .unwrap_or(false)
    }

    /// Matches `comps` below directory `dir` (absolute); `prefix` is what the
    /// output paths start with for `dir`.
    fn walk(&mut self, dir: &str, prefix: &str, comps: &[String]) {
        let Some((comp, rest)) = comps.split_first() else {
            return;
        };
        if comp.is_empty() {
            // Trailing slash: only directories, printed with the slash.
            if rest.is_empty() && self.is_dir(dir) && !prefix.is_empty() {
                self.out.push(prefix.to_string());
            }
            return;
        }
        if self.opts.globstar && comp == "**" {
            self.globstar(dir, prefix, rest);
            return;
        }
        if !has_glob_chars(comp, self.opts.m.extglob) {
            let name = unescape(comp);
            let path = join(dir, &name);
            let out = format!("{prefix}{name}");
            if rest.is_empty() {
                if self.fs.symlink_metadata(&path).is_ok() {
                    self.out.push(out);
                }
            } else {
                self.walk(&path, &format!("{out}/"), rest);
            }
            return;
        }
        let pat = compiled(comp, self.opts.m);
        let Ok(entries) = self.fs.read_dir(dir) else {
            return;
        };
        // The directory listing has no `.` and `..`; they come in here.
        let dots = if !self.opts.skipdots && pat.starts_with_dot() {
            &[".", ".."][..]
        } else {
            &[]
        };
        let names = dots
            .iter()
            .map(|d| d.to_string())
            .chain(entries.into_iter().map(|e| e.name));
        for name in names {
            if !self.visible(&name, &pat) || !pat.matches(&name) {
                continue;
            }
            let out = format!("{prefix}{name}");
            if rest.is_empty() {
                self.out.push(out);
            } else {
                let path = join(dir, &name);
                if self.is_dir(&path) {
                    self.walk(&path, &format!("{out}/"), rest);
                }
            }
        }
    }

    /// Hidden names match only with dotglob or an explicit leading `.`.
    fn visible(&self, name: &str, pat: &Pattern) -> bool {
        !name.starts_with('.') || self.opts.dotglob || pat.starts_with_dot()
    }

    /// `**`: zero or more directory levels.
    fn globstar(&mut self, dir: &str, prefix: &str, rest: &[String]) {
        if rest.is_empty() {
            // `**` alone: every file and directory below, recursively.
            if !prefix.is_empty() {
                self.out.push(prefix.to_string());
            }
            self.all_below(dir, prefix, false);
            return;
        }
        if rest.len() == 1 && rest[0].is_empty() {
            // `**/`: every directory below.
            self.all_below(dir, prefix, true);
            return;
        }
        self.walk(dir, prefix, rest);
        let Ok(entries) = self.fs.read_dir(dir) else {
            return;
        };
        for e in entries {
            if e.name.starts_with('.') && !self.opts.dotglob {
                continue;
            }
            if e.kind == FileKind::Dir {
                let path = join(dir, &e.name);
                let p = format!("{prefix}{}/", e.name);
                self.globstar(&path, &p, rest);
            }
        }
    }

    fn all_below(&mut self, dir: &str, prefix: &str, dirs_only: bool) {
        let Ok(entries) = self.fs.read_dir(dir) else {
            return;
        };
        for e in entries {
            if e.name.starts_with('.') && !self.opts.dotglob {
                continue;
            }
            let is_dir = e.kind == FileKind::Dir;
            if is_dir {
                let p = format!("{prefix}{}/", e.name);
                self.out.push(if dirs_only {
                    p.clone()
                } else {
                    format!("{prefix}{}", e.name)
                });
                self.all_below(&join(dir, &e.name), &p, dirs_only);
            } else if !dirs_only {
                self.out.push(format!("{prefix}{}", e.name));
            }
        }
    }
}
