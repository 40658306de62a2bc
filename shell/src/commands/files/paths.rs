//! Path commands: `readlink`, `realpath`, `basename`, `dirname`, `pwd`, and
//! the symlink-aware canonicalisation they share with `ln -r`.

use super::common::{GnuError, quotef};
use super::common::{OptSpec, flag, parse_or_usage, quote_locale, usage_error, with_arg};
use crate::commands::CommandCtx;
use crate::fs::{FileKind, Fs, FsError};

/// What `readlink --help` prints.
pub(crate) const READLINK_USAGE: &str = "\
Usage: readlink [OPTION]... FILE...
Print the target of each symbolic link FILE; with -f, -e or -m, print the
canonical name of each FILE instead.

  -f, --canonicalize            resolve '.', '..' and every symbolic link in
                                  every component; all components but the
                                  last must exist
  -e, --canonicalize-existing   like -f, but every component must exist
  -m, --canonicalize-missing    like -f, but any component may be missing
  -n, --no-newline              leave out the newline (with one FILE only)
  -q, --quiet
  -s, --silent                  do not report errors (the default)
  -v, --verbose                 report errors
  -z, --zero                    end each output line with NUL, not newline
      --help        display this help and exit
";

/// What `realpath --help` prints.
pub(crate) const REALPATH_USAGE: &str = "\
Usage: realpath [OPTION]... FILE...
Print the absolute name of each FILE, with '.', '..' and symbolic links
resolved; all components but the last must exist.

  -e, --canonicalize-existing  every component must exist
  -m, --canonicalize-missing   any component may be missing, or not be a
                                 directory
  -E                           all components but the last must exist
                                 (the default)
  -P, --physical               resolve symbolic links as they come (the
                                 default)
  -q, --quiet                  do not report errors
      --relative-to=DIR        print each name relative to DIR
      --relative-base=DIR      print names under DIR relative to it, others
                                 as absolute names
  -s, --strip, --no-symlinks   leave symbolic links unresolved
  -z, --zero                   end each output line with NUL, not newline
      --help        display this help and exit
";

/// What `basename --help` prints.
pub(crate) const BASENAME_USAGE: &str = "\
Usage: basename NAME [SUFFIX]
  or:  basename OPTION... NAME...
Print NAME without the directories leading to it, and without SUFFIX if it
ends with SUFFIX.

  -a, --multiple       take every operand as a NAME
  -s, --suffix=SUFFIX  remove SUFFIX from the end of each NAME; implies -a
  -z, --zero           end each output line with NUL, not newline
      --help        display this help and exit
";

/// What `dirname --help` prints.
pub(crate) const DIRNAME_USAGE: &str = "\
Usage: dirname [OPTION] NAME...
Print each NAME without its last component and the slashes around it; a
NAME without a slash gives '.', the current directory.

  -z, --zero     end each output line with NUL, not newline
      --help        display this help and exit
";

/// What `pwd --help` prints.
pub(crate) const PWD_USAGE: &str = "\
Usage: pwd [OPTION]...
Print the name of the current working directory.

  -L, --logical   print it as reached, symbolic links and all (the default)
  -P, --physical  print it with every symbolic link resolved
      --help        display this help and exit
";

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

const READLINK_SPEC: &[OptSpec] = &[
    flag('f', Some("canonicalize"), "f"),
    flag('e', Some("canonicalize-existing"), "e"),
    flag('m', Some("canonicalize-missing"), "m"),
    flag('n', Some("no-newline"), "n"),
    flag('q', Some("quiet"), "q"),
    flag('s', Some("silent"), "q"),
    flag('v', Some("verbose"), "v"),
    flag('z', Some("zero"), "z"),
];

/// `readlink [-femnqvz] FILE...`
pub fn readlink(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = parse_or_usage(ctx, READLINK_SPEC, false) else {
        return 1;
    };
    if p.operands.is_empty() {
        usage_error(ctx, "missing operand");
        return 1;
    }
    let mode = match p.last_of(&["f", "e", "m"]) {
        Some("f") => Some(Missing::Last),
        Some("e") => Some(Missing::None),
        Some("m") => Some(Missing::All),
        _ => None,
    };
    let term = if p.has("z") {
        "\0"
    } else if p.has("n") && p.operands.len() == 1 {
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
                if p.has("v") {
                    ctx.gnu_error(format_args!("{}: {e}", quotef(name)));
                }
                status = 1;
            }
        }
    }
    status
}

const REALPATH_SPEC: &[OptSpec] = &[
    flag('e', Some("canonicalize-existing"), "e"),
    flag('m', Some("canonicalize-missing"), "m"),
    flag('E', None, "E"),
    flag('L', Some("logical"), "L"),
    flag('P', Some("physical"), "P"),
    flag('q', Some("quiet"), "q"),
    flag('s', Some("strip"), "s"),
    flag('z', Some("zero"), "z"),
    OptSpec {
        short: None,
        long: Some("no-symlinks"),
        arg: super::common::Arg::None,
        id: "s",
        value: "",
        help: "",
    },
    with_arg(None, Some("relative-to"), "relative-to"),
    with_arg(None, Some("relative-base"), "relative-base"),
];

/// `realpath [-emsqz] [--relative-to=DIR] [--relative-base=DIR] FILE...`
pub fn realpath(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = parse_or_usage(ctx, REALPATH_SPEC, false) else {
        return 1;
    };
    if p.operands.is_empty() {
        usage_error(ctx, "missing operand");
        return 1;
    }
    let mode = match p.last_of(&["e", "m", "E"]) {
        Some("e") => Missing::None,
        Some("m") => Missing::All,
        _ => Missing::Last,
    };
    let follow = !p.has("s") && !p.has("L");
    let resolve = |ctx: &CommandCtx<'_>, name: &str, mode: Missing| -> Result<String, FsError> {
        let path = ctx.path(name);
        canonical(ctx.fs, &path, mode, follow).and_then(|r| dir_if_slash(ctx, name, r, mode))
    };
    let rel_to = match p.last("relative-to") {
        Some(d) => match resolve(ctx, d, mode) {
            Ok(r) => Some(r),
            Err(e) => {
                ctx.gnu_error(format_args!("{d}: {e}"));
                return 1;
            }
        },
        None => None,
    };
    let rel_base = match p.last("relative-base") {
        Some(d) => match resolve(ctx, d, mode) {
            Ok(r) => Some(r),
            Err(e) => {
                ctx.gnu_error(format_args!("{d}: {e}"));
                return 1;
            }
        },
        None => None,
    };
    let term = if p.has("z") { "\0" } else { "\n" };
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
                if !p.has("q") {
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

const BASENAME_SPEC: &[OptSpec] = &[
    flag('a', Some("multiple"), "a"),
    with_arg(Some('s'), Some("suffix"), "s"),
    flag('z', Some("zero"), "z"),
];

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
    let Some(p) = parse_or_usage(ctx, BASENAME_SPEC, false) else {
        return 1;
    };
    if p.operands.is_empty() {
        usage_error(ctx, "missing operand");
        return 1;
    }
    let term = if p.has("z") { "\0" } else { "\n" };
    let multi = p.has("a") || p.has("s");
    let (names, suffix): (Vec<&String>, Option<&str>) = if multi {
        (p.operands.iter().collect(), p.last("s"))
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
    let spec = [flag('z', Some("zero"), "z")];
    let Some(p) = parse_or_usage(ctx, &spec, false) else {
        return 1;
    };
    if p.operands.is_empty() {
        usage_error(ctx, "missing operand");
        return 1;
    }
    let term = if p.has("z") { "\0" } else { "\n" };
    for n in &p.operands {
        let _ = write!(ctx.stdout, "{}{term}", dir_part(n));
    }
    0
}

/// `pwd [-LP]`
pub fn pwd(ctx: &mut CommandCtx<'_>) -> i32 {
    let spec = [
        flag('L', Some("logical"), "L"),
        flag('P', Some("physical"), "P"),
    ];
    let Some(p) = parse_or_usage(ctx, &spec, false) else {
        return 1;
    };
    let cwd = ctx.cwd.to_string();
    let shown = if p.last_of(&["L", "P"]) == Some("P") {
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
