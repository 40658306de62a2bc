//! Commands that run another program unchanged: `nohup` (there is no
//! terminal to detach from), `nice` (no scheduler priorities: the
//! adjustment is checked, then ignored) and `stdbuf` (streams here are not
//! stdio buffers: the modes are checked, then ignored). Scripts use them as
//! prefixes, so they must run what follows exactly as GNU's would. [`run`]
//! is their shared start, and `timeout`'s: the lookup `execvp` does, and
//! each tool's words when it fails (status 127 or 126).

use crate::commands::files::common::{GnuError, parse_size};
use crate::commands::system::which::{resolve_in_path, unrunnable_status};
use crate::commands::text::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::commands::{CommandCtx, ExecMode, ExecRequest};
use crate::fs::FsError;

/// Runs `argv` (non-empty) as `mode` says, once [`resolve_in_path`] finds
/// it along `PATH`; otherwise writes `NAME: ` and `failed(program, why)`
/// and returns 127 (not found) or 126 (not executable).
pub fn run(
    ctx: &mut CommandCtx<'_>,
    argv: &[String],
    mode: ExecMode,
    failed: impl Fn(&str, FsError) -> String,
) -> i32 {
    if let Err(e) = resolve_in_path(ctx, &argv[0]) {
        ctx.gnu_error(failed(&argv[0], e));
        return unrunnable_status(e);
    }
    let cwd = ctx.cwd.to_string();
    ctx.exec.exec(ExecRequest {
        argv,
        env: &[],
        cwd: &cwd,
        stdin: ctx.stdin,
        stdout: ctx.stdout,
        stderr: ctx.stderr,
        mode,
    })
}

/// GNU's words when `stdbuf` or `timeout` cannot start its command.
pub fn failed_to_run(name: &str, e: FsError) -> String {
    format!("failed to run command {}: {e}", common::quote_locale(name))
}

/// Options end at the command's name.
const UNTIL_COMMAND: ParseMode = ParseMode {
    stop_at_operand: true,
    digit_option: false,
    negative_numbers: false,
    no_long: false,
    exact_long: false,
};

pub(crate) const NOHUP_USAGE: &str = "\
Usage: nohup COMMAND [ARG]...
Run COMMAND, ignoring hangup signals.

      --help     display this help and exit

In the sandbox there is no terminal: COMMAND's streams are left as they are
(no nohup.out). Exit status is 125 if nohup itself fails, 126 if COMMAND is
found but cannot be invoked, 127 if it cannot be found, else COMMAND's.
";

/// `nohup COMMAND [ARG]...`
pub fn nohup(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, &[], UNTIL_COMMAND, 125) {
        Ok(p) => p,
        Err(s) => return s,
    };
    if p.operands.is_empty() {
        common::usage_error(ctx, "missing operand");
        return 125;
    }
    run(ctx, &p.operands, ExecMode::Inherit, |name, e| {
        format!("failed to run command '{name}': {e}")
    })
}

pub(crate) const NICE_USAGE: &str = "\
Usage: nice [OPTION] [COMMAND [ARG]...]
Run COMMAND with an adjusted niceness, which affects process scheduling.
With no COMMAND, print the current niceness (always 0 here).

  -n, --adjustment=N   add integer N to the niceness (default 10); checked,
                       then ignored: the sandbox has no priorities
      --help           display this help and exit
";

const NICE_SPEC: &[OptSpec] = &[opt("n", Some('n'), Some("adjustment"), Arg::Required)];

/// `nice [-n N | -N] [COMMAND [ARG]...]`
pub fn nice(ctx: &mut CommandCtx<'_>) -> i32 {
    let mode = ParseMode {
        digit_option: true,
        ..UNTIL_COMMAND
    };
    let p = match common::start(ctx, NICE_SPEC, mode, 125) {
        Ok(p) => p,
        Err(s) => return s,
    };
    let adjustment = p.opts.iter().rev().find_map(|(id, v)| match *id {
        "n" | "NUM" => v.clone(),
        _ => None,
    });
    if let Some(a) = &adjustment {
        let digits = a.strip_prefix(['+', '-']).unwrap_or(a);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            ctx.gnu_error(format_args!(
                "invalid adjustment {}",
                common::quote_locale(a)
            ));
            return 125;
        }
    }
    if p.operands.is_empty() {
        if adjustment.is_some() {
            common::usage_error(ctx, "a command must be given with an adjustment");
            return 125;
        }
        let _ = writeln!(ctx.stdout, "0");
        return 0;
    }
    run(ctx, &p.operands, ExecMode::Inherit, |name, e| {
        format!("{}: {e}", common::quote_locale(name))
    })
}

pub(crate) const STDBUF_USAGE: &str = "\
Usage: stdbuf OPTION... COMMAND
Run COMMAND, with modified buffering operations for its standard streams.

  -i, --input=MODE   adjust standard input stream buffering
  -o, --output=MODE  adjust standard output stream buffering
  -e, --error=MODE   adjust standard error stream buffering
      --help         display this help and exit

MODE is L (line buffered; not for input), 0 (unbuffered) or a size such as
4K. The modes are checked, then ignored: the sandbox's streams carry each
write as it is made.
";

const STDBUF_SPEC: &[OptSpec] = &[
    opt("i", Some('i'), Some("input"), Arg::Required),
    opt("o", Some('o'), Some("output"), Arg::Required),
    opt("e", Some('e'), Some("error"), Arg::Required),
];

/// `stdbuf -i|-o|-e MODE... COMMAND [ARG]...`
pub fn stdbuf(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, STDBUF_SPEC, UNTIL_COMMAND, 125) {
        Ok(p) => p,
        Err(s) => return s,
    };
    for (id, v) in &p.opts {
        let v = v.as_deref().unwrap_or("");
        if *id == "i" && v == "L" {
            common::usage_error(ctx, "line buffering stdin is meaningless");
            return 125;
        }
        if v != "L" && parse_size(v).is_none() {
            ctx.gnu_error(format_args!("invalid mode {}", common::quote_locale(v)));
            return 125;
        }
    }
    if p.opts.is_empty() {
        common::usage_error(ctx, "you must specify a buffering mode option");
        return 125;
    }
    if p.operands.is_empty() {
        common::usage_error(ctx, "missing operand");
        return 125;
    }
    run(ctx, &p.operands, ExecMode::Inherit, failed_to_run)
}
