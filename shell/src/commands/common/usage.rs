//! How a command reports a bad invocation in GNU's words: the parse that
//! prints `NAME: invalid option -- 'z'` and the `Try 'NAME --help'` line,
//! `error()`'s flush-then-message, and `argmatch`'s list of valid words.

use super::getopt::{OptSpec, ParseMode, Parsed, parse};
use super::quoting::quote_locale;
use crate::commands::CommandCtx;

/// Parses the command line, printing GNU's usage error (`NAME: invalid option
/// -- 'z'` + `Try 'NAME --help'...`) on failure.
pub fn parse_or_usage(
    ctx: &mut CommandCtx<'_>,
    spec: &[OptSpec],
    stop_at_operand: bool,
) -> Option<Parsed> {
    let mode = ParseMode {
        stop_at_operand,
        ..ParseMode::default()
    };
    match parse(ctx.args, spec, mode) {
        Ok(p) => Some(p),
        Err(e) => {
            usage_error(ctx, &e);
            None
        }
    }
}

/// GNU's `error()`: flushes what the command already wrote to stdout, so
/// that with `2>&1` the two streams interleave as they do with coreutils,
/// then prints `NAME: message`.
pub trait GnuError {
    /// Flushes stdout, then writes `NAME: message` to stderr.
    fn gnu_error(&mut self, message: impl std::fmt::Display);
}

impl GnuError for CommandCtx<'_> {
    fn gnu_error(&mut self, message: impl std::fmt::Display) {
        let _ = self.stdout.flush();
        self.error(message);
    }
}

/// GNU's `usage (EXIT_FAILURE)`: the line that follows a bad invocation's
/// message, `Try 'NAME --help' for more information.`
pub fn try_help(ctx: &mut CommandCtx<'_>) {
    let _ = ctx.stdout.flush();
    let _ = writeln!(
        ctx.stderr,
        "Try '{} --help' for more information.",
        ctx.args[0]
    );
}

/// A bad invocation as coreutils and util-linux report it: `NAME: message`,
/// then [`try_help`]'s line.
pub fn usage_error(ctx: &mut CommandCtx<'_>, message: &str) {
    ctx.gnu_error(message);
    try_help(ctx);
}

/// GNU's `argmatch` failure, for an option that takes one of a set of
/// words: the value, the valid words (synonyms share a line), the Try
/// line. Returns its status, 1.
pub fn invalid_choice(
    ctx: &mut CommandCtx<'_>,
    option: &str,
    value: &str,
    valid: &[&[&str]],
) -> i32 {
    let _ = ctx.stdout.flush();
    let name = &ctx.args[0];
    let mut text = format!(
        "{name}: invalid argument {} for {}\nValid arguments are:\n",
        quote_locale(value),
        quote_locale(option)
    );
    for synonyms in valid {
        let words: Vec<String> = synonyms.iter().map(|w| quote_locale(w)).collect();
        text.push_str(&format!("  - {}\n", words.join(", ")));
    }
    text.push_str(&format!("Try '{name} --help' for more information.\n"));
    let _ = ctx.stderr.write_all(text.as_bytes());
    1
}
