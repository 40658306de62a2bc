//! Path commands: `readlink`, `realpath`, `basename`, `dirname`, `pwd`, and
//! the symlink-aware canonicalisation they share with `ln -r`.

use super::common::{GnuError, quotef};
use super::common::{quote_locale, usage_error};
use crate::commands::CommandCtx;
use crate::fs::{FileKind, Fs, FsError};

declare_options! {
    /// readlink's options.
    pub(crate) enum ReadlinkOpt {
        usage: "Usage: readlink [OPTION]... FILE...",
        about: "Print the target of each symbolic link FILE; with -f, -e or -m, print the
canonical name of each FILE instead.
",
        after: "",
        column: 32,
        rows: [
            Canonicalize: 'f' "canonicalize" none => "resolve '.', '..' and every symbolic link in
                every component; all components but the
                last must exist",
            Existing: 'e' "canonicalize-existing" none => "like -f, but every component must exist",
            Missing: 'm' "canonicalize-missing" none => "like -f, but any component may be missing",
            NoNewline: 'n' "no-newline" none => "leave out the newline (with one FILE only)",
            Quiet: 'q' "quiet" none => "do not report errors (the default)",
            Silent: 's' "silent" none => "do not report errors (the default)",
            Verbose: 'v' "verbose" none => "report errors",
            Zero: 'z' "zero" none => "end each output line with NUL, not newline",
        ],
    }
}

declare_options! {
    /// realpath's options.
    pub(crate) enum RealpathOpt {
        usage: "Usage: realpath [OPTION]... FILE...",
        about: "Print the absolute name of each FILE, with '.', '..' and symbolic links
resolved; all components but the last must exist.
",
        after: "",
        column: 31,
        rows: [
            Existing: 'e' "canonicalize-existing" none => "every component must exist",
            Missing: 'm' "canonicalize-missing" none => "any component may be missing, or not be a
                directory",
            LastMayMiss: 'E' - none => "all components but the last must exist
                (the default)",
            Logical: 'L' "logical" none => "resolve '..' components before symbolic links",
            Physical: 'P' "physical" none => "resolve symbolic links as they come (the
                default)",
            Quiet: 'q' "quiet" none => "do not report errors",
            Strip: 's' "strip" none => "leave symbolic links unresolved",
            NoSymlinks: - "no-symlinks" none => "",
            Zero: 'z' "zero" none => "end each output line with NUL, not newline",
            RelativeTo: - "relative-to" required "DIR" => "print each name relative to DIR",
            RelativeBase: - "relative-base" required "DIR" => "print names under DIR relative to it, others
                as absolute names",
        ],
    }
}

declare_options! {
    /// basename's options.
    pub(crate) enum BasenameOpt {
        usage: "Usage: basename NAME [SUFFIX]
  or:  basename OPTION... NAME...",
        about: "Print NAME without the directories leading to it, and without SUFFIX if it
ends with SUFFIX.
",
        after: "",
        column: 23,
        rows: [
            Multiple: 'a' "multiple" none => "take every operand as a NAME",
            Suffix: 's' "suffix" required "SUFFIX" => "remove SUFFIX from the end of each NAME; implies -a",
            Zero: 'z' "zero" none => "end each output line with NUL, not newline",
        ],
    }
}

declare_options! {
    /// dirname's options.
    pub(crate) enum DirnameOpt {
        usage: "Usage: dirname [OPTION] NAME...",
        about: "Print each NAME without its last component and the slashes around it; a
NAME without a slash gives '.', the current directory.
",
        after: "",
        column: 17,
        rows: [
            Zero: 'z' "zero" none => "end each output line with NUL, not newline",
        ],
    }
}

declare_options! {
    /// pwd's options.
    pub(crate) enum PwdOpt {
        usage: "Usage: pwd [OPTION]...",
        about: "Print the name of the current working directory.
",
        after: "",
        column: 18,
        rows: [
            Logical: 'L' "logical" none => "print it as reached, symbolic links and all (the default)",
            Physical: 'P' "physical" none => "print it with every symbolic link resolved",
        ],
    }
}

/// Which path components may be missing during canonicalisation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Missing {
    /// Every component must exist (`readlink -e`, `realpath -e`).
    None,
    /// All but the last must exist (`readlink -f`, `realpath`).
    Last,
    /// Anything may be missing (`readlink -m`, `realpath -m`).
    All,
}

/// Canonicalises absolute `path`: resolves `.`, `..` and (with `follow`)
/// symlinks, allowing missing components per `missing`.
pub fn canonical(fs: &Fs, path: &str, missing: Missing, follow: bool) -> Result<String, FsError> {
    let mut todo: Vec<String> = path
        .split('/')
        .filter(|c| !c.is_empty())
        .rev()
        .map(String::from)
        .collect();
    let mut parts: Vec<String> = Vec::new();
    let mut links = 0;
    let mut past_missing = false;
    while let Some(comp) = todo.pop() {
        if comp == "." {
            continue;
        }
        if comp == ".." {
            parts.pop();
            continue;
        }
        let candidate = format!(
            "/{}",
            parts
                .iter()
                .chain(std::iter::once(&comp))
                .cloned()
                .collect::<Vec<_>>()
                .join("/")
        );
        if past_missing {
            parts.push(comp);
            continue;
        }
        let is_last = todo.iter().all(|c| c == ".");
        match fs.symlink_metadata(&candidate) {
            Ok(m) if m.kind == FileKind::Symlink && follow => {
                links += 1;
                if links > 40 {
                    return Err(FsError::TooManyLinks);
                }
                let target = fs.read_link(&candidate)?;
                if target.starts_with('/') {
                    parts.clear();
                }
                todo.extend(
                    target
                        .split('/')
                        .filter(|c| !c.is_empty())
                        .rev()
                        .map(String::from),
                );
            }
            Ok(m) => {
                if m.kind != FileKind::Dir && !is_last && missing != Missing::All {
                    return Err(FsError::NotADirectory);
                }
                parts.push(comp);
            }
            Err(e) => {
                let allowed = match missing {
                    Missing::None => false,
                    Missing::Last => is_last && e == FsError::NotFound,
                    Missing::All => true,
                };
                if !allowed {
                    return Err(e);
                }
                if missing == Missing::All {
                    parts.push(comp);
                } else {
                    parts.push(comp);
                    past_missing = true;
                }
            }
        }
    }
    Ok(format!("/{}", parts.join("/")))
}

/// A name written with a trailing slash must resolve to a directory.
fn dir_if_slash(
    ctx: &CommandCtx<'_>,
    name: &str,
    r: String,
    m: Missing,
) -> Result<String, FsError> {
    if m != Missing::All
        && name.len() > 1
        && name.ends_with('/')
        && let Ok(meta) = ctx.fs.metadata(&r)
        && meta.kind != FileKind::Dir
    {
        return Err(FsError::NotADirectory);
    }
    Ok(r)
}

/// The relative path from directory `base` to `target` (both absolute, canonical).
pub fn relative_path(target: &str, base: &str) -> String {
    let t: Vec<&str> = target.split('/').filter(|c| !c.is_empty()).collect();
    let b: Vec<&str> = base.split('/').filter(|c| !c.is_empty()).collect();
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out: Vec<&str> = std::iter::repeat_n("..", b.len() - common).collect();
    out.extend(&t[common..]);
    if out.is_empty() {
        ".".to_string()
    } else {
        out.join("/")
    }
}

/// `readlink [-femnqvz] FILE...`
pub fn readlink(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = ReadlinkOpt::TABLE.parse_or_usage(ctx) else {
        return 1;
    };
    if p.operands.is_empty() {
        usage_error(ctx, "missing operand");
        return 1;
    }
    let (mut mode, mut zero, mut no_newline, mut verbose) = (None, false, false, false);
    for (opt, _) in &p.opts {
        match opt {
            ReadlinkOpt::Canonicalize => mode = Some(Missing::Last),
            ReadlinkOpt::Existing => mode = Some(Missing::None),
            ReadlinkOpt::Missing => mode = Some(Missing::All),
            ReadlinkOpt::NoNewline => no_newline = true,
            ReadlinkOpt::Quiet | ReadlinkOpt::Silent => verbose = false,
            ReadlinkOpt::Verbose => verbose = true,
            ReadlinkOpt::Zero => zero = true,
        }
    }
    let term = if zero {
        "\0"
    } else if no_newline && p.operands.len() == 1 {
        ""
    } else {
        "\n"
    };
    let mut status = 0;
    for name in &p.operands {
        let path = ctx.path(name);
        let r = match mode {
            Some(m) => {
                canonical(ctx.fs, &path, m, true).and_then(|r| dir_if_slash(ctx, name, r, m))
            }
            None => ctx.fs.read_link(&path).and_then(|t| {
                if ctx.fs.symlink_metadata(&path)?.kind == FileKind::Symlink {
                    Ok(t)
                } else {
                    Err(FsError::InvalidArgument)
                }
            }),
        };
        match r {
            Ok(s) => {
                let _ = write!(ctx.stdout, "{s}{term}");
            }
            Err(e) => {
                if verbose {
                    ctx.gnu_error(format_args!("{}: {e}", quotef(name)));
                }
                status = 1;
            }
        }
    }
    status
}

/// `realpath [-emsqz] [--relative-to=DIR] [--relative-base=DIR] FILE...`
pub fn realpath(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = RealpathOpt::TABLE.parse_or_usage(ctx) else {
        return 1;
    };
    if p.operands.is_empty() {
        usage_error(ctx, "missing operand");
        return 1;
    }
    let (mut mode, mut follow, mut quiet, mut zero) = (Missing::Last, true, false, false);
    let (mut rel_to_arg, mut rel_base_arg) = (None, None);
    for (opt, value) in &p.opts {
        match opt {
            RealpathOpt::Existing => mode = Missing::None,
            RealpathOpt::Missing => mode = Missing::All,
            RealpathOpt::LastMayMiss => mode = Missing::Last,
            RealpathOpt::Strip | RealpathOpt::NoSymlinks | RealpathOpt::Logical => follow = false,
            RealpathOpt::Physical => {}
            RealpathOpt::Quiet => quiet = true,
            RealpathOpt::Zero => zero = true,
            RealpathOpt::RelativeTo => rel_to_arg = value.as_deref(),
            RealpathOpt::RelativeBase => rel_base_arg = value.as_deref(),
        }
    }
    let resolve = |ctx: &CommandCtx<'_>, name: &str, mode: Missing| -> Result<String, FsError> {
        let path = ctx.path(name);
        canonical(ctx.fs, &path, mode, follow).and_then(|r| dir_if_slash(ctx, name, r, mode))
    };
    let rel_to = match rel_to_arg {
        Some(d) => match resolve(ctx, d, mode) {
            Ok(r) => Some(r),
            Err(e) => {
                ctx.gnu_error(format_args!("{d}: {e}"));
                return 1;
            }
        },
        None => None,
    };
    let rel_base = match rel_base_arg {
        Some(d) => match resolve(ctx, d, mode) {
            Ok(r) => Some(r),
            Err(e) => {
                ctx.gnu_error(format_args!("{d}: {e}"));
                return 1;
            }
        },
        None => None,
    };
    let term = if zero { "\0" } else { "\n" };
    let mut status = 0;
    for name in &p.operands {
        match resolve(ctx, name, mode) {
            Ok(r) => {
                let under =
                    |base: &str| base == "/" || r == base || r.starts_with(&format!("{base}/"));
                let shown = match (&rel_to, &rel_base) {
                    (Some(to), Some(base)) if under(base) && under_dir(to, base) => {
                        relative_path(&r, to)
                    }
                    (Some(_), Some(_)) => r.clone(),
                    (Some(to), None) => relative_path(&r, to),
                    (None, Some(base)) if under(base) => relative_path(&r, base),
                    _ => r.clone(),
                };
                let _ = write!(ctx.stdout, "{shown}{term}");
            }
            Err(e) => {
                if !quiet {
                    ctx.gnu_error(format_args!("{}: {e}", quotef(name)));
                }
                status = 1;
            }
        }
    }
    status
}

fn under_dir(p: &str, base: &str) -> bool {
    base == "/" || p == base || p.starts_with(&format!("{base}/"))
}

/// The basename of `name` with `suffix` removed (unless it is the whole name).
pub fn strip_base(name: &str, suffix: Option<&str>) -> String {
    let b = super::common::base_name(name);
    if let Some(s) = suffix
        && !s.is_empty()
        && b.len() > s.len()
        && b.ends_with(s)
    {
        return b[..b.len() - s.len()].to_string();
    }
    b.to_string()
}

/// `basename NAME [SUFFIX]` / `basename -a [-s SUFFIX] NAME...`
pub fn basename(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = BasenameOpt::TABLE.parse_or_usage(ctx) else {
        return 1;
    };
    if p.operands.is_empty() {
        usage_error(ctx, "missing operand");
        return 1;
    }
    let (mut zero, mut multi, mut suffix_arg) = (false, false, None);
    for (opt, value) in &p.opts {
        match opt {
            BasenameOpt::Multiple => multi = true,
            BasenameOpt::Suffix => {
                multi = true;
                suffix_arg = value.as_deref();
            }
            BasenameOpt::Zero => zero = true,
        }
    }
    let term = if zero { "\0" } else { "\n" };
    let (names, suffix): (Vec<&String>, Option<&str>) = if multi {
        (p.operands.iter().collect(), suffix_arg)
    } else {
        if p.operands.len() > 2 {
            usage_error(
                ctx,
                &format!("extra operand {}", quote_locale(&p.operands[2])),
            );
            return 1;
        }
        (vec![&p.operands[0]], p.operands.get(1).map(|s| s.as_str()))
    };
    for n in names {
        let _ = write!(ctx.stdout, "{}{term}", strip_base(n, suffix));
    }
    0
}

/// The directory part of `name`, as `dirname` prints it.
pub fn dir_part(name: &str) -> String {
    let t = name.trim_end_matches('/');
    if t.is_empty() {
        return if name.starts_with('/') {
            "/".into()
        } else {
            ".".into()
        };
    }
    match t.rfind('/') {
        None => ".".into(),
        Some(i) => {
            let d = t[..i].trim_end_matches('/');
            if d.is_empty() { "/".into() } else { d.into() }
        }
    }
}

/// `dirname [-z] NAME...`
pub fn dirname(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = DirnameOpt::TABLE.parse_or_usage(ctx) else {
        return 1;
    };
    if p.operands.is_empty() {
        usage_error(ctx, "missing operand");
        return 1;
    }
    let zero = p.opts.iter().any(|(o, _)| matches!(o, DirnameOpt::Zero));
    let term = if zero { "\0" } else { "\n" };
    for n in &p.operands {
        let _ = write!(ctx.stdout, "{}{term}", dir_part(n));
    }
    0
}

/// `pwd [-LP]`
pub fn pwd(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = PwdOpt::TABLE.parse_or_usage(ctx) else {
        return 1;
    };
    let physical = p.opts.iter().fold(false, |_, (o, _)| match o {
        PwdOpt::Logical => false,
        PwdOpt::Physical => true,
    });
    let cwd = ctx.cwd.to_string();
    let shown = if physical {
        ctx.fs.canonicalize(&cwd).unwrap_or(cwd)
    } else {
        cwd
    };
    let _ = writeln!(ctx.stdout, "{shown}");
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dirname_and_basename_edge_cases() {
        assert_eq!(dir_part("a"), ".");
        assert_eq!(dir_part("/a"), "/");
        assert_eq!(dir_part("a/b/"), "a");
        assert_eq!(dir_part("//"), "/");
        assert_eq!(dir_part("a//b"), "a");
        assert_eq!(strip_base("/x/y.txt", Some(".txt")), "y");
        assert_eq!(strip_base(".txt", Some(".txt")), ".txt");
        assert_eq!(strip_base("/", None), "/");
    }

    #[test]
    fn relative_paths() {
        assert_eq!(relative_path("/a/b/c", "/a"), "b/c");
        assert_eq!(relative_path("/a", "/a/b"), "..");
        assert_eq!(relative_path("/x/y", "/a/b"), "../../x/y");
        assert_eq!(relative_path("/a", "/a"), ".");
    }
}
