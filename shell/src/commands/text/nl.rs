//! `nl`: number lines (`-b a|t|n|pBRE`, `-n ln|rn|rz`, `-w`, `-s`, `-v`,
//! `-i`); logical page sections (`\:\:\:`) are not interpreted.

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use super::posix_regex::{Flavor, Regex, RegexOptions, Syntax};
use crate::commands::CommandCtx;

pub(crate) const USAGE: &str = "\
Usage: nl [OPTION]... [FILE]...
Write each FILE to standard output, with line numbers added.

With no FILE, or when FILE is -, read standard input.

  -b, --body-numbering=STYLE      use STYLE for numbering body lines
  -i, --line-increment=NUMBER     line number increment at each line
  -n, --number-format=FORMAT      insert line numbers according to FORMAT
  -s, --number-separator=STRING   add STRING after (possible) line number
  -v, --starting-line-number=NUMBER  first line number for each section
  -w, --number-width=NUMBER       use NUMBER columns for line numbers
      --help        display this help and exit

STYLE is one of:
  a   number all lines
  t   number only nonempty lines
  n   number no lines
  pBRE  number only lines that contain a match for the basic regular
        expression, BRE

FORMAT is one of:
  ln  left justified, no leading zeros
  rn  right justified, no leading zeros
  rz  right justified, leading zeros
";

const SPEC: &[OptSpec] = &[
    opt("b", Some('b'), Some("body-numbering"), Arg::Required),
    opt("d", Some('d'), Some("section-delimiter"), Arg::Required),
    opt("f", Some('f'), Some("footer-numbering"), Arg::Required),
    opt("h", Some('h'), Some("header-numbering"), Arg::Required),
    opt("i", Some('i'), Some("line-increment"), Arg::Required),
    opt("l", Some('l'), Some("join-blank-lines"), Arg::Required),
    opt("n", Some('n'), Some("number-format"), Arg::Required),
    opt("p", Some('p'), Some("no-renumber"), Arg::None),
    opt("s", Some('s'), Some("number-separator"), Arg::Required),
    opt("v", Some('v'), Some("starting-line-number"), Arg::Required),
    opt("w", Some('w'), Some("number-width"), Arg::Required),
    opt("help", None, Some("help"), Arg::None),
];

enum Style {
    All,
    NonEmpty,
    None,
    Re(Box<Regex>),
}

/// `nl`
pub fn nl(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    let mut style = Style::NonEmpty;
    let (mut format, mut width, mut sep) = ("rn".to_string(), 6usize, "\t".to_string());
    let (mut start, mut incr) = (1i64, 1i64);
    for (id, v) in &p.opts {
        let v = v.as_deref().unwrap_or("");
        let bad = |what: &str| format!("invalid {what}: {}", common::quote_locale(v));
        let r: Result<(), String> = match *id {
            "b" => match v {
                "a" => {
                    style = Style::All;
                    Ok(())
                }
                "t" => {
                    style = Style::NonEmpty;
                    Ok(())
                }
                "n" => {
                    style = Style::None;
                    Ok(())
                }
                _ if v.starts_with('p') => {
                    let opts = RegexOptions {
                        syntax: Syntax::Basic,
                        flavor: Flavor::Sed,
                        ..Default::default()
                    };
                    Regex::new(&v.as_bytes()[1..], opts).map(|r| style = Style::Re(Box::new(r)))
                }
                _ => Err(bad("body numbering style")),
            },
            "n" => match v {
                "ln" | "rn" | "rz" => {
                    format = v.to_string();
                    Ok(())
                }
                _ => Err(bad("line numbering format")),
            },
            // GNU takes an `int`: a wider field is an invalid width.
            "w" => match common::decimal_in_range(v, 1, i32::MAX.into(), true) {
                Ok(n) => {
                    width = n as usize;
                    Ok(())
                }
                Err(why) => Err(bad("line number field width") + why),
            },
            "s" => {
                sep = v.to_string();
                Ok(())
            }
            "v" => v
                .parse()
                .map(|n| start = n)
                .map_err(|_| bad("starting line number")),
            "i" => v
                .parse()
                .map(|n| incr = n)
                .map_err(|_| bad("line number increment")),
            _ => Ok(()),
        };
        if let Err(e) = r {
            common::err(ctx.stderr, "nl", e);
            // A bad style or format is a usage error to GNU's nl.
            if matches!(*id, "b" | "n") {
                common::try_help(ctx);
            }
            return 1;
        }
    }
    let (inputs, ok) = common::read_operands(ctx, &p.operands);
    let mut out = Vec::new();
    let mut n = start;
    for (_, data) in &inputs {
        for line in common::records(data, b'\n') {
            let number = match &style {
                Style::All => true,
                Style::NonEmpty => !line.is_empty(),
                Style::None => false,
                Style::Re(r) => r.is_match(line),
            };
            if number {
                let s = number_field(n, width, format.as_str());
                out.extend_from_slice(s.as_bytes());
                out.extend_from_slice(sep.as_bytes());
                n += incr;
            } else {
                out.extend(std::iter::repeat_n(b' ', width + sep.len()));
            }
            out.extend_from_slice(line);
            out.push(b'\n');
        }
    }
    if ctx.stdout.write_all(&out).is_err() {
        return 1;
    }
    if ok { 0 } else { 1 }
}

/// `n` in a field of `width` columns in the `-n` format `ln`, `rn` or
/// `rz`; padded by hand, as `format!` panics past a width of 65,535.
fn number_field(n: i64, width: usize, format: &str) -> String {
    let digits = n.unsigned_abs().to_string();
    let sign = if n < 0 { "-" } else { "" };
    let fill = width.saturating_sub(sign.len() + digits.len());
    match format {
        "ln" => format!("{sign}{digits}{}", " ".repeat(fill)),
        "rz" => format!("{sign}{}{digits}", "0".repeat(fill)),
        _ => format!("{}{sign}{digits}", " ".repeat(fill)),
    }
}
