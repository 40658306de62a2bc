//! Bash builtins that also exist as programs (`echo`, `printf`, `test`, `[`,
//! `true`, `false`), for `xargs`, `env`, `find -exec`. OWNER: builtins helper.
//!
//! Each is a thin wrapper over the logic the builtins use too, in
//! [`crate::builtin_core`], so `env echo -e` and `echo -e` agree.

use super::{Command, CommandCtx};
use crate::builtin_core::echo::echo_bytes;
use crate::builtin_core::printf::{TimeCtx, format};
use crate::builtin_core::test::{FsEnv, evaluate};

/// The commands of this family.
pub const COMMANDS: &[Command] = &[
    Command::alone("[", BRACKET_USAGE, 0, bracket),
    Command::alone("echo", ECHO_USAGE, 0, echo),
    Command::alone("false", FALSE_USAGE, 1, false_),
    Command::alone("printf", PRINTF_USAGE, 0, printf),
    // GNU `test` has no help: `test --help` tests a non-empty string.
    Command::own("test", test),
    Command::alone("true", TRUE_USAGE, 0, true_),
];

// GNU's programs answer `--help` only as their sole argument; their texts.

const BRACKET_USAGE: &str = "\
Usage: test EXPRESSION
  or:  test
  or:  [ EXPRESSION ]
  or:  [ ]
  or:  [ OPTION
Exit with the status EXPRESSION gives: 0 when true, 1 when false, 2 on
an error. The operators are bash's `test`: file tests (-e -f -d -r -w -x
-s -L ...), string tests (-n -z = != < >), integer comparisons (-eq -ne
-lt -le -gt -ge), with ! ( ) -a -o.

      --help        display this help and exit
";

const ECHO_USAGE: &str = "\
Usage: echo [SHORT-OPTION]... [STRING]...
  or:  echo LONG-OPTION
Write the STRINGs, separated by spaces, and a newline to standard output.

  -n             do not write the trailing newline
  -e             interpret backslash escapes (\\n, \\t, \\0NNN, \\xHH, \\c ...)
  -E             do not interpret backslash escapes (the default)
      --help     display this help and exit
";

const PRINTF_USAGE: &str = "\
Usage: printf FORMAT [ARGUMENT]...
  or:  printf OPTION
Write the ARGUMENTs formatted by FORMAT, as C's printf does, with bash's
additions: %b expands backslash escapes in its argument, %q quotes it for
the shell, %(FMT)T formats a time. FORMAT is reused until the ARGUMENTs are
used up.

      --help     display this help and exit
";

const TRUE_USAGE: &str = "\
Usage: true [ignored command line arguments]
  or:  true OPTION
Exit with a status code indicating success.

      --help     display this help and exit
";

const FALSE_USAGE: &str = "\
Usage: false [ignored command line arguments]
  or:  false OPTION
Exit with a status code indicating failure.

      --help     display this help and exit
";

fn echo(ctx: &mut CommandCtx<'_>) -> i32 {
    let data = echo_bytes(&ctx.args[1..], false);
    if ctx.stdout.write_all(&data).is_err() {
        return 1;
    }
    0
}

fn printf(ctx: &mut CommandCtx<'_>) -> i32 {
    let mut args = &ctx.args[1..];
    if args.first().map(|s| s.as_str()) == Some("--") {
        args = &args[1..];
    }
    let Some(fmt) = args.first() else {
        ctx.error("missing operand");
        return 1;
    };
    let now = ctx.control.clock.now().secs;
    let time = TimeCtx {
        now,
        start: now,
        zone: crate::time::Zone::from_env(ctx.env),
    };
    let f = format(fmt, &args[1..], time);
    for e in &f.errors {
        ctx.error(e);
    }
    if ctx.stdout.write_all(&f.output).is_err() {
        return 1;
    }
    f.status
}

fn run_test(ctx: &mut CommandCtx<'_>, args: &[String]) -> i32 {
    let env = FsEnv {
        fs: ctx.fs,
        cwd: ctx.cwd,
    };
    match evaluate(args, &env) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(m) => {
            ctx.error(m);
            2
        }
    }
}

fn test(ctx: &mut CommandCtx<'_>) -> i32 {
    let args = ctx.args[1..].to_vec();
    run_test(ctx, &args)
}

fn bracket(ctx: &mut CommandCtx<'_>) -> i32 {
    if ctx.args.len() < 2 || ctx.args.last().map(|s| s.as_str()) != Some("]") {
        ctx.error("missing `]'");
        return 2;
    }
    let args = ctx.args[1..ctx.args.len() - 1].to_vec();
    run_test(ctx, &args)
}

fn true_(_: &mut CommandCtx<'_>) -> i32 {
    0
}

fn false_(_: &mut CommandCtx<'_>) -> i32 {
    1
}
