//! `env` and `printenv`.

use crate::commands::files::common::GnuError;
use crate::commands::files::common::{parse_or_usage, quote_locale};
use crate::commands::options::{OptSpec, flag, unimplemented, with_arg};
use crate::commands::{CommandCtx, ExecMode, ExecRequest};

/// What `env --help` prints.
pub(crate) const ENV_USAGE: &str = "\
Usage: env [OPTION]... [-] [NAME=VALUE]... [COMMAND [ARG]...]
Run COMMAND with each NAME set to VALUE in its environment; without
COMMAND, print the environment that results.

  -i, --ignore-environment  start from an empty environment
  -0, --null           end each printed variable with NUL, not newline
  -u, --unset=NAME     take NAME out of the environment
  -C, --chdir=DIR      run COMMAND in the directory DIR
      --help        display this help and exit

A lone - means -i. The options end at the first word that is not one.
";

/// What `printenv --help` prints.
pub(crate) const PRINTENV_USAGE: &str = "\
Usage: printenv [OPTION]... [VARIABLE]...
Print the value of each environment VARIABLE, or NAME=VALUE for every
variable when none is named; the status is 1 when a VARIABLE is not set.

  -0, --null     end each output line with NUL, not newline
      --help        display this help and exit
";

/// What the options say.
struct EnvOptions {
    /// `-i`/`-`: start from an empty environment.
    clear: bool,
    /// `-u NAME`: variables to remove.
    unset: Vec<String>,
    /// `-0`: end printed variables with NUL.
    zero: bool,
    /// `-C DIR`: run the command there.
    chdir: Option<String>,
    /// The index in `args` of the first word after the options.
    next: usize,
}

/// GNU env's options, in the order of its table (for abbreviations); the
/// signal options, `--debug` and `-S` are known but not implemented.
const ENV_SPEC: &[OptSpec] = &[
    flag('i', Some("ignore-environment"), "i"),
    flag('0', Some("null"), "0"),
    with_arg(Some('u'), Some("unset"), "u"),
    with_arg(Some('C'), Some("chdir"), "C"),
    unimplemented("default-signal"),
    unimplemented("ignore-signal"),
    unimplemented("block-signal"),
    unimplemented("list-signal-handling"),
    unimplemented("debug"),
    unimplemented("split-string"),
];

/// The options of `args` (argv); they end at the first word that is not
/// one, or after `--`; a `-` right after them is `-i`, as in GNU env.
/// `None` after the usage error.
fn parse_options(ctx: &mut CommandCtx<'_>, args: &[String]) -> Option<EnvOptions> {
    let parsed = parse_or_usage(ctx, ENV_SPEC, true)?;
    let mut next = args.len() - parsed.operands.len();
    let lone_dash = parsed.operands.first().is_some_and(|a| a == "-");
    if lone_dash {
        next += 1;
    }
    Some(EnvOptions {
        clear: parsed.has("i") || lone_dash,
        unset: parsed.values("u").into_iter().map(String::from).collect(),
        zero: parsed.has("0"),
        chdir: parsed.last("C").map(String::from),
        next,
    })
}

/// `env [-i] [-u NAME]... [-0] [NAME=VALUE]... [COMMAND [ARG]...]`
pub fn env(ctx: &mut CommandCtx<'_>) -> i32 {
    let args = ctx.args.to_vec();
    let Some(EnvOptions {
        clear,
        unset,
        zero,
        chdir,
        next: mut i,
    }) = parse_options(ctx, &args)
    else {
        return 125;
    };
    let mut env: Vec<(String, String)> = if clear { Vec::new() } else { ctx.env.to_vec() };
    env.retain(|(k, _)| !unset.contains(k));
    while i < args.len() {
        match args[i].split_once('=') {
            Some((k, v)) if !k.is_empty() => {
                env.retain(|(x, _)| x != k);
                env.push((k.to_string(), v.to_string()));
                i += 1;
            }
            _ => break,
        }
    }
    if i >= args.len() {
        if zero {
            for (k, v) in &env {
                let _ = write!(ctx.stdout, "{k}={v}\0");
            }
        } else {
            let mut out = String::new();
            for (k, v) in &env {
                out.push_str(&format!("{k}={v}\n"));
            }
            let _ = ctx.stdout.write_all(out.as_bytes());
        }
        return 0;
    }
    let cwd = match &chdir {
        Some(d) => {
            let p = ctx.path(d);
            if !ctx
                .fs
                .metadata(&p)
                .is_ok_and(|m| m.kind == crate::fs::FileKind::Dir)
            {
                ctx.gnu_error(format_args!(
                    "cannot change directory to {}: No such file or directory",
                    quote_locale(d)
                ));
                return 125;
            }
            p
        }
        None => ctx.cwd.to_string(),
    };
    let argv = args[i..].to_vec();
    let path_var = env
        .iter()
        .rev()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| "/bin:/usr/bin".to_string());
    if let Err(e) = super::which::resolve_program(ctx.fs, &path_var, &cwd, &argv[0]) {
        ctx.gnu_error(format_args!("{}: {e}", quote_locale(&argv[0])));
        return super::which::unrunnable_status(e);
    }
    // `env` is the complete environment: `-i` and `-u` hide variables.
    ctx.exec.exec(ExecRequest {
        argv: &argv,
        env: &env,
        cwd: &cwd,
        stdin: ctx.stdin,
        stdout: ctx.stdout,
        stderr: ctx.stderr,
        mode: ExecMode::Complete,
    })
}

/// `printenv [-0] [NAME]...`
pub fn printenv(ctx: &mut CommandCtx<'_>) -> i32 {
    let spec = [flag('0', Some("null"), "0")];
    let Some(parsed) = parse_or_usage(ctx, &spec, false) else {
        return 2;
    };
    let zero = parsed.has("0");
    let names = parsed.operands;
    let term = if zero { "\0" } else { "\n" };
    if names.is_empty() {
        let mut out = String::new();
        for (k, v) in ctx.env {
            out.push_str(&format!("{k}={v}{term}"));
        }
        let _ = ctx.stdout.write_all(out.as_bytes());
        return 0;
    }
    let mut status = 0;
    for n in &names {
        match ctx.getenv(n).map(String::from) {
            Some(v) if !n.contains('=') => {
                let _ = write!(ctx.stdout, "{v}{term}");
            }
            _ => status = 1,
        }
    }
    let _ = quote_locale;
    status
}
