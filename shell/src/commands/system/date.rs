//! `date`: print (never set) the time, in the zone `TZ` names (UTC when
//! unset, or with `-u`).

use super::dateparse::parse_date;
use crate::commands::CommandCtx;
use crate::commands::files::common::GnuError;
use crate::commands::files::common::{
    Arg, OptSpec, Parsed, flag, parse_or_usage, quote, quote_locale, usage_error, with_arg,
};
use crate::commands::files::input;
use crate::time::{Zone, strftime};

/// What `date --help` prints.
pub(crate) const USAGE: &str = "\
Usage: date [OPTION]... [+FORMAT]
  or:  date [-u|--utc|--universal] [MMDDhhmm[[CC]YY][.ss]]
Print the current time, or the time an option names, in FORMAT. Times are
in the zone TZ names (UTC when unset), and the clock cannot be set.

  -d, --date=STRING          print the time STRING describes, not now
  -f, --file=DATEFILE        like -d, once for each line of DATEFILE
  -I[FMT], --iso-8601[=FMT]  print in ISO 8601 form; FMT is date (the
                               default), hours, minutes, seconds or ns
  -R, --rfc-email            print in RFC 5322 form
      --rfc-3339=FMT         print in RFC 3339 form; FMT is date, seconds
                               or ns
  -r, --reference=FILE       print the modification time of FILE
  -u, --utc, --universal     print or read Coordinated Universal Time (UTC)
      --help        display this help and exit

FORMAT is text with strftime conversions, among them:
  %Y year         %m month (01-12)    %d day (01-31)    %H hour (00-23)
  %M minute       %S second           %N nanoseconds    %s Epoch seconds
  %a, %A weekday name (short, full)   %b, %B month name (short, full)
  %j day of year  %u, %w day of week  %U, %W, %V week of the year
  %F as %Y-%m-%d  %T as %H:%M:%S      %z +0000          %Z time zone
  %n newline      %t tab              %% a %
After the %, a flag sets the padding: - none, _ spaces, 0 zeros; ^ gives
upper case.
";

const SPEC: &[OptSpec] = &[
    with_arg(Some('d'), Some("date"), "d"),
    with_arg(Some('r'), Some("reference"), "r"),
    with_arg(Some('f'), Some("file"), "f"),
    flag('u', Some("utc"), "u"),
    OptSpec {
        short: None,
        long: Some("universal"),
        arg: Arg::None,
        id: "u",
        value: "",
        help: "",
    },
    flag('R', Some("rfc-email"), "R"),
    OptSpec {
        short: Some('I'),
        long: Some("iso-8601"),
        arg: Arg::Optional,
        id: "I",
        value: "",
        help: "",
    },
    with_arg(None, Some("rfc-3339"), "rfc-3339"),
    with_arg(Some('s'), Some("set"), "s"),
];

fn iso_format(spec: Option<&str>) -> Option<&'static str> {
    Some(match spec.unwrap_or("date") {
        "date" | "" => "%Y-%m-%d",
        "hours" => "%Y-%m-%dT%H%:z",
        "minutes" => "%Y-%m-%dT%H:%M%:z",
        "seconds" => "%Y-%m-%dT%H:%M:%S%:z",
        "ns" => "%Y-%m-%dT%H:%M:%S,%N%:z",
        _ => return None,
    })
}

/// The output format: `+FORMAT`, `-I`, `--rfc-3339`, `-R` (at most one),
/// else the default. `None` after the error message.
fn output_format(ctx: &mut CommandCtx<'_>, p: &Parsed) -> Option<String> {
    let mut fmt: Option<String> = None;
    for op in &p.operands {
        if let Some(f) = op.strip_prefix('+') {
            if fmt.is_some() {
                ctx.gnu_error(format_args!("extra operand {}", quote_locale(op)));
                let _ = writeln!(ctx.stderr, "Try 'date --help' for more information.");
                return None;
            }
            fmt = Some(f.to_string());
        } else {
            ctx.gnu_error(format_args!("invalid date {}", quote_locale(op)));
            return None;
        }
    }
    let styles = p
        .opts
        .iter()
        .filter(|(k, _)| matches!(*k, "R" | "I" | "rfc-3339"))
        .count();
    if styles > 1 || (styles == 1 && fmt.is_some()) {
        usage_error(ctx, "multiple output formats specified");
        return None;
    }
    if let Some(v) = p
        .opts
        .iter()
        .rev()
        .find(|(k, _)| *k == "I")
        .map(|(_, v)| v.clone())
    {
        match iso_format(v.as_deref()) {
            Some(f) => fmt = Some(f.to_string()),
            None => {
                ctx.gnu_error(format_args!(
                    "invalid argument {} for '--iso-8601'",
                    quote_locale(v.as_deref().unwrap_or(""))
                ));
                return None;
            }
        }
    }
    if let Some(v) = p.last("rfc-3339") {
        fmt = Some(
            match v {
                "date" => "%Y-%m-%d",
                "seconds" => "%Y-%m-%d %H:%M:%S%:z",
                "ns" => "%Y-%m-%d %H:%M:%S.%N%:z",
                _ => {
                    ctx.gnu_error(format_args!(
                        "invalid argument {} for '--rfc-3339'",
                        quote_locale(v)
                    ));
                    return None;
                }
            }
            .to_string(),
        );
    }
    if p.has("R") {
        fmt = Some("%a, %d %b %Y %H:%M:%S %z".into());
    }
    Some(fmt.unwrap_or_else(|| "%a %b %e %H:%M:%S %Z %Y".into()))
}

/// `date [-u] [-d STRING | -r FILE] [-R | -I[SPEC] | --rfc-3339=SPEC] [+FORMAT]`
pub fn date(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = parse_or_usage(ctx, SPEC, false) else {
        return 1;
    };
    if p.has("s") {
        ctx.gnu_error("cannot set date: Operation not permitted");
        return 1;
    }
    let Some(fmt) = output_format(ctx, &p) else {
        return 1;
    };
    let now = ctx.control.clock.now();
    let zone = if p.has("u") {
        Zone::utc()
    } else {
        Zone::from_env(ctx.env)
    };
    let mut times = Vec::new();
    if let Some(r) = p.last("r") {
        match ctx.fs.metadata(&ctx.path(r)) {
            Ok(m) => times.push((m.mtime.secs, m.mtime.nanos)),
            Err(e) => {
                ctx.gnu_error(format_args!("{r}: {e}"));
                return 1;
            }
        }
    } else if let Some(d) = p.last("d") {
        match parse_date(d, now.secs, &zone) {
            Some(t) => times.push(t),
            None => {
                ctx.gnu_error(format_args!("invalid date {}", quote_locale(d)));
                return 1;
            }
        }
    } else if let Some(f) = p.last("f") {
        let cap = ctx.fs.max_file_size();
        let data = match input::open(ctx, f).and_then(|src| input::read_all(ctx.stdin, &src, cap)) {
            Ok(data) => data,
            Err(e) => {
                let shown = if f == "-" { "standard input" } else { f };
                ctx.gnu_error(format_args!("{}: {e}", quote(shown)));
                return 1;
            }
        };
        let mut status = 0;
        for line in String::from_utf8_lossy(&data).lines() {
            match parse_date(line, now.secs, &zone) {
                Some((s, ns)) => {
                    let _ = writeln!(ctx.stdout, "{}", strftime(&fmt, &zone.local(s, ns)));
                }
                None => {
                    ctx.gnu_error(format_args!("invalid date {}", quote_locale(line)));
                    status = 1;
                }
            }
        }
        return status;
    } else {
        times.push((now.secs, now.nanos));
    }
    for (s, ns) in times {
        if writeln!(ctx.stdout, "{}", strftime(&fmt, &zone.local(s, ns))).is_err() {
            return 1;
        }
    }
    0
}
