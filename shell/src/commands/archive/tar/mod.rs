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
use crate::commands::options::{
    self, Item, OptSpec, ParseMode, expand_old_style, flag, long_flag, with_arg,
};
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
    /// `--overwrite`: an existing regular file is written in place (so
    /// through its hard links), not unlinked first.
    overwrite: bool,
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

/// An error argp itself reports: EX_USAGE.
fn argp_error(ctx: &mut CommandCtx<'_>, msg: impl std::fmt::Display) -> i32 {
    usage_error(ctx, msg);
    64
}

fn usage_error(ctx: &mut CommandCtx<'_>, msg: impl std::fmt::Display) -> i32 {
    let _ = writeln!(ctx.stderr, "tar: {msg}");
    let _ = writeln!(
        ctx.stderr,
        "Try 'tar --help' or 'tar --usage' for more information."
    );
    2
}

/// tar's options: each long option under its name as id (aliases under
/// the name they stand for), short letters with them; the letters of GNU
/// options the sandbox lacks have ids `-A`... and are refused by [`apply`].
const SPEC: &[OptSpec] = &[
    flag('P', Some("absolute-names"), "absolute-names"),
    long_flag("anchored", "anchored"),
    flag('a', Some("auto-compress"), "auto-compress"),
    with_arg(Some('b'), Some("blocking-factor"), "blocking-factor"),
    flag('j', Some("bzip2"), "bzip2"),
    flag('c', Some("create"), "create"),
    long_flag("delay-directory-restore", "delay-directory-restore"),
    flag('h', Some("dereference"), "dereference"),
    with_arg(Some('C'), Some("directory"), "directory"),
    with_arg(None, Some("exclude"), "exclude"),
    with_arg(Some('X'), Some("exclude-from"), "exclude-from"),
    flag('x', Some("extract"), "extract"),
    with_arg(Some('f'), Some("file"), "file"),
    with_arg(Some('T'), Some("files-from"), "files-from"),
    with_arg(Some('H'), Some("format"), "format"),
    long_flag("get", "extract"),
    with_arg(None, Some("group"), "group"),
    long_flag("gunzip", "gzip"),
    flag('z', Some("gzip"), "gzip"),
    long_flag("help", "help"),
    long_flag("ignore-failed-read", "ignore-failed-read"),
    flag('i', Some("ignore-zeros"), "ignore-zeros"),
    long_flag("keep-directory-symlink", "keep-directory-symlink"),
    flag('k', Some("keep-old-files"), "keep-old-files"),
    flag('t', Some("list"), "list"),
    long_flag("lzma", "lzma"),
    with_arg(None, Some("mode"), "mode"),
    with_arg(None, Some("mtime"), "mtime"),
    long_flag("no-anchored", "no-anchored"),
    long_flag("no-overwrite-dir", "no-overwrite-dir"),
    long_flag("no-recursion", "no-recursion"),
    flag('o', Some("no-same-owner"), "no-same-owner"),
    long_flag("no-same-permissions", "no-same-permissions"),
    long_flag("no-wildcards", "no-wildcards"),
    long_flag("numeric-owner", "numeric-owner"),
    long_flag("one-file-system", "one-file-system"),
    long_flag("overwrite", "overwrite"),
    long_flag("overwrite-dir", "overwrite-dir"),
    with_arg(None, Some("owner"), "owner"),
    flag('p', Some("preserve-permissions"), "preserve-permissions"),
    with_arg(None, Some("record-size"), "record-size"),
    long_flag("recursion", "recursion"),
    long_flag("remove-files", "remove-files"),
    long_flag("same-owner", "same-owner"),
    long_flag("same-permissions", "preserve-permissions"),
    long_flag("skip-old-files", "skip-old-files"),
    with_arg(None, Some("sort"), "sort"),
    with_arg(None, Some("strip-components"), "strip-components"),
    flag('O', Some("to-stdout"), "to-stdout"),
    long_flag("totals", "totals"),
    flag('m', Some("touch"), "touch"),
    long_flag("ungzip", "gzip"),
    flag('U', Some("unlink-first"), "unlink-first"),
    flag('v', Some("verbose"), "verbose"),
    long_flag("version", "version"),
    with_arg(None, Some("warning"), "warning"),
    long_flag("wildcards", "wildcards"),
    long_flag("wildcards-match-slash", "wildcards-match-slash"),
    flag('J', Some("xz"), "xz"),
    long_flag("zstd", "zstd"),
    flag('Z', None, "compress"),
    flag('A', None, "-A"),
    flag('r', None, "-r"),
    flag('u', None, "-u"),
    flag('d', None, "-d"),
    with_arg(Some('g'), None, "-g"),
    with_arg(Some('K'), None, "-K"),
    with_arg(Some('L'), None, "-L"),
    with_arg(Some('N'), None, "-N"),
    with_arg(Some('V'), None, "-V"),
];

fn parse(ctx: &mut CommandCtx<'_>) -> Result<Options, i32> {
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
        overwrite: false,
        skip_old: false,
        preserve_perms: false,
        touch: false,
        remove_files: false,
        dir: ctx.cwd.to_string(),
        operands: Vec::new(),
        late_excludes: Vec::new(),
    };
    // `tar czf FILE ...`: the old-style first word, made usual first.
    // argp's own errors (unknown option, missing argument) exit with
    // EX_USAGE (64); tar's later checks of the combination with 2.
    // tar's own old-style check ("Old option 'f' requires an argument") is
    // not argp's.
    let argv = expand_old_style(ctx.args, SPEC).map_err(|e| {
        if e.starts_with("Old option") {
            usage_error(ctx, e)
        } else {
            argp_error(ctx, e)
        }
    })?;
    let parsed =
        options::parse(&argv, SPEC, ParseMode::default()).map_err(|e| argp_error(ctx, e))?;
    // In order: `-C DIR` applies to the operands after it.
    for item in &parsed.order {
        match *item {
            Item::Opt(k) => {
                let (id, value) = &parsed.opts[k];
                apply(ctx, &mut opts, id, value.clone())?;
            }
            Item::Operand(k) => {
                let dir = opts.dir.clone();
                opts.operands.push((dir, parsed.operands[k].clone()));
            }
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
/// Takes one option (its id in [`SPEC`]) into account, in command-line order.
fn apply(
    ctx: &mut CommandCtx<'_>,
    opts: &mut Options,
    name: &str,
    value: Option<String>,
) -> Result<(), i32> {
    if name.starts_with('-') {
        return unsupported(ctx, &format!("option {name}"));
    }
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
            opts.overwrite = name == "overwrite";
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
