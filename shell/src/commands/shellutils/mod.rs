//! Bash builtins that also exist as programs (`echo`, `printf`, `test`, `[`,
//! `true`, `false`), for `xargs`, `env`, `find -exec`. OWNER: builtins helper.
//!
//! Each is a thin wrapper over the logic the builtins use too, in
//! [`crate::builtin_core`], so `env echo -e` and `echo -e` agree.

use super::{CommandCtx, CommandFn};
use crate::builtin_core::echo::echo_bytes;
use crate::builtin_core::printf::{TimeCtx, format};
use crate::builtin_core::test::{FsEnv, evaluate};

/// The commands of this family.
pub const COMMANDS: &[(&str, CommandFn)] = &[
    ("[", bracket),
    ("echo", echo),
    ("false", false_),
    ("printf", printf),
    ("test", test),
    ("true", true_),
];

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
    let f = format(fmt, &args[1..], TimeCtx { now, start: now });
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
