//! `touch`: create files and set modification times (`-d`, `-t`, `-r`).

use super::common::GnuError;
use super::common::{quote, quote_locale, usage_error};
use crate::clock::Timestamp;
use crate::commands::CommandCtx;
use crate::commands::system::dateparse::parse_date;
use crate::time::{Zone, to_epoch};

declare_options! {
    /// `touch`'s options.
    pub(crate) enum TouchOpt {
        usage: "Usage: touch [OPTION]... FILE...",
        about: "Set the modification time of each FILE to now, or to the time an option
gives. A FILE that does not exist is created empty, unless -c is given.
",
        after: "",
        column: 25,
        rows: [
            AccessOnly: 'a' - none => "change only the access time",
            NoCreate: 'c' "no-create" none => "do not create missing files",
            Date: 'd' "date" required "STRING" => "use the time STRING describes (as for date -d)",
            Ignored: 'f' - none => "(ignored)",
            NoDereference: 'h' "no-dereference" none => "change a symbolic link, not the file it names",
            ModificationOnly: 'm' - none => "change only the modification time",
            Reference: 'r' "reference" required "FILE" => "use the modification time of FILE",
            Stamp: 't' - required "STAMP" => "use the time [[CC]YY]MMDDhhmm[.ss]",
            Time: - "time" required "WORD" => "access or atime: as -a; modify or mtime: as -m",
        ],
    }
}

/// Parses touch's `-t [[CC]YY]MMDDhhmm[.ss]`, a local time in `zone`.
pub fn parse_stamp(s: &str, now: i64, zone: &Zone) -> Option<i64> {
    let (main, secs) = match s.split_once('.') {
        Some((m, ss)) if ss.len() == 2 && ss.bytes().all(|b| b.is_ascii_digit()) => {
            (m, ss.parse::<u32>().ok()?)
        }
        Some(_) => return None,
        None => (s, 0),
    };
    if !main.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n = |a: usize, b: usize| main[a..b].parse::<u32>().ok();
    let (year, rest) = match main.len() {
        8 => (zone.local(now, 0).year, main),
        10 => {
            let yy = n(0, 2)? as i64;
            (if yy < 69 { 2000 + yy } else { 1900 + yy }, &main[2..])
        }
        12 => (n(0, 4)? as i64, &main[4..]),
        _ => return None,
    };
    let f = |a: usize| rest[a..a + 2].parse::<u32>().ok();
    let (mo, d, h, mi) = (f(0)?, f(2)?, f(4)?, f(6)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || secs > 60 {
        return None;
    }
    zone.mktime(to_epoch(year, mo, d, h, mi, secs), None).ok()
}

/// `touch [-acm] [-d DATE | -t STAMP | -r FILE] FILE...`
pub fn touch(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = TouchOpt::TABLE.parse_or_usage(ctx) else {
        return 1;
    };
    if p.operands.is_empty() {
        usage_error(ctx, "missing file operand");
        return 1;
    }
    let now = ctx.control.clock.now();
    let mut when: Timestamp = now;
    let zone = Zone::from_env(ctx.env);
    if let Some(r) = p.last(TouchOpt::Reference) {
        match ctx.fs.metadata(&ctx.path(r)) {
            Ok(m) => when = m.mtime,
            Err(e) => {
                ctx.gnu_error(format_args!(
                    "failed to get attributes of {}: {e}",
                    quote(r)
                ));
                return 1;
            }
        }
    }
    if let Some(d) = p.last(TouchOpt::Date) {
        match parse_date(d, when.secs, &zone) {
            Some((s, ns)) => when = Timestamp { secs: s, nanos: ns },
            None => {
                ctx.gnu_error(format_args!("invalid date format {}", quote_locale(d)));
                return 1;
            }
        }
    }
    if let Some(t) = p.last(TouchOpt::Stamp) {
        match parse_stamp(t, now.secs, &zone) {
            Some(s) => when = Timestamp { secs: s, nanos: 0 },
            None => {
                ctx.gnu_error(format_args!("invalid date format {}", quote_locale(t)));
                return 1;
            }
        }
    }
    // `-a`, `-m` (or `--time=WORD`) pick one time; neither sets both.
    let time_word = p.last(TouchOpt::Time);
    let mut set_atime = p.has(TouchOpt::AccessOnly)
        || time_word.is_some_and(|t| matches!(t, "access" | "atime" | "use"));
    let mut set_mtime = p.has(TouchOpt::ModificationOnly)
        || time_word.is_some_and(|t| matches!(t, "modify" | "mtime"));
    if !set_atime && !set_mtime {
        (set_atime, set_mtime) = (true, true);
    }
    // POSIX's -f: accepted for compatibility, as in GNU.
    let _ = p.has(TouchOpt::Ignored);
    let mut status = 0;
    for name in &p.operands {
        if name == "-" {
            continue;
        }
        let path = ctx.path(name);
        let exists = ctx.fs.symlink_metadata(&path).is_ok();
        if exists && let Err(e) = super::common::slash_check(ctx.fs, name, &path) {
            ctx.gnu_error(format_args!("setting times of {}: {e}", quote(name)));
            status = 1;
            continue;
        }
        if !exists {
            if p.has(TouchOpt::NoCreate) {
                continue;
            }
            if let Err(e) = ctx.fs.create(&path, false) {
                ctx.gnu_error(format_args!("cannot touch {}: {e}", quote(name)));
                status = 1;
                continue;
            }
        }
        if set_atime && !p.has(TouchOpt::NoDereference) {
            let _ = ctx.fs.set_atime(&path, when);
        }
        if !set_mtime {
            continue;
        }
        if let Err(e) = ctx.fs.set_mtime(&path, when)
            && !p.has(TouchOpt::NoDereference)
        {
            ctx.gnu_error(format_args!("setting times of {}: {e}", quote(name)));
            status = 1;
        }
    }
    status
}
