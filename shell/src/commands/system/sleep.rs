//! `sleep` and `yes`: the two commands that run until time or a reader ends
//! them. Both give way to the run's deadline.

use crate::commands::files::common::GnuError;
use std::time::{Duration, Instant};

use crate::commands::CommandCtx;
use crate::commands::files::common::{
    OptSpec, long_flag, parse_or_usage, quote_locale, usage_error,
};

/// What `sleep --help` prints.
pub(crate) const SLEEP_USAGE: &str = "\
Usage: sleep NUMBER[SUFFIX]...
  or:  sleep OPTION
Pause for the sum of the NUMBERs, in seconds unless a SUFFIX says 'm'
(minutes), 'h' (hours) or 'd' (days). A NUMBER may have a fraction.

      --help        display this help and exit
";

/// What `yes --help` prints.
pub(crate) const YES_USAGE: &str = "\
Usage: yes [STRING]...
  or:  yes OPTION
Repeatedly output a line with all specified STRING(s), or 'y'.

      --help        display this help and exit
";

/// `sleep NUMBER[smhd]...`: sleeps the sum, cut short by the run's deadline.
pub fn sleep(ctx: &mut CommandCtx<'_>) -> i32 {
    // GNU sleep has no options but --help and --version.
    let Some(parsed) = parse_or_usage(ctx, &[], false) else {
        return 1;
    };
    let ops = parsed.operands;
    // GNU sleep complains only with no argument at all: `sleep --` sleeps 0.
    if ctx.args.len() == 1 {
        usage_error(ctx, "missing operand");
        return 1;
    }
    let mut total = 0.0;
    let mut bad = false;
    for a in &ops {
        match crate::time::parse_interval(a) {
            Some(v) => total += v,
            None => {
                ctx.gnu_error(format_args!("invalid time interval {}", quote_locale(a)));
                bad = true;
            }
        }
    }
    if bad {
        let _ = writeln!(ctx.stderr, "Try 'sleep --help' for more information.");
        return 1;
    }
    let want = if total.is_finite() {
        Duration::from_secs_f64(total.min(1e9))
    } else {
        Duration::from_secs(u64::MAX / 4)
    };
    let end = Instant::now() + want;
    loop {
        if ctx.control.check().is_err() {
            return 1;
        }
        let now = Instant::now();
        if now >= end {
            return 0;
        }
        let mut slice = (end - now).min(Duration::from_millis(20));
        if let Some(rem) = ctx.control.remaining() {
            slice = slice.min(rem);
        }
        std::thread::sleep(slice);
    }
}

/// `yes [STRING]...`: repeats its arguments (or `y`) until the write fails.
pub fn yes(ctx: &mut CommandCtx<'_>) -> i32 {
    // GNU yes knows only --help and --version (abbreviated too); any other
    // option, also after an operand, is an error (`yes -- -x` prints -x).
    const SPEC: &[OptSpec] = &[long_flag("help", "help"), long_flag("version", "version")];
    let Some(p) = parse_or_usage(ctx, SPEC, false) else {
        return 1;
    };
    if p.has("help") {
        // An abbreviation (`--he`); the registry answered `--help` itself.
        let _ = ctx.stdout.write_all(YES_USAGE.as_bytes());
        return 0;
    }
    if p.has("version") {
        let _ = ctx.stdout.write_all(b"yes (sandkeep)\n");
        return 0;
    }
    let line = if !p.operands.is_empty() {
        p.operands.join(" ")
    } else {
        "y".to_string()
    };
    let line = format!("{line}\n");
    let mut chunk = Vec::with_capacity(16 * 1024);
    while chunk.len() < 8 * 1024 {
        chunk.extend_from_slice(line.as_bytes());
    }
    loop {
        if ctx.control.check().is_err() {
            return 1;
        }
        if let Err(e) = ctx.stdout.write_all(&chunk) {
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                ctx.gnu_error(format_args!("standard output: {}", crate::fs::strerror(&e)));
            }
            return 1;
        }
    }
}
