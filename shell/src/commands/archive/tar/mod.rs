//! `tar`: create (`c`), extract (`x`) and list (`t`) archives in the virtual
//! tree, with GNU tar's option syntax, member names, `--exclude` rules,
//! messages and exit statuses.
//!
//! Archives are written in GNU format (long names through `././@LongLink`)
//! with uid/gid 1000 and owner `sandbox`; reading goes through the `tar`
//! crate and accepts GNU, ustar (busybox) and pax archives, gzipped or not.

mod create;
mod extract;
mod listing;
mod names;

use names::Excludes;

use crate::commands::CommandCtx;
use crate::fs::Fs;

/// What the invocation asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Create,
    Extract,
    List,
}

/// Parsed command line.
pub(crate) struct Options {
    op: Option<Op>,
    /// The archive (`-f`), resolved against the initial working directory;
    /// `None` or `-` is stdin/stdout.
    file: Option<String>,
    /// The archive name as written on the command line, for messages.
    file_arg: Option<String>,
    gzip: bool,
    auto_compress: bool,
    verbose: u8,
    excludes: Excludes,
    strip: usize,
    to_stdout: bool,
    absolute_names: bool,
    keep_old: bool,
    skip_old: bool,
    preserve_perms: bool,
    touch: bool,
    remove_files: bool,
    /// The directory in force after all `-C` options.
    dir: String,
    /// File operands with the directory (`-C`) in force where each appeared.
    operands: Vec<(String, String)>,
    /// Options that only affect operands after them came after the last one
    /// (GNU warns and fails in create mode).
    late_excludes: Vec<String>,
}

/// How a failure ends the run: GNU tar's "fatal" errors stop at once.
pub(crate) struct Fatal;

/// The exit status and message state of one run.
pub(crate) struct Status {
    /// Some error was reported; exit 2 at the end.
    pub(crate) failed: bool,
    /// Prefixes already reported by "Removing leading ..." (GNU says each once).
    pub(crate) removed_prefixes: Vec<String>,
}

impl Status {
    fn new() -> Status {
        Status {
            failed: false,
            removed_prefixes: Vec::new(),
        }
    }
}

/// Writes `tar: message` to stderr.
pub(crate) fn warn(ctx: &mut CommandCtx<'_>, msg: impl std::fmt::Display) {
    let _ = writeln!(ctx.stderr, "tar: {msg}");
}

/// Reports an error and remembers to exit 2.
pub(crate) fn error(ctx: &mut CommandCtx<'_>, st: &mut Status, msg: impl std::fmt::Display) {
    warn(ctx, msg);
    st.failed = true;
}

/// Applies GNU's safer-name rule for `name`: strips leading `/` and up to the
/// last `..`, announcing each distinct stripped prefix once.
pub(crate) fn safe_name<'n>(
    ctx: &mut CommandCtx<'_>,
    st: &mut Status,
    opts: &Options,
    name: &'n str,
) -> &'n str {
    if opts.absolute_names {
        return name;
    }
    let (prefix, rest) = names::split_unsafe_prefix(name);
    if !prefix.is_empty() && !st.removed_prefixes.iter().any(|p| p == prefix) {
        warn(
            ctx,
            format_args!("Removing leading `{prefix}' from member names"),
        );
        st.removed_prefixes.push(prefix.to_string());
    }
    rest
}

/// The `tar` command.
pub fn tar(ctx: &mut CommandCtx<'_>) -> i32 {
    let opts = match parse(ctx) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let mut st = Status::new();
    let result = match opts.op {
        Some(Op::Create) => create::run(ctx, &opts, &mut st),
        Some(Op::Extract) | Some(Op::List) => extract::run(ctx, &opts, &mut st),
        None => unreachable!("parse requires an operation"),
    };
    match result {
        Ok(()) if st.failed => {
            warn(ctx, "Exiting with failure status due to previous errors");
            2
        }
        Ok(()) => 0,
        Err(Fatal) => {
            warn(ctx, "Error is not recoverable: exiting now");
            2
        }
    }
}

fn usage_error(ctx: &mut CommandCtx<'_>, msg: impl std::fmt::Display) -> i32 {
    let _ = writeln!(ctx.stderr, "tar: {msg}");
    let _ = writeln!(
        ctx.stderr,
        "Try 'tar --help' or 'tar --usage' for more information."
    );
    2
}

/// Long options: name, whether it takes an argument.
const LONG: &[(&str, bool)] = &[
    ("absolute-names", false),
    ("anchored", false),
    ("auto-compress", false),
    ("blocking-factor", true),
    ("bzip2", false),
    ("create", false),
    ("delay-directory-restore", false),
    ("dereference", false),
    ("directory", true),
    ("exclude", true),
    ("exclude-from", true),
    ("extract", false),
    ("file", true),
    ("files-from", true),
    ("format", true),
    ("get", false),
    ("group", true),
    ("gunzip", false),
    ("gzip", false),
    ("help", false),
    ("ignore-failed-read", false),
    ("ignore-zeros", false),
    ("keep-directory-symlink", false),
    ("keep-old-files", false),
    ("list", false),
    ("lzma", false),
    ("mode", true),
    ("mtime", true),
    ("no-anchored", false),
    ("no-overwrite-dir", false),
    ("no-recursion", false),
    ("no-same-owner", false),
    ("no-same-permissions", false),
    ("no-wildcards", false),
    ("numeric-owner", false),
    ("one-file-system", false),
    ("overwrite", false),
    ("overwrite-dir", false),
    ("owner", true),
    ("preserve-permissions", false),
    ("record-size", true),
    ("recursion", false),
    ("remove-files", false),
    ("same-owner", false),
    ("same-permissions", false),
    ("skip-old-files", false),
    ("sort", true),
    ("strip-components", true),
    ("to-stdout", false),
    ("totals", false),
    ("touch", false),
    ("ungzip", false),
    ("unlink-first", false),
    ("verbose", false),
    ("version", false),
    ("warning", true),
    ("wildcards", false),
    ("wildcards-match-slash", false),
    ("xz", false),
    ("zstd", false),
];

/// Short options that take an argument.
const SHORT_WITH_ARG: &[char] = &['f', 'C', 'X', 'T', 'b', 'H', 'K', 'L', 'N', 'V', 'g'];

/// One option occurrence, normalised to its long name (or short letter).
enum Opt {
    Short(char, Option<String>),
    Long(&'static str, Option<String>),
}

fn parse(ctx: &mut CommandCtx<'_>) -> Result<Options, i32> {
    let args: Vec<String> = ctx.args[1..].to_vec();
    let mut opts = Options {
        op: None,
        file: None,
        file_arg: None,
        gzip: false,
        auto_compress: false,
        verbose: 0,
        excludes: Excludes::default(),
        strip: 0,
        to_stdout: false,
        absolute_names: false,
        keep_old: false,
        skip_old: false,
        preserve_perms: false,
        touch: false,
        remove_files: false,
        dir: ctx.cwd.to_string(),
        operands: Vec::new(),
        late_excludes: Vec::new(),
    };
    let mut i = 0;
    // Old-style first argument: `tar czf FILE ...`, letters taking their
    // arguments from the following words in order.
    if let Some(first) = args.first()
        && !first.starts_with('-')
        && !first.is_empty()
    {
        i = 1;
        for c in first.chars() {
            let arg = if SHORT_WITH_ARG.contains(&c) {
                let Some(a) = args.get(i) else {
                    return Err(usage_error(
                        ctx,
                        format_args!("option requires an argument -- '{c}'"),
                    ));
                };
                i += 1;
                Some(a.clone())
            } else {
                None
            };
            apply(ctx, &mut opts, Opt::Short(c, arg))?;
        }
    }
    let mut only_operands = false;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if only_operands || a == "-" || !a.starts_with('-') {
            let dir = opts.dir.clone();
            opts.operands.push((dir, a.clone()));
            continue;
        }
        if a == "--" {
            only_operands = true;
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            parse_long(ctx, &mut opts, &args, &mut i, long)?;
            continue;
        }
        // A cluster of short options; one taking an argument ends it.
        let chars: Vec<char> = a[1..].chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            k += 1;
            if SHORT_WITH_ARG.contains(&c) {
                let rest: String = chars[k..].iter().collect();
                let value = if !rest.is_empty() {
                    rest
                } else if let Some(v) = args.get(i) {
                    i += 1;
                    v.clone()
                } else {
                    return Err(usage_error(
                        ctx,
                        format_args!("option requires an argument -- '{c}'"),
                    ));
                };
                apply(ctx, &mut opts, Opt::Short(c, Some(value)))?;
                break;
            }
            apply(ctx, &mut opts, Opt::Short(c, None))?;
        }
    }
    let Some(op) = opts.op else {
        return Err(usage_error(
            ctx,
            "You must specify one of the '-Acdtrux', '--delete' or '--test-label' options",
        ));
    };
    if op == Op::Create {
        check_create(ctx, &mut opts)?;
    }
    Ok(opts)
}

/// One `--NAME[=VALUE]` word (`long` is it without the dashes), an
/// unambiguous abbreviation allowed; a required value not given with `=` is
/// the next word (`*i` moves past it).
fn parse_long(
    ctx: &mut CommandCtx<'_>,
    opts: &mut Options,
    args: &[String],
    i: &mut usize,
    long: &str,
) -> Result<(), i32> {
    let (name, value) = match long.split_once('=') {
        Some((n, v)) => (n, Some(v.to_string())),
        None => (long, None),
    };
    let exact = LONG.iter().find(|(n, _)| *n == name);
    let candidates: Vec<_> = LONG.iter().filter(|(n, _)| n.starts_with(name)).collect();
    let &(full, takes_arg) = match (exact, candidates.as_slice()) {
        (Some(e), _) => e,
        (None, [one]) => one,
        (None, []) => {
            return Err(usage_error(
                ctx,
                format_args!("unrecognized option '--{long}'"),
            ));
        }
        (None, _) => {
            return Err(usage_error(
                ctx,
                format_args!("option '--{long}' is ambiguous"),
            ));
        }
    };
    let value = match (takes_arg, value) {
        (true, Some(v)) => Some(v),
        (true, None) => match args.get(*i) {
            Some(v) => {
                *i += 1;
                Some(v.clone())
            }
            None => {
                return Err(usage_error(
                    ctx,
                    format_args!("option '--{full}' requires an argument"),
                ));
            }
        },
        (false, Some(_)) => {
            return Err(usage_error(
                ctx,
                format_args!("option '--{full}' doesn't allow an argument"),
            ));
        }
        (false, None) => None,
    };
    apply(ctx, opts, Opt::Long(full, value))
}

/// GNU's checks of `-c`: operands given, and no `--exclude` after them
/// (which would apply to nothing).
fn check_create(ctx: &mut CommandCtx<'_>, opts: &mut Options) -> Result<(), i32> {
    if opts.operands.is_empty() {
        return Err(usage_error(
            ctx,
            "Cowardly refusing to create an empty archive",
        ));
    }
    if !opts.late_excludes.is_empty() {
        let _ = writeln!(
            ctx.stderr,
            "tar: The following options were used after any non-optional arguments in archive create or update mode.  These options are positional and affect only arguments that follow them.  Please, rearrange them properly."
        );
        for p in std::mem::take(&mut opts.late_excludes) {
            let _ = writeln!(
                ctx.stderr,
                "tar: --exclude \u{2018}{p}\u{2019} has no effect"
            );
        }
        let _ = writeln!(
            ctx.stderr,
            "tar: Exiting with failure status due to previous errors"
        );
        return Err(2);
    }
    Ok(())
}

fn set_op(ctx: &mut CommandCtx<'_>, opts: &mut Options, op: Op) -> Result<(), i32> {
    if opts.op.is_some_and(|o| o != op) {
        return Err(usage_error(
            ctx,
            "You may not specify more than one '-Acdtrux', '--delete' or  '--test-label' option",
        ));
    }
    opts.op = Some(op);
    Ok(())
}

fn unsupported(ctx: &mut CommandCtx<'_>, what: &str) -> Result<(), i32> {
    let _ = writeln!(ctx.stderr, "tar: {what} is not supported in this sandbox");
    Err(2)
}

/// Reads `--exclude-from` patterns, one per line.
fn exclude_from(ctx: &mut CommandCtx<'_>, opts: &mut Options, file: &str) -> Result<(), i32> {
    let path = Fs::resolve(ctx.cwd, file);
    match ctx.fs.read_shared(&path) {
        Ok(data) => {
            for line in String::from_utf8_lossy(&data).lines() {
                if !line.is_empty() {
                    opts.excludes.add(line);
                }
            }
            Ok(())
        }
        Err(e) => {
            let _ = writeln!(ctx.stderr, "tar: {file}: Cannot open: {e}");
            let _ = writeln!(ctx.stderr, "tar: Error is not recoverable: exiting now");
            Err(2)
        }
    }
}

/// Reads `--files-from` operands, one per line (each under the current `-C`).
fn files_from(ctx: &mut CommandCtx<'_>, opts: &mut Options, file: &str) -> Result<(), i32> {
    let path = Fs::resolve(ctx.cwd, file);
    match ctx.fs.read_shared(&path) {
        Ok(data) => {
            for line in String::from_utf8_lossy(&data)
                .lines()
                .filter(|l| !l.is_empty())
            {
                opts.operands.push((opts.dir.clone(), line.to_string()));
            }
            Ok(())
        }
        Err(e) => {
            let _ = writeln!(ctx.stderr, "tar: {file}: Cannot open: {e}");
            let _ = writeln!(ctx.stderr, "tar: Error is not recoverable: exiting now");
            Err(2)
        }
    }
}

/// The long name of short option `c`; `None` for one tar does not know or
/// the sandbox does not support.
fn short_name(c: char) -> Option<&'static str> {
    Some(match c {
        'c' => "create",
        'x' => "extract",
        't' => "list",
        'f' => "file",
        'C' => "directory",
        'z' => "gzip",
        'v' => "verbose",
        'O' => "to-stdout",
        'P' => "absolute-names",
        'k' => "keep-old-files",
        'p' => "preserve-permissions",
        'm' => "touch",
        'a' => "auto-compress",
        'X' => "exclude-from",
        'T' => "files-from",
        'h' => "dereference",
        'j' => "bzip2",
        'J' => "xz",
        'Z' => "compress",
        'o' => "no-same-owner",
        'U' => "unlink-first",
        'i' => "ignore-zeros",
        'b' => "blocking-factor",
        'H' => "format",
        _ => return None,
    })
}

fn apply(ctx: &mut CommandCtx<'_>, opts: &mut Options, opt: Opt) -> Result<(), i32> {
    let (name, value): (&str, Option<String>) = match opt {
        Opt::Short(c, v) => match short_name(c) {
            Some(name) => (name, v),
            None if "ArudgKLNV".contains(c) => return unsupported(ctx, &format!("option -{c}")),
            None => {
                return Err(usage_error(ctx, format_args!("invalid option -- '{c}'")));
            }
        },
        Opt::Long(n, v) => (n, v),
    };
    let value_or_empty = || value.clone().unwrap_or_default();
    match name {
        "create" => set_op(ctx, opts, Op::Create)?,
        "extract" | "get" => set_op(ctx, opts, Op::Extract)?,
        "list" => set_op(ctx, opts, Op::List)?,
        "file" => {
            let f = value_or_empty();
            opts.file = Some(if f == "-" {
                f.clone()
            } else {
                Fs::resolve(ctx.cwd, &f)
            });
            opts.file_arg = Some(f);
        }
        "directory" => opts.dir = Fs::resolve(&opts.dir, &value_or_empty()),
        "gzip" | "gunzip" | "ungzip" => opts.gzip = true,
        "auto-compress" => opts.auto_compress = true,
        "verbose" => opts.verbose = opts.verbose.saturating_add(1),
        "to-stdout" => opts.to_stdout = true,
        "absolute-names" => opts.absolute_names = true,
        "keep-old-files" => opts.keep_old = true,
        "skip-old-files" => opts.skip_old = true,
        "overwrite" | "unlink-first" => {
            opts.keep_old = false;
            opts.skip_old = false;
        }
        "preserve-permissions" | "same-permissions" => opts.preserve_perms = true,
        "no-same-permissions" => opts.preserve_perms = false,
        "touch" => opts.touch = true,
        "remove-files" => opts.remove_files = true,
        "exclude" => {
            let p = value_or_empty();
            if !opts.operands.is_empty() {
                opts.late_excludes.push(p.clone());
            }
            opts.excludes.add(&p);
        }
        "exclude-from" => exclude_from(ctx, opts, &value_or_empty())?,
        "strip-components" => match value_or_empty().parse::<usize>() {
            Ok(n) => opts.strip = n,
            Err(_) => {
                let v = value_or_empty();
                return Err(usage_error(
                    ctx,
                    format_args!("Invalid number of elements: '{v}'"),
                ));
            }
        },
        "files-from" => files_from(ctx, opts, &value_or_empty())?,
        "bzip2" | "xz" | "zstd" | "lzma" | "compress" => {
            return unsupported(ctx, &format!("{name} compression"));
        }
        "help" => {
            let _ = writeln!(
                ctx.stdout,
                "Usage: tar [OPTION...] [FILE]...\n\
                 sandkeep tar: -c create, -x extract, -t list; -f ARCHIVE, -C DIR, -z gzip,\n\
                 -v verbose, --exclude=PATTERN, --strip-components=N, -O to stdout,\n\
                 -k keep old files, -p preserve permissions, -P absolute names."
            );
            return Err(0);
        }
        "version" => {
            let _ = writeln!(ctx.stdout, "tar (GNU tar) 1.34\n(sandkeep built-in)");
            return Err(0);
        }
        // Accepted and without effect here: ownership is always sandbox's,
        // members are always sorted, there is one filesystem.
        _ => {}
    }
    Ok(())
}
