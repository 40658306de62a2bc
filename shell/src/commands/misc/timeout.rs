//! `timeout [-s SIG] [-k DUR] DURATION CMD...`: runs CMD in the sandbox and
//! stops it when DURATION (seconds, or with an `s m h d` suffix) has passed,
//! returning 124 (or `128+SIG` with `--preserve-status`). The stop is the
//! nested deadline of [`crate::commands::ExecMode::Deadline`]; signals
//! do not exist here, so `-s` and `-k` are checked and otherwise only choose
//! the `--preserve-status` number.

use std::time::{Duration, Instant};

use crate::commands::text::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::commands::{CommandCtx, ExecMode};

pub(crate) const USAGE: &str = "\
Usage: timeout [OPTION] DURATION COMMAND [ARG]...
Start COMMAND, and kill it if still running after DURATION.

      --preserve-status  exit with the same status as COMMAND, even when the
                         command times out
      --foreground       (accepted; there are no process groups here)
  -k, --kill-after=DURATION  (accepted)
  -s, --signal=SIGNAL    specify the signal to be sent on timeout
  -v, --verbose          diagnose to stderr any signal sent upon timeout
      --help             display this help and exit

DURATION is a floating point number with an optional suffix: 's' for seconds
(the default), 'm' for minutes, 'h' for hours or 'd' for days.  A duration of
0 disables the associated timeout.  Exit status is 124 if COMMAND times out,
125 if timeout itself fails, 127 if COMMAND is not found.
";

const SPEC: &[OptSpec] = &[
    opt("p", None, Some("preserve-status"), Arg::None),
    opt("fg", None, Some("foreground"), Arg::None),
    opt("k", Some('k'), Some("kill-after"), Arg::Required),
    opt("s", Some('s'), Some("signal"), Arg::Required),
    opt("v", Some('v'), Some("verbose"), Arg::None),
];

const SIGNALS: &[(&str, i32)] = &[
    ("HUP", 1),
    ("INT", 2),
    ("QUIT", 3),
    ("KILL", 9),
    ("USR1", 10),
    ("USR2", 12),
    ("ALRM", 14),
    ("TERM", 15),
];

fn signal_number(s: &str) -> Option<i32> {
    if let Ok(n) = s.parse::<i32>() {
        return (0..=64).contains(&n).then_some(n);
    }
    let name = s.strip_prefix("SIG").unwrap_or(s).to_ascii_uppercase();
    SIGNALS.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
}

/// `timeout`
pub fn timeout(ctx: &mut CommandCtx<'_>) -> i32 {
    let mode = ParseMode {
        stop_at_operand: true,
        ..Default::default()
    };
    let p = match common::start(ctx, SPEC, mode, 125) {
        Ok(p) => p,
        Err(s) => return s,
    };
    let sig = match p.last("s") {
        Some(s) => match signal_number(s) {
            Some(n) => n,
            None => {
                ctx.error(format!("{}: invalid signal", common::quote_locale(s)));
                common::try_help(ctx);
                return 125;
            }
        },
        None => 15,
    };
    if let Some(k) = p.last("k")
        && crate::time::parse_interval(k).is_none()
    {
        ctx.error(format!("invalid time interval {}", common::quote_locale(k)));
        common::try_help(ctx);
        return 125;
    }
    if p.operands.len() < 2 {
        common::try_help(ctx);
        return 125;
    }
    let dur = &p.operands[0];
    let Some(secs) = crate::time::parse_interval(dur) else {
        ctx.error(format!(
            "invalid time interval {}",
            common::quote_locale(dur)
        ));
        common::try_help(ctx);
        return 125;
    };
    let argv = &p.operands[1..];
    // A duration of 0 disables the timeout.
    let deadline = (secs > 0.0).then(|| Instant::now() + Duration::from_secs_f64(secs.min(1e9)));
    let mode = deadline.map_or(ExecMode::Inherit, ExecMode::Deadline);
    let s = super::wrappers::run(ctx, argv, mode, super::wrappers::failed_to_run);
    if let Some(deadline) = deadline
        && s == 124
        && Instant::now() >= deadline
    {
        if p.has("v") {
            let name = SIGNALS
                .iter()
                .find(|(_, n)| *n == sig)
                .map_or_else(|| sig.to_string(), |(n, _)| n.to_string());
            ctx.error(format!("sending signal {name} to command '{}'", argv[0]));
        }
        // KILL is what the command dies of even without
        // --preserve-status, and GNU then reports it (137).
        return if p.has("p") || sig == 9 {
            128 + sig
        } else {
            124
        };
    }
    s
}
